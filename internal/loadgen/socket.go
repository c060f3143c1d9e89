package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	goruntime "runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
)

// socketConn is one GET /v1/ws connection shared by several workers. The
// server answers a connection's frames in order, so answers are matched
// to their callers by a FIFO of the frames written, each with the channels
// of its callers. Without batching a worker writes its own frame; with
// it, workers queue their frames and a writer sends all the frames queued
// at the moment as one batch frame (a JSON array of them).
type socketConn struct {
	c        *websocket.Conn
	batch    bool
	mu       sync.Mutex
	inflight [][]chan []byte // frames written, oldest first
	queue    [][]byte        // batch: frames not written yet
	waiters  []chan []byte   // batch: their callers
	wake     chan struct{}   // batch: the writer has work
	closed   bool
	err      error        // set once the reader stops
	frames   atomic.Int64 // frames written
}

// dialSockets opens n connections to the server at base (http://...).
func dialSockets(ctx context.Context, base, token string, n int, batch bool) ([]*socketConn, error) {
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
		sc := &socketConn{c: c, batch: batch, wake: make(chan struct{}, 1)}
		go sc.read()
		if batch {
			go sc.write()
		}
		conns = append(conns, sc)
	}
	return conns, nil
}

func closeSockets(conns []*socketConn) {
	for _, sc := range conns {
		sc.mu.Lock()
		sc.closed = true
		close(sc.wake)
		sc.mu.Unlock()
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
			for _, ws := range append(sc.inflight, sc.waiters) {
				for _, w := range ws {
					close(w)
				}
			}
			sc.inflight, sc.queue, sc.waiters = nil, nil, nil
			sc.mu.Unlock()
			return
		}
		if len(sc.inflight) == 0 {
			sc.mu.Unlock()
			continue // an answer nobody asked for: the server's bug, seen as a missing answer below
		}
		ws := sc.inflight[0]
		sc.inflight = sc.inflight[1:]
		sc.mu.Unlock()
		if len(ws) == 1 {
			ws[0] <- b
			continue
		}
		var answers []json.RawMessage
		json.Unmarshal(b, &answers)
		for i, w := range ws {
			if i < len(answers) {
				w <- answers[i]
			} else {
				w <- b // not the batch's answer: the caller reports it
			}
		}
	}
}

// write sends the queued frames, all those waiting at the moment as one
// batch frame, until the connection closes.
func (sc *socketConn) write() {
	var frame []byte
	for range sc.wake {
		// Let the workers that an answer frame just woke queue their
		// next calls first: bigger batches, fewer frames.
		goruntime.Gosched()
		sc.mu.Lock()
		// At most maxBatch frames: the server answers a larger batch 400
		// whole. The rest stays queued, and the writer woken for it.
		n := min(len(sc.queue), maxBatch)
		q, ws := sc.queue[:n:n], sc.waiters[:n:n]
		sc.queue, sc.waiters = sc.queue[n:], sc.waiters[n:]
		if len(sc.queue) > 0 && !sc.closed {
			select {
			case sc.wake <- struct{}{}:
			default:
			}
		}
		if len(q) == 0 || sc.err != nil {
			sc.mu.Unlock()
			continue
		}
		sc.inflight = append(sc.inflight, ws)
		sc.mu.Unlock()
		frame = frame[:0]
		if len(q) == 1 {
			frame = append(frame, q[0]...)
		} else {
			frame = append(frame, '[')
			for i, f := range q {
				if i > 0 {
					frame = append(frame, ',')
				}
				frame = append(frame, f...)
			}
			frame = append(frame, ']')
		}
		sc.frames.Add(1)
		if err := sc.c.Write(context.Background(), websocket.MessageText, frame); err != nil {
			sc.c.CloseNow() // the reader fails the waiters
		}
	}
}

// maxBatch is the most requests of a batch frame: the server's default
// MaxGroup (serve.Options), which `wasmenv serve` does not change.
const maxBatch = 1024

var errSocketClosed = errors.New("the connection closed before the answer")

// roundTrip sends frame and waits for its answer on reply (buffered, one
// per worker).
func (sc *socketConn) roundTrip(ctx context.Context, frame []byte, reply chan []byte) ([]byte, error) {
	sc.mu.Lock()
	if sc.err != nil {
		sc.mu.Unlock()
		return nil, sc.err
	}
	if sc.batch {
		if sc.closed {
			sc.mu.Unlock()
			return nil, errSocketClosed
		}
		sc.queue = append(sc.queue, frame)
		sc.waiters = append(sc.waiters, reply)
		select {
		case sc.wake <- struct{}{}:
		default:
		}
		sc.mu.Unlock()
	} else {
		sc.inflight = append(sc.inflight, []chan []byte{reply})
		sc.frames.Add(1)
		err := sc.c.Write(ctx, websocket.MessageText, frame)
		sc.mu.Unlock()
		if err != nil {
			return nil, err
		}
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
