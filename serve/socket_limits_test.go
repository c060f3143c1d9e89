package serve

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// waitFor polls cond until it holds, failing the test after a minute (a
// liveness bound, not a timing claim: the behaviour either comes or not).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
	}
}

// A client that sends requests but never reads the answers does not hold
// the server's goroutine, its WebSocket slot and its episodes for ever:
// once the socket's buffers are full the answer's write stalls, and the
// idle timeout ends the connection as it ends one that sends nothing.
func TestSocketSlowReaderClosed(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, WSIdleTimeout: 300 * time.Millisecond, MaxWebSockets: 1, MaxBodyBytes: 1 << 20})
	sc := dialSocket(t, ts)
	if a := sc.do("create", "", `{}`); a.Status != 201 {
		t.Fatalf("create: %d %s", a.Status, a.Body)
	}
	// Each frame's answer quotes its op: about 1 MiB per answer, never read.
	frame := []byte(`{"op":"` + strings.Repeat("x", 1<<20) + `"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil && sc.c.Write(ctx, websocket.MessageText, frame) == nil {
		}
	}()
	waitFor(t, "the connection's episode to be deleted", func() bool { return ts.srv.Episodes() == 0 })
	// Its slot is free again: a new connection is accepted.
	waitFor(t, "a free WebSocket slot", func() bool {
		dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer dcancel()
		c, _, err := websocket.Dial(dctx, "ws"+strings.TrimPrefix(ts.url, "http")+"/v1/ws", nil)
		if err != nil {
			return false
		}
		c.CloseNow()
		return true
	})
}

// A page of another site cannot open the socket in its visitor's browser
// (coder/websocket's Accept refuses an Origin whose host is not the
// request's): with auth off, it would drive the episode API cross-site.
func TestSocketCrossOriginRefused(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(ts.url, "http") + "/v1/ws"
	o := &websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"https://evil.example"}}}
	if c, resp, err := websocket.Dial(ctx, url, o); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		if c != nil {
			c.CloseNow()
		}
		t.Fatalf("cross-site Origin: %v, want 403", err)
	}
	o.HTTPHeader.Set("Origin", ts.url) // the server's own pages may
	c, _, err := websocket.Dial(ctx, url, o)
	if err != nil {
		t.Fatalf("same-origin: %v", err)
	}
	c.CloseNow()
}
