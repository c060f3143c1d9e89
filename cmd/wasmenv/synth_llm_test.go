package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
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
