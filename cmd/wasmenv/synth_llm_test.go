package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wasmenv/wasmenv/internal/llmreplay"
)

func TestSynthLLMFlagsAndErrors(t *testing.T) {
	if _, stderr, code := run(t, "", "synth", "llm", "-o", t.TempDir()); code != 1 || !strings.Contains(stderr, "--model and -o are required") {
		t.Errorf("no model: %d %q", code, stderr)
	}
	prompts := filepath.Join(t.TempDir(), "prompts")
	if stdout, _, code := run(t, "", "synth", "llm", "--write-prompts", prompts); code != 0 || !strings.Contains(stdout, "--prompts "+prompts) {
		t.Errorf("write prompts: %d %q", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(prompts, "code.tmpl")); err != nil {
		t.Error(err)
	}
	bad := filepath.Join(t.TempDir(), "scenarios.jsonl")
	os.WriteFile(bad, []byte("{\"title\": \"Library\"}\n{not json\n"), 0o644)
	if _, stderr, code := run(t, "", "synth", "llm", "--model", "m", "-o", t.TempDir(), "--scenario-file", bad); code != 1 || !strings.Contains(stderr, "scenarios.jsonl:2") {
		t.Errorf("bad scenario file: %d %q", code, stderr)
	}
	if _, stderr, code := run(t, "", "synth", "llm", "--model", "m", "-o", t.TempDir(), "--auth", "maybe"); code != 1 || !strings.Contains(stderr, "--auth") {
		t.Errorf("bad --auth: %d %q", code, stderr)
	}
}

// TestSynthLLMRefusedKey: an endpoint that refuses the key is asked once
// (a 401 is not retried) and the error says what the server said.
func TestSynthLLMRefusedKey(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("authorization header %q", r.Header.Get("Authorization"))
		}
		http.Error(w, `{"error":{"message":"Incorrect API key provided"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	os.Setenv("SYNTH_TEST_KEY", "sk-test")
	defer os.Unsetenv("SYNTH_TEST_KEY")
	_, stderr, code := run(t, "", "synth", "llm", "--base-url", srv.URL+"/v1", "--model", "m", "--api-key-env", "SYNTH_TEST_KEY",
		"-o", t.TempDir(), "--seed-domain", "libraries", "--scenarios", "2")
	if code != 1 || !strings.Contains(stderr, "401") || !strings.Contains(stderr, "Incorrect API key") || n.Load() != 1 {
		t.Errorf("exit %d after %d requests: %q", code, n.Load(), stderr)
	}
}

// TestSynthLLMEndToEnd runs the command against recorded model answers
// (the ones synth/llm's tests replay) and checks what a user gets: two
// bundles that load, the sources, the report.
func TestSynthLLMEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	srv := llmreplay.New(t, "../../synth/llm/testdata/replay")
	os.Setenv("SYNTH_TEST_KEY", llmreplay.Key)
	defer os.Unsetenv("SYNTH_TEST_KEY")
	out := t.TempDir()
	stdout, stderr, code := run(t, "", "synth", "llm", "--base-url", srv.URL+"/v1", "--model", "Qwen/Qwen2.5-Coder-32B-Instruct",
		"--api-key-env", "SYNTH_TEST_KEY", "-o", out, "--seed-domain", "public libraries", "--seed-domain", "healthcare clinics",
		"--scenarios", "3", "--tasks", "2", "--probe-rounds", "1", "--jobs", "2", "--retain-k", "0")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "2 environments kept of 2") || !strings.Contains(stderr, "2/2 environments · kept 2") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	}
	for _, name := range []string{"library-lending", "clinic-appointments"} {
		if _, err := os.Stat(filepath.Join(out, name, "tools")); err != nil {
			t.Error(err)
		}
		stdout, _, code := run(t, "", "inspect", filepath.Join(out, name+".wasm"))
		if code != 0 || !strings.Contains(stdout, "4 tools") {
			t.Errorf("inspect %s: %d\n%s", name, code, stdout)
		}
	}
}
