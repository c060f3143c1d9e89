package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 26: inspect's lines fit a terminal (they ran to ~300 characters):
// descriptions wrap or are cut at 100 characters, every tool still listed.
func TestInspectLinesFit(t *testing.T) {
	store := filepath.Join(t.TempDir(), "store.wasm")
	if _, stderr, code := run(t, "", "build", "--example", "store", "-o", store); code != 0 {
		t.Fatal(stderr)
	}
	stdout, stderr, code := run(t, "", "inspect", store)
	if code != 0 {
		t.Fatal(stderr)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("line of %d characters: %s", n, l)
		}
	}
	for _, want := range []string{"22 tools", "cancel_order(order_id, reason)", "    Cancels a pending or processing order", "16 tasks"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
}
