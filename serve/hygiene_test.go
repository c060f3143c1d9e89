package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wasmenv/wasmenv/runtime"
)

// realServer serves s through s.HTTPServer() on 127.0.0.1 and returns its
// address.
func realServer(t *testing.T, o Options) (*Server, string) {
	t.Helper()
	srv, err := New([]*runtime.Env{miniEnv(t)}, o)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer()
	go hs.Serve(ln)
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	return srv, ln.Addr().String()
}

// Issue 13 item 3: a request body sent slowly used to keep its connection
// open forever (no ReadTimeout); WebSockets had no idle timeout and no cap.
func TestServeHygiene(t *testing.T) {
	_, addr := realServer(t, Options{ReadTimeout: 300 * time.Millisecond, WSIdleTimeout: time.Second, MaxWebSockets: 2})

	t.Run("slow body", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "POST /v1/episodes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		b, err := io.ReadAll(c) // the server answers or hangs up; it must not wait forever
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("a body stalled after 1 byte still holds its connection after 10 s (read %q)", b)
		}
	})

	t.Run("websocket idle", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		_, _, err = c.Read(ctx)
		if err == nil || ctx.Err() != nil {
			t.Fatalf("an idle WebSocket is still open after 10 s: %v", err)
		}
	})

	t.Run("websocket busy", func(t *testing.T) {
		// A socket in use outlives both the read timeout and the idle timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		for i := range 5 {
			time.Sleep(400 * time.Millisecond)
			if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"state"}`)); err != nil {
				t.Fatalf("message %d: %v", i, err)
			}
			if _, _, err := c.Read(ctx); err != nil {
				t.Fatalf("answer %d: %v", i, err)
			}
		}
	})

	t.Run("websocket cap", func(t *testing.T) {
		_, addr := realServer(t, Options{MaxWebSockets: 2})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for i := range 2 {
			c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
			if err != nil {
				t.Fatalf("socket %d: %v", i, err)
			}
			defer c.CloseNow()
		}
		_, resp, err := websocket.Dial(ctx, "ws://"+addr+"/ws", nil)
		if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("a third socket over the cap of 2: %v %v", resp, err)
		}
	})
}

// Issue 13 item 3: a call that runs out of time reaches the client one way,
// HTTP 200 with outcome "timeout" (an environment failure), whether the
// tool ran past its limit, the server's call timeout cancelled it, or the
// call waited too long for its episode; never a 503, never an agent error.
func TestCallTimeoutIsOneEnvironmentOutcome(t *testing.T) {
	ts := newTestServer(t, Options{CallTimeout: 300 * time.Millisecond})
	id := ts.create(`{}`)[0]
	type result struct {
		code int
		m    map[string]any
	}
	results := make(chan result, 2)
	for _, path := range []string{"/call", "/step"} {
		body := `{"name":"abuse","arguments":{"mode":"loop"}}`
		if path == "/step" {
			body = `{"action":` + body + `}`
		}
		go func() {
			code, m := ts.do("POST", "/v1/episodes/"+id+path, body)
			results <- result{code, m}
		}()
	}
	for range 2 {
		r := <-results
		outcome, isErr := r.m["outcome"], r.m["is_error"]
		if info, ok := r.m["info"].(map[string]any); ok {
			outcome, isErr = info["outcome"], info["is_error"]
		}
		if r.code != 200 || outcome != string(runtime.OutcomeTimeout) || isErr != true {
			t.Errorf("HTTP %d %v", r.code, r.m)
		}
	}
	if !runtime.OutcomeTimeout.EnvFault() {
		t.Fatal("timeout is not an environment fault")
	}
}
