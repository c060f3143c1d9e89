package serve

import (
	"net/http"
	"runtime"
	"testing"
)

// Issue 13 item 2: new episodes are refused (429) while the server's memory
// is over its cap, and a diff over the response limit stops early (413).
func TestMemoryCapAndDiffLimit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("resident memory is read from /proc")
	}
	ts := newTestServer(t, Options{MaxMemoryBytes: 1 << 20, MaxResponseBytes: 64 << 10})
	code, m := ts.do("POST", "/v1/episodes", `{}`)
	if code != http.StatusTooManyRequests || m["error"].(map[string]any)["code"] != "memory" {
		t.Fatalf("create over the memory cap: HTTP %d %v", code, m)
	}
	ts.srv.opts.MaxMemoryBytes = 0
	id := ts.create(`{}`)[0]
	ts.fill(id, 4, 100_000)
	if code, m := ts.do("GET", "/v1/episodes/"+id+"/diff", ""); code != http.StatusRequestEntityTooLarge {
		t.Fatalf("a 400 KB diff under a 64 KiB limit: HTTP %d %v", code, m)
	}
}
