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

// Issue 25 finding 7: GET /mcp WebSockets escaped every client limit that
// /ws obeys. Under --clients, --max-websockets 5 and --ws-idle-timeout, a
// client with a quota of 3 held 20 episodes over 20 /mcp sockets and none
// was closed: the socket's episodes belonged to nobody (the server's
// context, not the client's), the socket cap was not taken and the read
// had no idle deadline.
func TestMCPSocketObeysClientLimits(t *testing.T) {
	srv, addr := realServer(t, Options{
		Clients:       []Client{{Name: "alice", Token: "tok-alice", MaxEpisodes: 3}, {Name: "bob", Token: "tok-bob"}},
		MaxWebSockets: 5,
		WSIdleTimeout: time.Second,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dial := func(token string) (*websocket.Conn, *http.Response, error) {
		return websocket.Dial(ctx, "ws://"+addr+"/mcp", &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + token}}})
	}
	call := func(c *websocket.Conn) map[string]any {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{"key":"a"}}}`)); err != nil {
			t.Fatalf("write: %v", err)
		}
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("answer not JSON: %q", b)
		}
		return m
	}

	// Quota: alice's first three sockets get an episode each, the fourth
	// is refused with the quota error, as a JSON-RPC error.
	var socks []*websocket.Conn
	for i := range 4 {
		c, _, err := dial("tok-alice")
		if err != nil {
			t.Fatalf("socket %d: %v", i, err)
		}
		defer c.CloseNow()
		socks = append(socks, c)
		m := call(c)
		if i < 3 && m["result"] == nil {
			t.Fatalf("socket %d within the quota: %v", i, m)
		}
		if i == 3 {
			e, _ := m["error"].(map[string]any)
			if e == nil || !strings.Contains(toString(e["message"]), "holds its maximum of 3 episodes") {
				t.Fatalf("alice's fourth episode over her quota of 3: %v", m)
			}
		}
	}
	// The episodes are alice's: counted against her, invisible to bob.
	srv.table.mu.RLock()
	owned, n := srv.table.owned["alice"], len(srv.table.eps)
	for id, e := range srv.table.eps {
		if e.owner != "alice" {
			t.Errorf("episode %s of alice's socket belongs to %q", id, e.owner)
		}
	}
	srv.table.mu.RUnlock()
	if owned != 3 || n != 3 {
		t.Errorf("alice owns %d of %d episodes, want 3 of 3", owned, n)
	}

	// Cap: a fifth socket is allowed, a sixth (bob's, no quota) is not.
	c5, _, err := dial("tok-bob")
	if err != nil {
		t.Fatalf("fifth socket: %v", err)
	}
	defer c5.CloseNow()
	if _, resp, err := dial("tok-bob"); err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a sixth socket over the cap of 5: %v %v", resp, err)
	}

	// Idle: every socket is closed after the idle timeout and its episode
	// deleted.
	for i, c := range append(socks, c5) {
		if _, _, err := c.Read(ctx); err == nil || ctx.Err() != nil {
			t.Fatalf("idle socket %d still open: %v", i, err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for srv.Episodes() > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := srv.Episodes(); n != 0 {
		t.Errorf("%d episodes left after their sockets closed", n)
	}
}
