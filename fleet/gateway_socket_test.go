package fleet_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/serve"
)

// wsConn is a client's WebSocket through the gateway.
type wsConn struct {
	t   *testing.T
	c   *websocket.Conn
	ctx context.Context
}

func dialGateway(t *testing.T, ctx context.Context, base, path string) *wsConn {
	t.Helper()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+path, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return &wsConn{t, c, ctx}
}

// rt sends one message and reads the answer.
func (w *wsConn) rt(msg string) map[string]any {
	w.t.Helper()
	if err := w.c.Write(w.ctx, websocket.MessageText, []byte(msg)); err != nil {
		w.t.Fatal(err)
	}
	_, b, err := w.c.Read(w.ctx)
	if err != nil {
		w.t.Fatalf("after %s: %v", msg, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		w.t.Fatal(err)
	}
	return m
}

// TestGatewayWebSockets: OpenEnv's /ws sessions and GET /mcp sockets
// through the gateway, placed over two in-process workers and a real
// worker process, each keeping its episode; the process SIGKILLed: its
// socket closes with episode_lost (4410), the others carry on; a session
// the client closes deletes its episode on its worker.
func TestGatewayWebSockets(t *testing.T) {
	url := startServer(t)
	mini := miniBundleFile(t)
	local := map[string]bool{startServeWorker(t, url, mini): true, startServeWorker(t, url, mini): true}
	proc := exec.Command(wasmenvBinary(t), "worker", "--nats", url, "--serve", mini, "-q")
	var plog bytes.Buffer
	proc.Stdout, proc.Stderr = &plog, &plog
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proc.Process.Kill(); proc.Wait() })
	gw, err := fleet.NewGateway(connect(t, url), fleet.GatewayOptions{Timeout: 20 * time.Second, SocketPing: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	hs := httptest.NewServer(gw)
	defer hs.Close()
	c := gatewayClient{t, hs.URL}
	deadline := time.Now().Add(30 * time.Second)
	for len(gw.Workers()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("workers seen: %v; process log:\n%s", gw.Workers(), plog.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// Three /ws sessions, one per worker: each resets, writes its own
	// value, reads it back.
	socks := map[string]*wsConn{} // by owner
	ids := map[string]string{}    // episode by owner
	for i := range 3 {
		s := dialGateway(t, ctx, hs.URL, "/ws?seed=1")
		m := s.rt(`{"type":"reset","data":{}}`)
		data, _ := m["data"].(map[string]any)
		obs, _ := data["observation"].(map[string]any)
		id, _ := obs["episode_id"].(string)
		if m["type"] != "observation" || id == "" {
			t.Fatalf("reset %d: %v", i, m)
		}
		owner := ownerOfID(id)
		if socks[owner] != nil {
			t.Fatalf("two sessions on worker %s (workers %v)", owner, gw.Workers())
		}
		socks[owner], ids[owner] = s, id
		// The next socket is placed by the counts that include this one.
		for sum := 0; sum < i+1; {
			sum = 0
			for _, n := range gw.Workers() {
				sum += n
			}
			time.Sleep(10 * time.Millisecond)
		}
		m = s.rt(`{"type":"step","data":{"type":"call_tool","tool_name":"put","arguments":{"key":"me","value":"` + id + `"}}}`)
		if m["type"] != "observation" || strings.Contains(asJSON(m), `"is_error":true`) {
			t.Fatalf("step put: %v", m)
		}
	}
	for owner, s := range socks {
		m := s.rt(`{"type":"step","data":{"type":"call_tool","tool_name":"get","arguments":{"key":"me"}}}`)
		if !strings.Contains(asJSON(m), ids[owner]) {
			t.Fatalf("session on %s reads %v, want its own %s", owner, m, ids[owner])
		}
		if m := s.rt(`{"type":"state"}`); m["type"] != "state" || !strings.Contains(asJSON(m), ids[owner]) {
			t.Fatalf("state: %v", m)
		}
	}
	// GET /mcp: JSON-RPC over a socket, one episode per connection.
	mcpSock := dialGateway(t, ctx, hs.URL, "/mcp?task=put-d")
	mcpSock.rt(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"put","arguments":{"key":"w","value":"ws"}}}`)
	if m := mcpSock.rt(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get","arguments":{"key":"w"}}}`); m["id"] != 2.0 || !strings.Contains(asJSON(m["result"]), `\"ws\"`) {
		t.Fatalf("ws /mcp: %v", m)
	}

	// The worker process dies: its session's socket closes with episode_lost.
	remote := ""
	for owner := range socks {
		if !local[owner] {
			remote = owner
		}
	}
	if remote == "" {
		t.Fatal("no session on the worker process")
	}
	proc.Process.Kill()
	proc.Wait()
	_, _, err = socks[remote].c.Read(ctx)
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != fleet.CloseEpisodeLost || !strings.HasPrefix(ce.Reason, "episode_lost") {
		t.Fatalf("the dead worker's socket: %v, want close 4410 episode_lost", err)
	}
	// The others carry on.
	for owner, s := range socks {
		if owner == remote {
			continue
		}
		if m := s.rt(`{"type":"step","data":{"type":"call_tool","tool_name":"get","arguments":{"key":"me"}}}`); !strings.Contains(asJSON(m), ids[owner]) {
			t.Fatalf("after the kill, the session on %s reads %v", owner, m)
		}
	}
	// A session the client closes ends on its worker: its episode is gone.
	for owner, s := range socks {
		if owner == remote {
			continue
		}
		s.c.Write(ctx, websocket.MessageText, []byte(`{"type":"close"}`))
		if _, _, err := s.c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
			t.Fatalf("close: %v", err)
		}
		for {
			code, _ := c.do("GET", "/state?episode_id="+ids[owner], "")
			if code == 404 {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("the closed session's episode %s is still there (%d)", ids[owner], code)
			}
			time.Sleep(20 * time.Millisecond)
		}
		break
	}
}

