package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/serve"
)

// Calls queued on one connection past the server's batch limit (1,024)
// go out in several batch frames, each within it: every call is answered
// (one frame of them all is answered 400 as a whole).
func TestSocketBatchOverLimit(t *testing.T) {
	srv, err := serve.New([]*runtime.Env{miniEnv(t)}, serve.Options{IdleTimeout: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	resp, err := http.Post(hs.URL+"/v1/episodes", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	var cr struct{ Episodes []string }
	json.NewDecoder(resp.Body).Decode(&cr)
	resp.Body.Close()
	if len(cr.Episodes) != 1 {
		t.Fatalf("create: HTTP %d", resp.StatusCode)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(hs.URL, "http")+"/v1/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	c.SetReadLimit(64 << 20)
	// The writer starts once every call is queued: one batch of them all
	// unless it splits them.
	sc := &socketConn{c: c, batch: true, wake: make(chan struct{}, 1)}
	go sc.read()
	defer closeSockets([]*socketConn{sc})
	const calls = maxBatch + 300
	frame := fmt.Appendf(nil, `{"op":"get","episode":%q}`, cr.Episodes[0])
	answers := make(chan []byte, calls)
	var wg sync.WaitGroup
	for range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := sc.roundTrip(ctx, frame, make(chan []byte, 1))
			if err != nil {
				b = []byte(err.Error())
			}
			answers <- b
		}()
	}
	for queued := 0; queued < calls; time.Sleep(time.Millisecond) {
		sc.mu.Lock()
		queued = len(sc.queue)
		sc.mu.Unlock()
	}
	go sc.write()
	wg.Wait()
	close(answers)
	for b := range answers {
		if !bytes.Contains(b, []byte(`"status":200`)) {
			t.Fatalf("answer %.300s", b)
		}
	}
	if n := sc.frames.Load(); n < 2 {
		t.Fatalf("%d frames for %d calls", n, calls)
	}
}
