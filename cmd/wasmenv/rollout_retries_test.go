package main

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// rollout --retries 0 sends each request once (0 meant the default, 5).
func TestRolloutRetriesZero(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	dir := t.TempDir()
	store := filepath.Join(dir, "store.wasm")
	if _, stderr, code := run(t, "", "build", "--example", "store", "-o", store); code != 0 {
		t.Fatal(stderr)
	}
	_, stderr, _ := run(t, "", "rollout", store, "--policy", "openai", "--base-url", srv.URL+"/v1", "--model", "m",
		"--tasks", "cancel-pending-order-mistake", "--group", "1", "--retries", "0", "-o", filepath.Join(dir, "r.jsonl"), "-q")
	if n.Load() != 1 {
		t.Errorf("%d requests with --retries 0, want 1: %s", n.Load(), stderr)
	}
}
