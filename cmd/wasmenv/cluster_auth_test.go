package main

import (
	"bytes"
	"context"
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
