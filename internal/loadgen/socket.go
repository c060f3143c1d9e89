package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/coder/websocket"
)

// socketConn is one GET /v1/ws connection shared by several workers. The
// server answers a connection's frames in order, so answers are matched
// to their callers by a FIFO: a worker appends its channel and writes its
// frame under one lock, the reader hands each answer to the oldest waiter.
type socketConn struct {
	c       *websocket.Conn
	mu      sync.Mutex
	waiting []chan []byte // oldest first
	err     error         // set once the reader stops
}

// dialSockets opens n connections to the server at base (http://...).
func dialSockets(ctx context.Context, base, token string, n int) ([]*socketConn, error) {
	o := &websocket.DialOptions{}
	if token != "" {
		o.HTTPHeader = http.Header{"Authorization": {"Bearer " + token}}
	}
	url := "ws" + strings.TrimPrefix(base, "http") + "/v1/ws"
	conns := make([]*socketConn, 0, n)
	for range n {
		c, _, err := websocket.Dial(ctx, url, o)
		if err != nil {
			closeSockets(conns)
			return nil, fmt.Errorf("dial %s: %w", url, err)
		}
		c.SetReadLimit(64 << 20)
		sc := &socketConn{c: c}
		go sc.read()
		conns = append(conns, sc)
	}
	return conns, nil
}

func closeSockets(conns []*socketConn) {
	for _, sc := range conns {
		sc.c.Close(websocket.StatusNormalClosure, "")
	}
}

// read hands answers to their waiters until the connection ends, then
// fails every waiter left.
func (sc *socketConn) read() {
	for {
		_, b, err := sc.c.Read(context.Background())
		sc.mu.Lock()
		if err != nil {
			sc.err = err
			for _, w := range sc.waiting {
				close(w)
			}
			sc.waiting = nil
			sc.mu.Unlock()
			return
		}
		if len(sc.waiting) == 0 {
			sc.mu.Unlock()
			continue // an answer nobody asked for: the server's bug, seen as a missing answer below
		}
		w := sc.waiting[0]
		sc.waiting = sc.waiting[1:]
		sc.mu.Unlock()
		w <- b
	}
}

var errSocketClosed = errors.New("the connection closed before the answer")

// roundTrip sends frame and waits for its answer on reply (buffered, one
// per worker).
func (sc *socketConn) roundTrip(ctx context.Context, frame []byte, reply chan []byte) ([]byte, error) {
	sc.mu.Lock()
	if sc.err != nil {
		sc.mu.Unlock()
		return nil, sc.err
	}
	sc.waiting = append(sc.waiting, reply)
	err := sc.c.Write(ctx, websocket.MessageText, frame)
	sc.mu.Unlock()
	if err != nil {
		return nil, err
	}
	b, ok := <-reply
	if !ok {
		return nil, errSocketClosed
	}
	return b, nil
}

// socketCallOK reports an answer frame of a call that succeeded: status
// 200 and a result without is_error.
func socketCallOK(b []byte) bool {
	return bytes.Contains(b, []byte(`"status":200,`)) && bytes.Contains(b, []byte(`"is_error":false`))
}
