package runtime

import (
	"context"
	"sync"
	"testing"
)

// Issue 13 item 3: guest logs are bounded per call in library use (one call
// used to log 390 MB into the caller's sink).
func TestGuestLogIsBoundedPerCall(t *testing.T) {
	var mu sync.Mutex
	total, lines := 0, 0
	e, err := LoadBundle(context.Background(), testBundle(t, "mini", false), Options{Log: func(env, line string) {
		mu.Lock()
		total += len(line)
		lines++
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ep := newEpisode(t, e, "", 1)
	for range 2 {
		if r := call(t, ep, "abuse", `{"mode":"log"}`); r.IsError {
			t.Fatal(r.Content)
		}
	}
	// Two calls of 10 MB each: each keeps its first 64 KiB plus one notice.
	if total > 2*(maxLogPerCall+200) || total < 2*(maxLogPerCall-2000) {
		t.Fatalf("two calls logging 10 MB each gave %d bytes in %d lines", total, lines)
	}
}
