package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

func (o *Options) hygieneDefaults() {
	if o.ReadTimeout <= 0 {
		o.ReadTimeout = 30 * time.Second
	}
	if o.ReadHeaderTimeout <= 0 {
		o.ReadHeaderTimeout = 10 * time.Second
	}
	if o.WSIdleTimeout <= 0 {
		o.WSIdleTimeout = 5 * time.Minute
	}
	if o.MaxWebSockets <= 0 {
		o.MaxWebSockets = 256
	}
}

// HTTPServer is an http.Server for s with the connection limits of its
// Options: a client that sends its headers or body slowly, or keeps an idle
// connection, does not hold a goroutine and a socket forever. WebSocket
// sessions, hijacked from it, have their own idle timeout.
func (s *Server) HTTPServer() *http.Server {
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.opts.ReadHeaderTimeout,
		ReadTimeout:       s.opts.ReadTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.opts.Logger.Handler(), slog.LevelWarn),
	}
}

// acceptSocket takes one of the MaxWebSockets slots and upgrades the
// request, its messages bounded by readLimit (-1: none). Unless ok, it has
// answered the request (503 with every slot taken, or Accept's HTTP error)
// and holds no slot; otherwise the caller gives the slot back with
// wsRelease when the session ends.
func (s *Server) acceptSocket(w http.ResponseWriter, r *http.Request, readLimit int64) (c *websocket.Conn, ok bool) {
	if !s.wsAcquire() {
		writeError(w, errf(http.StatusServiceUnavailable, CodeCapacity, "the server holds its maximum of %d WebSocket sessions; retry later", s.opts.MaxWebSockets))
		return nil, false
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		s.wsRelease()
		return nil, false // Accept has written the HTTP error
	}
	c.SetReadLimit(readLimit)
	return c, true
}

func (s *Server) wsAcquire() bool {
	select {
	case s.ws <- struct{}{}:
		return true
	default:
		s.stats.rejected.Add(1)
		return false
	}
}

func (s *Server) wsRelease() { <-s.ws }

var errWSIdle = errors.New("idle timeout")

// wsWrite writes an answer, waiting at most the idle timeout: a client
// that stops reading stalls the write once the socket's buffers are full,
// and is closed like one that stops sending (a write past its context's
// end closes the connection).
func (s *Server) wsWrite(ctx context.Context, c *websocket.Conn, b []byte) error {
	wctx, cancel := context.WithTimeout(ctx, s.opts.WSIdleTimeout)
	defer cancel()
	return c.Write(wctx, websocket.MessageText, b)
}

// wsRead reads the next message, waiting at most the idle timeout.
func (s *Server) wsRead(ctx context.Context, c *websocket.Conn) (websocket.MessageType, []byte, error) {
	rctx, cancel := context.WithTimeout(ctx, s.opts.WSIdleTimeout)
	defer cancel()
	t, data, err := c.Read(rctx)
	if err != nil && ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
		return t, data, fmt.Errorf("%w: no message for %s", errWSIdle, s.opts.WSIdleTimeout)
	}
	return t, data, err
}
