package main

import (
	"bufio"
	"io"
	"net/http"
	"os/exec"
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
