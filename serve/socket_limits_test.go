package serve

import (
	"context"
	"encoding/json"
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

// waitSlotFree waits until a WebSocket at path is accepted (the server
// has MaxWebSockets 1: the session before it has ended).
func waitSlotFree(t *testing.T, ts *testServer, path string) {
	t.Helper()
	waitFor(t, "a free WebSocket slot", func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+path, nil)
		if err != nil {
			return false
		}
		c.CloseNow()
		return true
	})
}

// A client that sends requests but never reads the answers does not hold
// the server's goroutine and its WebSocket slot for ever: once the
// socket's buffers are full the answer's write stalls, and the idle
// timeout ends the connection as it ends one that sends nothing (its
// episodes then go with it: TestSocketDropDeletesEpisodes). The test makes
// no request that must be answered in time: a stall of the test itself
// past the short idle timeout only ends the connection sooner.
func TestSocketSlowReaderClosed(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, WSIdleTimeout: 300 * time.Millisecond, MaxWebSockets: 1, MaxBodyBytes: 1 << 20})
	sc := dialSocket(t, ts)
	// Each frame's answer quotes its op: about 1 MiB per answer, never read.
	frame := []byte(`{"op":"` + strings.Repeat("x", 1<<20) + `"}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil && sc.c.Write(ctx, websocket.MessageText, frame) == nil {
		}
	}()
	waitSlotFree(t, ts, "/v1/ws")
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

// A frame over the size limit is a client's mistake like a body over
// --max-body on HTTP: answered 413 too_large, and it loses nothing (the
// connection stays open, with the episodes it created).
func TestSocketOversizedFrameKeepsConnection(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, MaxBodyBytes: 1 << 10})
	sc := dialSocket(t, ts)
	a := sc.do("create", "", `{}`)
	var cr struct{ Episodes []string }
	if json.Unmarshal(a.Body, &cr); a.Status != 201 || len(cr.Episodes) != 1 {
		t.Fatalf("create: %d %s", a.Status, a.Body)
	}
	ep := cr.Episodes[0]
	for _, size := range []int{8 << 10, 1 << 20} {
		big := `{"id":1,"op":"call","episode":"` + ep + `","body":"` + strings.Repeat("x", size) + `"}`
		a, err := sc.send(big)
		if err != nil {
			t.Fatalf("%d bytes: %v, want an answer", size, err)
		}
		var body struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal(a.Body, &body)
		if a.Status != 413 || body.Error.Code != "too_large" || !strings.Contains(body.Error.Message, "limit") {
			t.Fatalf("%d bytes: %d %s, want 413 too_large", size, a.Status, a.Body)
		}
		if a := sc.do("call", ep, `{"name":"get","arguments":{"key":"a"}}`); a.Status != 200 {
			t.Fatalf("after %d bytes: %d %s", size, a.Status, a.Body)
		}
	}
	if n := ts.srv.Episodes(); n != 1 {
		t.Fatalf("%d episodes, want the connection's one", n)
	}
}

// OpenEnv's /ws (and GET /mcp, the same session loop) likewise: a client
// that never reads its answers is closed after the idle timeout, its slot
// freed.
func TestOpenEnvWebSocketSlowReaderClosed(t *testing.T) {
	ts := newTestServer(t, Options{IdleTimeout: -1, WSIdleTimeout: 300 * time.Millisecond, MaxWebSockets: 1, MaxBodyBytes: 2 << 20})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.url, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	// Each answer quotes the message's type: about 1 MiB, never read.
	frame := []byte(`{"type":"` + strings.Repeat("x", 1<<20) + `"}`)
	go func() {
		for ctx.Err() == nil && c.Write(ctx, websocket.MessageText, frame) == nil {
		}
	}()
	waitSlotFree(t, ts, "/ws")
}
