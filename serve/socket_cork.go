package serve

import (
	"bufio"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Answers of frames that arrived together go out together. A write on
// loopback TCP is the largest part of the transport's cost per call (the
// sender's system time includes the receiver's delivery: issue 35,
// docs/BENCHMARKS.md), and a client that multiplexes many episodes on one
// /v1/ws connection sends frames faster than they are answered, so one
// read of the socket often holds several frames. While frames already read
// wait to be served, the answer before them is held in the connection and
// goes out with theirs: in the write that precedes the next read of the
// socket (the server has nothing left to serve then), or in the next write
// that is not held. Frames are still served one at a time and in order;
// what changes is that an answer may wait, at most, for the frames that
// arrived with it to be served, as the answers of a batch frame wait for
// the whole batch.

// maxHeldAnswers bounds the bytes held: past it the answers go out.
const maxHeldAnswers = 64 << 10

// corkConn is a /v1/ws connection that can hold answers. The socket's
// reads and writes go through it (the WebSocket library reads and writes
// it like any net.Conn); only the serve loop asks for a write to be held.
type corkConn struct {
	net.Conn
	mu      sync.Mutex
	held    []byte // answers written but not sent, in order
	holdOne bool   // hold the next write (the serve loop's answer)
	// closing: hold nothing more, the connection is being closed. Set
	// without the lock, which a stalled write may hold until the close.
	closing atomic.Bool
}

// holdNext asks for the next write to be held (or not).
func (c *corkConn) holdNext(hold bool) {
	c.mu.Lock()
	c.holdOne = hold && !c.closing.Load()
	c.mu.Unlock()
}

// stopHolding makes every later write go out at once, the answers held
// first: called before the connection is closed from another goroutine,
// so that its close frame is never held. It takes no lock: a write
// stalled by a peer that does not read holds it until the close.
func (c *corkConn) stopHolding() { c.closing.Store(true) }

// Write holds p when asked to, else sends what is held and p in one
// write. It holds the lock while it writes: writes on one connection are
// serialized anyway (the WebSocket library writes a frame at a time), and
// a write stalled by a peer that does not read ends when the connection
// is closed (the idle timer, Close).
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	hold := c.holdOne && !c.closing.Load()
	c.holdOne = false
	if hold && len(c.held)+len(p) <= maxHeldAnswers {
		c.held = append(c.held, p...)
		return len(p), nil
	}
	if len(c.held) == 0 {
		return c.Conn.Write(p)
	}
	held := len(c.held)
	c.held = append(c.held, p...)
	n, err := c.sendHeld()
	return max(n-held, 0), err
}

// Read sends what is held first: the server is about to wait for the
// client, which may be waiting for those answers.
func (c *corkConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.held) > 0 {
		if _, err := c.sendHeld(); err != nil {
			c.mu.Unlock()
			return 0, err
		}
	}
	c.mu.Unlock()
	return c.Conn.Read(p)
}

// flush sends what is held, waiting at most d for a peer that does not
// read: the last answers when the serve loop ends for another reason
// than a read of the socket.
func (c *corkConn) flush(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.held) == 0 {
		return
	}
	if d <= 0 {
		d = 5 * time.Second // never wait without a bound
	}
	_ = c.Conn.SetWriteDeadline(time.Now().Add(d))
	_, _ = c.sendHeld()
}

// sendHeld writes the held bytes; c.mu is held.
func (c *corkConn) sendHeld() (int, error) {
	n, err := c.Conn.Write(c.held)
	if cap(c.held) > maxHeldAnswers {
		c.held = nil // a large buffer is not kept
	} else {
		c.held = c.held[:0]
	}
	return n, err
}

// corkWriter hands the WebSocket library a corkConn when it hijacks the
// request's connection, and keeps the reader the library reads frames
// from, whose Buffered tells whether frames wait to be served.
type corkWriter struct {
	http.ResponseWriter
	conn   *corkConn
	reader *bufio.Reader
}

func (w *corkWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.conn = &corkConn{Conn: conn}
	// net/http's writer writes to the connection itself, and holds
	// nothing: the 101 answer was flushed before the hijack. The reader
	// keeps what the server read past the request; the library reads the
	// rest through the corkConn.
	brw.Writer.Reset(w.conn)
	w.reader = brw.Reader
	return w.conn, brw, nil
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *corkWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
