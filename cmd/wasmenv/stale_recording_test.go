package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// staleRecording: the design recording in dir predates the design prompt
// that asks for "figures" (issue 34): no recorded answer names them. The
// replay answers a request by its exact body, so such a recording answers
// nothing of the present prompt until it is recorded again through the
// relay with a real model.
func staleRecording(t *testing.T, dir string) bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no recording in %s", dir)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), `\"figures\"`) {
			return false
		}
	}
	return true
}
