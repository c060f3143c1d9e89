package serve

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// Issue 13 item 4: one token for everyone let any holder call or reset any
// episode whose id it knew. Episodes now belong to the client that created
// them: another client finds no such episode on any route, and each client
// has its own episode quota.
func TestEpisodesBelongToTheirClient(t *testing.T) {
	path := filepath.Join(t.TempDir(), "clients")
	os.WriteFile(path, []byte("# name token [max episodes]\nalice tok-alice 2\nbob tok-bob\n"), 0o600)
	clients, err := LoadClients(path)
	if err != nil {
		t.Fatal(err)
	}
	alice := newTestServer(t, Options{Clients: clients, Token: "tok-old"})
	bob := &testServer{t: t, srv: alice.srv, url: alice.url, token: "tok-bob"}
	old := &testServer{t: t, srv: alice.srv, url: alice.url, token: "tok-old"}
	alice.token = "tok-alice"

	id := alice.create(`{"task":"put-d"}`)[0]
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v1/episodes/" + id, ""},
		{"POST", "/v1/episodes/" + id + "/call", `{"name":"get","arguments":{"key":"a"}}`},
		{"POST", "/v1/episodes/" + id + "/step", `{"action":{"name":"get","arguments":{"key":"a"}}}`},
		{"POST", "/v1/episodes/" + id + "/score", `{}`},
		{"GET", "/v1/episodes/" + id + "/diff", ""},
		{"POST", "/v1/episodes/" + id + "/reset", `{}`},
		{"DELETE", "/v1/episodes/" + id, ""},
		{"GET", "/state?episode_id=" + id, ""},
		{"POST", "/step", `{"episode_id":"` + id + `","action":{"tool_name":"get","arguments":{"key":"a"}}}`},
		{"POST", "/v1/episodes/" + id + "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get","arguments":{"key":"a"}}}`},
		{"POST", "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"session_id":"` + id + `","name":"get","arguments":{"key":"a"}}}`},
	} {
		for _, other := range []*testServer{bob, old} {
			code, b := other.raw(context.Background(), r.method, r.path, r.body)
			if code != http.StatusNotFound && !strings.Contains(string(b), "Unknown session_id") {
				t.Errorf("%s %s %s by another client: HTTP %d %s", r.method, r.path, r.body, code, b)
			}
		}
	}
	// OpenEnv reset naming alice's episode makes bob a new one instead.
	_, m := bob.do("POST", "/reset", `{"episode_id":"`+id+`"}`)
	if got := m["observation"].(map[string]any)["episode_id"]; got == id {
		t.Errorf("bob's reset took alice's episode")
	}
	// WebSocket: a reset naming alice's episode does not reach it either.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(alice.url, "http", "ws", 1)+"/ws", &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer tok-bob"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"reset","data":{"episode_id":"`+id+`"}}`))
	_, msg, err := c.Read(ctx)
	if err != nil || strings.Contains(string(msg), id) {
		t.Errorf("bob's WebSocket reset: %s %v", msg, err)
	}

	// alice's episode is intact and hers.
	if code, m := alice.do("POST", "/v1/episodes/"+id+"/call", `{"name":"get","arguments":{"key":"a"}}`); code != 200 || m["is_error"] == true {
		t.Fatalf("alice's own call: HTTP %d %v", code, m)
	}
	// Quota: alice may hold 2.
	alice.create(`{}`)
	if code, m := alice.do("POST", "/v1/episodes", `{}`); code != http.StatusTooManyRequests || m["error"].(map[string]any)["code"] != "quota" {
		t.Fatalf("alice's third episode: HTTP %d %v", code, m)
	}
	if code, _ := bob.do("POST", "/v1/episodes", `{"n":3}`); code != http.StatusCreated {
		t.Fatalf("bob has no quota: HTTP %d", code)
	}
	if code, _ := alice.do("DELETE", "/v1/episodes/"+id, ""); code != 200 {
		t.Fatalf("alice deletes her episode: HTTP %d", code)
	}
}

// Issue 25 finding 13: tokens are compared through fixed-length digests
// (no early return on a length mismatch; timing is not asserted here, the
// answers are): prefixes, extensions and near misses are refused.
func TestSameToken(t *testing.T) {
	for _, c := range []struct {
		got, want string
		ok        bool
	}{
		{"s3cret-token", "s3cret-token", true},
		{"s3cret", "s3cret-token", false},
		{"s3cret-token-and-more", "s3cret-token", false},
		{"s3cret-tokeN", "s3cret-token", false},
		{"", "s3cret-token", false},
	} {
		if got := sameToken(c.got, c.want); got != c.ok {
			t.Errorf("sameToken(%q, %q) = %v", c.got, c.want, got)
		}
	}
}
