package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/fleet"
)

// `wasmenv serve --nats` and `wasmenv worker --serve`, as processes: a
// call goes gateway -> NATS -> worker and back, and the worker's token is
// enforced through the gateway.
func TestServeGatewayCLI(t *testing.T) {
	bundle := buildMini(t)
	ns, err := fleet.StartServer(fleet.ServerConfig{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	url := ns.ClientURL()

	if out, err := exec.Command(bin, "serve", "--nats", url, bundle).CombinedOutput(); err == nil || !strings.Contains(string(out), "worker --serve") {
		t.Errorf("serve --nats with a bundle: %v %s", err, out)
	}

	var wlog, glog syncBuffer
	worker := exec.Command(bin, "worker", "--nats", url, "--serve", bundle, "--token", "sekrit")
	worker.Stdout, worker.Stderr = &wlog, &wlog
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { worker.Process.Kill(); worker.Wait() }()
	gateway := exec.Command(bin, "serve", "--nats", url, "--addr", "127.0.0.1:0")
	gateway.Stderr = &glog
	stdout, err := gateway.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := gateway.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { gateway.Process.Kill(); gateway.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line: %v (stderr %s)", err, glog.String())
	}
	base := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	do := func(token, path, body string) (int, string) {
		req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// The worker may not have joined yet: no_workers (503) until it has.
	var code int
	var created string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if code, created = do("sekrit", "/v1/episodes", `{}`); code != http.StatusServiceUnavailable {
			break
		}
	}
	i := strings.Index(created, `"ep_`)
	if code != http.StatusCreated || i < 0 {
		t.Fatalf("create: %d %s\nworker: %s", code, created, wlog.String())
	}
	id := created[i+1 : i+1+strings.Index(created[i+1:], `"`)]
	if code, out := do("sekrit", "/v1/episodes/"+id+"/call", `{"name":"put","arguments":{"key":"a","value":"b"}}`); code != 200 || !strings.Contains(out, `"ok"`) {
		t.Fatalf("call: %d %s", code, out)
	}
	if code, out := do("", "/v1/episodes/"+id+"/call", `{"name":"get","arguments":{"key":"a"}}`); code != http.StatusUnauthorized {
		t.Fatalf("call without the token: %d %s", code, out)
	}
}

// Issue 37, finding 12: `worker --serve --clients` gives each client its
// own episodes and quota as `serve --clients` does, and the gateway's
// /stats needs a token (its own --token or --clients); /health stays open.
// The whole fleet runs with a fleet key.
func TestServeFleetClientsAndStatsToken(t *testing.T) {
	bundle := buildMini(t)
	ns, err := fleet.StartServer(fleet.ServerConfig{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	url := ns.ClientURL()
	dir := t.TempDir()
	clients := filepath.Join(dir, "clients")
	os.WriteFile(clients, []byte("alice tok-alice 1\nbob tok-bob 1\n"), 0o600)
	key := filepath.Join(dir, "fleet.key")
	os.WriteFile(key, []byte(strings.Repeat("fleet-key-", 4)), 0o600)

	var wlog, glog syncBuffer
	worker := exec.Command(bin, "worker", "--nats", url, "--serve", bundle, "--clients", clients, "--fleet-key", key)
	worker.Stdout, worker.Stderr = &wlog, &wlog
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { worker.Process.Kill(); worker.Wait() }()
	gateway := exec.Command(bin, "serve", "--nats", url, "--addr", "127.0.0.1:0", "--clients", clients, "--fleet-key", key)
	gateway.Stderr = &glog
	stdout, err := gateway.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := gateway.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { gateway.Process.Kill(); gateway.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no listening line: %v (stderr %s)", err, glog.String())
	}
	base := strings.TrimSpace(strings.TrimPrefix(line, "listening on "))
	do := func(method, token, path, body string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	var code int
	var created string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if code, created = do("POST", "tok-alice", "/v1/episodes", `{}`); code != http.StatusServiceUnavailable {
			break
		}
	}
	i := strings.Index(created, `"ep_`)
	if code != http.StatusCreated || i < 0 {
		t.Fatalf("alice's create: %d %s\nworker: %s\ngateway: %s", code, created, wlog.String(), glog.String())
	}
	id := created[i+1 : i+1+strings.Index(created[i+1:], `"`)]
	if code, out := do("POST", "tok-alice", "/v1/episodes", `{}`); code != http.StatusTooManyRequests || !strings.Contains(out, "quota") {
		t.Errorf("alice's second create over her quota of 1: %d %s", code, out)
	}
	if code, out := do("POST", "tok-bob", "/v1/episodes/"+id+"/call", `{"name":"put","arguments":{"key":"a","value":"b"}}`); code != http.StatusNotFound {
		t.Errorf("bob calls alice's episode: %d %s", code, out)
	}
	if code, out := do("POST", "tok-bob", "/v1/episodes", `{}`); code != http.StatusCreated {
		t.Errorf("bob's create: %d %s", code, out)
	}
	if code, out := do("GET", "", "/stats", ""); code != http.StatusUnauthorized {
		t.Errorf("/stats without a token: %d %s", code, out)
	}
	if code, out := do("GET", "tok-bob", "/stats", ""); code != http.StatusOK || !strings.Contains(out, "workers") {
		t.Errorf("/stats with a token: %d %s", code, out)
	}
	if code, _ := do("GET", "", "/health", ""); code != http.StatusOK {
		t.Errorf("/health: %d", code)
	}
}
