package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// Issue 37, finding 6: `wasmenv cluster` off loopback refuses to start
// without authentication, and starts with deploy/nats/fleet-auth.conf's
// nkey users and per-role permissions; every command then connects with
// --nats-nkey and --fleet-key, and the fleet's output is the local run's.
// A client without credentials is refused, and a worker cannot enqueue a
// job nor a driver publish a result.
func TestClusterWithAuthAndRoles(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "cluster", "--host", "0.0.0.0", "--port", "-1", "--store", t.TempDir()).CombinedOutput()
	if ctx.Err() != nil || err == nil || !strings.Contains(string(out), "must authenticate") {
		t.Fatalf("cluster --host 0.0.0.0 without auth: %v (%v) %s", err, ctx.Err(), out)
	}

	dir := t.TempDir()
	conf, err := os.ReadFile("../../deploy/nats/fleet-auth.conf")
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string]string{}
	for _, role := range []string{"DRIVER", "WORKER", "GATEWAY", "SERVING"} {
		kp, err := nkeys.CreateUser()
		if err != nil {
			t.Fatal(err)
		}
		pub, _ := kp.PublicKey()
		seed, _ := kp.Seed()
		conf = bytes.ReplaceAll(conf, []byte(role+"_NKEY"), []byte(pub))
		seeds[role] = filepath.Join(dir, strings.ToLower(role)+".nk")
		if err := os.WriteFile(seeds[role], seed, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	confPath := filepath.Join(dir, "fleet-auth.conf")
	os.WriteFile(confPath, conf, 0o600)
	key := filepath.Join(dir, "fleet.key")
	os.WriteFile(key, []byte(strings.Repeat("k3y-", 10)), 0o600)

	url := startCluster(t, "--host", "0.0.0.0", "--config", confPath)
	bundle := buildMini(t)
	args := []string{"rollout", bundle, "--policy", "oracle", "--group", "2", "--seed", "3", "-q"}
	local := filepath.Join(dir, "local.jsonl")
	if _, stderr, code := run(t, "", append(args, "--concurrency", "1", "-o", local)...); code != 0 {
		t.Fatalf("local: %s", stderr)
	}
	want, _ := os.ReadFile(local)

	if _, stderr, code := run(t, "", append(args, "--nats", url, "-o", filepath.Join(dir, "x.jsonl"))...); code == 0 || !strings.Contains(strings.ToLower(stderr), "authorization") {
		t.Fatalf("a driver without credentials: %d %s", code, stderr)
	}
	startWorkerProcs(t, url, 2, "--nats-nkey", seeds["WORKER"], "--fleet-key", key)
	onFleet := filepath.Join(dir, "fleet.jsonl")
	if _, stderr, code := run(t, "", append(args, "--nats", url, "--nats-nkey", seeds["DRIVER"], "--fleet-key", key, "-o", onFleet)...); code != 0 {
		t.Fatalf("--nats with auth: %d %s", code, stderr)
	}
	if got, _ := os.ReadFile(onFleet); !bytes.Equal(got, want) {
		t.Fatalf("the fleet's output (%d bytes) is not the local run's (%d bytes)", len(got), len(want))
	}

	// Roles: a worker cannot enqueue, a driver cannot answer.
	for role, subject := range map[string]string{"WORKER": "wasmenv.jobs.forged", "DRIVER": "wasmenv.results.forged"} {
		opt, err := nats.NkeyOptionFromSeed(seeds[role])
		if err != nil {
			t.Fatal(err)
		}
		nc, err := nats.Connect(url, opt)
		if err != nil {
			t.Fatal(err)
		}
		js, _ := jetstream.New(nc)
		pctx, pcancel := context.WithTimeout(context.Background(), 3*time.Second)
		_, err = js.Publish(pctx, subject, []byte("{}"))
		pcancel()
		nc.Close()
		if err == nil {
			t.Errorf("a %s published on %s", strings.ToLower(role), subject)
		}
	}
}

// --nats-tls-ca: `wasmenv cluster --config` with a tls block (a
// certificate of a CA made here) and nkey users; a worker and a driver
// that verify the server with the CA run the fleet, and a driver without
// the CA is refused (the certificate is of an unknown authority).
func TestClusterWithTLS(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCA(t)
	writePEM(t, filepath.Join(dir, "ca.pem"), "CERTIFICATE", ca.Raw)
	certDER, keyDER := newServerCert(t, ca, caKey)
	writePEM(t, filepath.Join(dir, "server.pem"), "CERTIFICATE", certDER)
	writePEM(t, filepath.Join(dir, "server-key.pem"), "EC PRIVATE KEY", keyDER)

	conf, err := os.ReadFile("../../deploy/nats/fleet-auth.conf")
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[string]string{}
	for _, role := range []string{"DRIVER", "WORKER", "GATEWAY", "SERVING"} {
		kp, _ := nkeys.CreateUser()
		pub, _ := kp.PublicKey()
		seed, _ := kp.Seed()
		conf = bytes.ReplaceAll(conf, []byte(role+"_NKEY"), []byte(pub))
		seeds[role] = filepath.Join(dir, strings.ToLower(role)+".nk")
		os.WriteFile(seeds[role], seed, 0o600)
	}
	conf = append(conf, []byte("\ntls {\n  cert_file: \""+filepath.Join(dir, "server.pem")+"\"\n  key_file: \""+filepath.Join(dir, "server-key.pem")+"\"\n}\n")...)
	confPath := filepath.Join(dir, "fleet-tls.conf")
	os.WriteFile(confPath, conf, 0o600)
	url := startCluster(t, "--config", confPath)

	bundle := buildMini(t)
	args := []string{"rollout", bundle, "--policy", "oracle", "--group", "2", "--seed", "5", "-q"}
	local := filepath.Join(dir, "local.jsonl")
	if _, stderr, code := run(t, "", append(args, "--concurrency", "1", "-o", local)...); code != 0 {
		t.Fatalf("local: %s", stderr)
	}
	want, _ := os.ReadFile(local)
	if _, stderr, code := run(t, "", append(args, "--nats", url, "--nats-nkey", seeds["DRIVER"], "-o", filepath.Join(dir, "x.jsonl"))...); code == 0 || !strings.Contains(stderr, "certificate") {
		t.Fatalf("a driver without the CA: %d %s", code, stderr)
	}
	tlsFlags := []string{"--nats-tls-ca", filepath.Join(dir, "ca.pem")}
	startWorkerProcs(t, url, 1, append([]string{"--nats-nkey", seeds["WORKER"]}, tlsFlags...)...)
	onFleet := filepath.Join(dir, "fleet.jsonl")
	if _, stderr, code := run(t, "", append(append(args, "--nats", url, "--nats-nkey", seeds["DRIVER"], "-o", onFleet), tlsFlags...)...); code != 0 {
		t.Fatalf("--nats over TLS: %d %s", code, stderr)
	}
	if got, _ := os.ReadFile(onFleet); !bytes.Equal(got, want) {
		t.Fatalf("the fleet's output over TLS (%d bytes) is not the local run's (%d bytes)", len(got), len(want))
	}
}

func newCA(t *testing.T) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "wasmenv test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return ca, key
}

func newServerCert(t *testing.T, ca *x509.Certificate, caKey *ecdsa.PrivateKey) (certDER, keyDER []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if certDER, err = x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey); err != nil {
		t.Fatal(err)
	}
	if keyDER, err = x509.MarshalECPrivateKey(key); err != nil {
		t.Fatal(err)
	}
	return certDER, keyDER
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
