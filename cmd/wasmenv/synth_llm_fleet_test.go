package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/internal/llmreplay"
)

// TestSynthLLMOnFleet runs `synth llm` locally and with --nats on two
// `wasmenv worker` processes (each reading the key from its own
// environment) against recorded model answers: the same files, the
// paths in the reports aside.
func TestSynthLLMOnFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	t.Setenv("SYNTH_TEST_KEY", llmreplay.Key)
	args := func(url, out string, more ...string) []string {
		return append([]string{"synth", "llm", "--base-url", url + "/v1", "--model", "Qwen/Qwen2.5-Coder-32B-Instruct",
			"--api-key-env", "SYNTH_TEST_KEY", "-o", out, "--seed-domain", "public libraries", "--seed-domain", "healthcare clinics",
			"--scenarios", "3", "--tasks", "2", "--probe-rounds", "1", "--retain-k", "0"}, more...)
	}
	dir := t.TempDir()
	local, onFleet := filepath.Join(dir, "local"), filepath.Join(dir, "fleet")
	if stdout, stderr, code := run(t, "", args(llmreplay.New(t, "../../synth/llm/testdata/replay").URL, local, "--jobs", "2")...); code != 0 {
		t.Fatalf("local: %d\n%s\n%s", code, stdout, stderr)
	}
	os.RemoveAll(filepath.Join(local, ".work")) // a local run's scratch builds
	url := startCluster(t)
	srv := llmreplay.New(t, "../../synth/llm/testdata/replay")
	// The workers' own configuration: the endpoint and the key's variable.
	key := filepath.Join(dir, "fleet.key")
	os.WriteFile(key, []byte(strings.Repeat("0123456789", 4)), 0o600)
	startWorkerProcs(t, url, 2, "--allow-endpoint", srv.URL+"/v1", "--api-key-env", "SYNTH_TEST_KEY", "--fleet-key", key)
	stdout, stderr, code := run(t, "", args(srv.URL, onFleet, "--nats", url, "--fleet-key", key)...)
	if code != 0 || !strings.Contains(stdout, "2 environments kept of 2") || !strings.Contains(stderr, "2 scenarios") {
		t.Fatalf("--nats: %d\n%s\n%s", code, stdout, stderr)
	}
	want := strings.ReplaceAll(envTree(t, local), local, "OUTDIR")
	if got := strings.ReplaceAll(envTree(t, onFleet), onFleet, "OUTDIR"); got != want {
		t.Fatalf("the fleet's output differs from the local run's")
	}
	if _, stderr, code := run(t, "", args("http://127.0.0.1:1", t.TempDir(), "--run-id", "x")...); code != 1 || !strings.Contains(stderr, "needs --nats") {
		t.Fatalf("--run-id without --nats: %d %s", code, stderr)
	}
}
