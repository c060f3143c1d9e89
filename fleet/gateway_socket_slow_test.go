package fleet_test

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/serve"
)

// A client that sends requests through the gateway but never reads the
// answers does not hold its session, and so its worker's WebSocket slot
// (MaxWebSockets 1 here) and episode, for ever: once the socket's buffers
// are full the gateway's write to the client stalls, and the gateway's
// Timeout (the option that bounds every forwarded exchange) ends it; the
// worker's session ends with it and the slot takes the next session.
//
// The client sends 200 frames of 384 KiB, whose answers (75 MiB) fill the
// loopback socket's buffers (at most 36 MiB here) but stay under the
// worker's queue (256 frames) and the gateway's (512), and then falls
// silent: neither the queue's cut-off nor the gateway's pings (10m) nor
// the worker's idle timeout (10m) ends the session within the test's
// minute, only the bounded write. The test makes no request that must be
// answered in time: a stall of the test itself only ends the session
// sooner, and the next session is retried until the slot is free.
func TestGatewaySocketSlowReaderClosed(t *testing.T) {
	url := startServer(t)
	startServeWorkerWith(t, url, miniBundleFile(t), serve.Options{IdleTimeout: -1, WSIdleTimeout: 10 * time.Minute, MaxWebSockets: 1, MaxBodyBytes: 512 << 10})
	gw, err := fleet.NewGateway(connect(t, url), fleet.GatewayOptions{Timeout: 5 * time.Second, SocketPing: 10 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	hs := httptest.NewServer(gw)
	defer hs.Close()
	for len(gw.Workers()) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	slow := dialGateway(t, ctx, hs.URL, "/ws")
	// Each answer quotes the message's type: about 384 KiB, never read.
	frame := []byte(`{"type":"` + strings.Repeat("x", 384<<10) + `"}`)
	go func() {
		for range 200 {
			if slow.c.Write(ctx, websocket.MessageText, frame) != nil {
				return
			}
		}
	}()
	for {
		if ctx.Err() != nil {
			t.Fatal("a client that never reads still holds the worker's only WebSocket slot")
		}
		dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
		c, _, err := websocket.Dial(dctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/ws", nil)
		if err == nil {
			next := &wsConn{t, c, dctx}
			m := next.rt(`{"type":"reset","data":{}}`)
			c.CloseNow()
			dcancel()
			if m["type"] != "observation" {
				t.Fatalf("the next session's reset: %v", m)
			}
			return
		}
		dcancel()
		time.Sleep(100 * time.Millisecond)
	}
}

// A worker whose handler runs a long call keeps the session while the
// gateway pings it: the worker's write of the next frame to its handler
// waits for the call to end, past the three ping intervals after which a
// silent gateway is taken for gone, yet the pings came in meanwhile. Each
// round has a call that runs until its bundle's call_timeout (3s, 6
// pings) with a frame queued behind it; before the fix, each round ended
// the session as "the gateway is gone" with a chance of one half or more
// (six rounds: a pass by luck under 2%). The silence (1.5s) is long
// enough that a busy machine does not delay a ping past it.
func TestWorkerSocketLongCallKeepsSession(t *testing.T) {
	url := startServer(t)
	// mini, its call_timeout raised from 500ms to 3s.
	dir := filepath.Join(t.TempDir(), "mini")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("..", "testdata", "envs", "mini"))); err != nil {
		t.Fatal(err)
	}
	yaml, err := os.ReadFile(filepath.Join(dir, "env.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	slow := bytes.Replace(yaml, []byte("call_timeout: 500ms"), []byte("call_timeout: 3s"), 1)
	if bytes.Equal(slow, yaml) {
		t.Fatal("mini's env.yaml has no call_timeout of 500ms to raise")
	}
	if err := os.WriteFile(filepath.Join(dir, "env.yaml"), slow, 0o644); err != nil {
		t.Fatal(err)
	}
	bundle := filepath.Join(t.TempDir(), "slow.wasm")
	if _, err := compiler.BuildFile(context.Background(), dir, bundle, compiler.Options{}); err != nil {
		t.Fatal(err)
	}
	startServeWorkerWith(t, url, bundle, serve.Options{CallTimeout: 30 * time.Second})
	gw, err := fleet.NewGateway(connect(t, url), fleet.GatewayOptions{Timeout: 30 * time.Second, SocketPing: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	hs := httptest.NewServer(gw)
	defer hs.Close()
	for len(gw.Workers()) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s := dialGateway(t, ctx, hs.URL, "/ws")
	if m := s.rt(`{"type":"reset","data":{}}`); m["type"] != "observation" {
		t.Fatalf("reset: %v", m)
	}
	for round := range 6 {
		for _, msg := range []string{`{"type":"step","data":{"type":"call_tool","tool_name":"abuse","arguments":{"mode":"loop"}}}`, `{"type":"state"}`} {
			if err := s.c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		for range 2 {
			if _, _, err := s.c.Read(ctx); err != nil {
				t.Fatalf("round %d: the session of a live gateway ended during a long call: %v", round, err)
			}
		}
	}
}