// A gateway that loses NATS closes its clients' sockets (no hang), and its
// sessions end on the workers once its pings stop: their episodes are
// deleted, as when a client goes.
func TestGatewayGoneEndsWorkerSessions(t *testing.T) {
	url := startServer(t)
	startServeWorker(t, url, miniBundleFile(t))
	gwConn := connect(t, url)
	opts := fleet.GatewayOptions{Timeout: 10 * time.Second, SocketPing: 100 * time.Millisecond}
	gw, err := fleet.NewGateway(gwConn, opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(gw)
	defer hs.Close()
	other, err := fleet.NewGateway(connect(t, url), opts)
	if err != nil {
		t.Fatal(err)
	}
	hs2 := httptest.NewServer(other)
	defer hs2.Close()
	for len(gw.Workers()) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s := dialGateway(t, ctx, hs.URL, "/ws")
	m := s.rt(`{"type":"reset","data":{}}`)
	id, _ := m["data"].(map[string]any)["observation"].(map[string]any)["episode_id"].(string)
	c2 := gatewayClient{t, hs2.URL}
	if code, _ := c2.do("GET", "/state?episode_id="+id, ""); code != 200 || id == "" {
		t.Fatalf("the session's episode %q: %d", id, code)
	}
	gwConn.Close()
	if _, _, err := s.c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Fatalf("the client of a gateway without NATS: %v, want going away", err)
	}
	for {
		if code, _ := c2.do("GET", "/state?episode_id="+id, ""); code == 404 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the session of a gone gateway still holds its episode")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A WebSocket open that does not come from a gateway (no inbox for the
// answers, or a target that is not a path) is refused with 400 and opens
// nothing; a frame for a session that does not exist has no responder.
func TestForgedSocketMessagesAreRefused(t *testing.T) {
	url := startServer(t)
	id := startServeWorker(t, url, miniBundleFile(t))
	nc := connect(t, url)
	for what, h := range map[string]map[string]string{
		"no inbox":      {"Wasmenv-Socket": "open", "Wasmenv-Method": "GET", "Wasmenv-Target": "/ws"},
		"foreign inbox": {"Wasmenv-Socket": "open", "Wasmenv-Method": "GET", "Wasmenv-Target": "/ws", "Wasmenv-Socket-Reply": "wasmenv.jobs.x"},
		"not a path":    {"Wasmenv-Socket": "open", "Wasmenv-Method": "GET", "Wasmenv-Target": "http://evil/ws", "Wasmenv-Socket-Reply": "_INBOX.x"},
		"empty target":  {"Wasmenv-Socket": "open", "Wasmenv-Method": "GET", "Wasmenv-Socket-Reply": "_INBOX.x"},
	} {
		m := nats.NewMsg("wasmenv.serve.w." + id)
		for k, v := range h {
			m.Header.Set(k, v)
		}
		reply, err := nc.RequestMsg(m, 10*time.Second)
		if err != nil || reply.Header.Get("Wasmenv-Status") != "400" || reply.Header.Get("Wasmenv-Socket-Id") != "" {
			t.Errorf("%s: %v %v", what, err, reply)
		}
	}
	m := nats.NewMsg("wasmenv.serve.sock." + id + ".0123456789abcdef")
	m.Header.Set("Wasmenv-Socket", "frame")
	if _, err := nc.RequestMsg(m, 10*time.Second); !errors.Is(err, nats.ErrNoResponders) {
		t.Errorf("a frame for no session: %v", err)
	}
}

// The worker's refusals of a socket reach the client as `wasmenv serve`
// gives them, before any upgrade: 401 without the token, 503 capacity past
// the worker's socket cap.
func TestGatewayRelaysSocketRefusals(t *testing.T) {
	url := startServer(t)
	startServeWorkerWith(t, url, miniBundleFile(t), serve.Options{Token: "s3cret", MaxWebSockets: 1})
	gw, err := fleet.NewGateway(connect(t, url), fleet.GatewayOptions{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(gw)
	defer hs.Close()
	for len(gw.Workers()) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	target := "ws" + strings.TrimPrefix(hs.URL, "http") + "/ws"
	if _, resp, err := websocket.Dial(ctx, target, nil); err == nil || resp == nil || resp.StatusCode != 401 {
		t.Fatalf("without the token: %v %v", err, resp)
	}
	auth := &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer s3cret"}}}
	c, _, err := websocket.Dial(ctx, target, auth)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	if _, resp, err := websocket.Dial(ctx, target, auth); err == nil || resp == nil || resp.StatusCode != 503 {
		t.Fatalf("past the worker's socket cap: %v %v", err, resp)
	}
}
