package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/wasmenv/wasmenv/runtime"
)

// countingListener counts the writes on the connections it accepts: a
// write is a write syscall, the transport's cost per answer.
type countingListener struct {
	net.Listener
	writes atomic.Int64
}

func (l *countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countingConn{Conn: c, writes: &l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// heldConn is a client connection whose writes can be held and sent at
// once: the frames of a pipelining client arriving in one read.
type heldConn struct {
	net.Conn
	mu   sync.Mutex
	hold bool
	buf  []byte
}

func (c *heldConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hold {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

func (c *heldConn) send() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hold = false
	_, err := c.Conn.Write(c.buf)
	c.buf = nil
	return err
}

// Frames that arrive together are answered together: a client that
// pipelines 64 calls on one connection gets their 64 answers, in order and
// each as the HTTP route answers it, in a few writes rather than one write
// per answer (issue 35: the write syscall is the largest part of the
// transport's cost per call).
func TestSocketPipelinedAnswersShareWrites(t *testing.T) {
	srv, err := New([]*runtime.Env{miniEnv(t)}, Options{IdleTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewUnstartedServer(srv)
	ln := &countingListener{Listener: hs.Listener}
	hs.Listener = ln
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		srv.Close()
	})
	ts := &testServer{t: t, srv: srv, url: hs.URL}
	ep := ts.create(`{}`)[0]
	_, want := ts.raw(context.Background(), "POST", "/v1/episodes/"+ep+"/call", `{"name":"get","arguments":{"key":"a"}}`)

	var client *heldConn
	dial := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		client = &heldConn{Conn: c}
		return client, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/v1/ws", &websocket.DialOptions{HTTPClient: &http.Client{Transport: dial}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()

	const n = 64
	client.mu.Lock()
	client.hold = true
	client.mu.Unlock()
	for i := range n {
		frame := fmt.Sprintf(`{"id":%d,"op":"call","episode":%q,"body":{"name":"get","arguments":{"key":"a"}}}`, i, ep)
		if err := c.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			t.Fatal(err)
		}
	}
	before := ln.writes.Load()
	if err := client.send(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		var a socketAnswer
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("answer %d: %v: %s", i, err, b)
		}
		if string(a.ID) != fmt.Sprint(i) || a.Status != http.StatusOK || string(a.Body) != strings.TrimRight(string(want), "\n") {
			t.Fatalf("answer %d: %s, want id %d, status 200, body %s", i, b, i, want)
		}
	}
	if writes := ln.writes.Load() - before; writes > n/4 {
		t.Fatalf("%d answers took %d writes; want at most %d (answers of frames read together share a write)", n, writes, n/4)
	}
}
