package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// GET /v1/ws is the episode API over one WebSocket: many requests on one
// connection, on any number of episodes, each answered with exactly the
// status and body its HTTP route gives (socket_frame.go has the frames).
// net/http costs about 30 µs of server CPU per request whatever the handler
// does (reading and parsing the request, its background read goroutine,
// the response's flush, a goroutine woken per request); on a socket a call
// costs one frame read and one frame write (issue 35, docs/BENCHMARKS.md).
//
// Requests on one connection are served one at a time, in order: a client
// that wants calls to run in parallel opens a connection per worker. The
// hot op, call, is served here directly by the same steps as the HTTP
// route (decodeCallReq, use, callHeld); the others go through the HTTP
// routes themselves, so they cannot drift apart.
//
// Episodes created on a connection ("create") belong to it: they are
// deleted when it ends, however it ends. Episodes created elsewhere can be
// used on it and outlive it.

// socketOp is an op of the socket other than call: the HTTP route that
// serves it.
type socketOp struct {
	method, suffix string // the route is /v1/episodes[/{id}]suffix
	episode        bool   // the op names an episode
}

var socketOps = map[string]socketOp{
	"create": {"POST", "", false},
	"get":    {"GET", "", true},
	"delete": {"DELETE", "", true},
	"step":   {"POST", "/step", true},
	"score":  {"POST", "/score", true},
	"diff":   {"GET", "/diff", true},
	"reset":  {"POST", "/reset", true},
}

// socketOpNames lists the ops for an error message.
var socketOpNames = func() string {
	names := []string{"call"}
	for n := range socketOps {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}()

// socketConn is one /v1/ws connection.
type socketConn struct {
	s     *Server
	c     *websocket.Conn
	ctx   context.Context // the server's, with the client's name
	calls *callContext    // the context of its calls, re-armed per call
	// The connection under the socket and the reader frames are read
	// from (socket_cork.go): an answer is held while frames wait.
	cork   *corkConn
	frames *bufio.Reader
	// The request being served and its call's body, reused from frame
	// to frame (one at a time), which spares each an allocation.
	req   socketReq
	cr    callReq
	owned map[string]struct{} // episodes created on this connection
}

func (s *Server) episodeSocket(w http.ResponseWriter, r *http.Request) {
	// readFrame bounds a frame itself: a frame over its limit is answered
	// 413, as HTTP answers a body over the limit, and the connection (with
	// its episodes) stays; the idle timer bounds how long it may stream.
	cw := &corkWriter{ResponseWriter: w}
	c, ok := s.acceptSocket(cw, r, -1)
	if !ok {
		return
	}
	defer s.wsRelease()
	if cw.conn == nil { // the library always hijacks through cw
		c.Close(websocket.StatusInternalError, "internal error")
		return
	}
	sc := &socketConn{s: s, c: c, ctx: withClient(s.ctx, clientFrom(r.Context())), owned: map[string]struct{}{},
		cork: cw.conn, frames: cw.reader}
	sc.calls = newCallContext(sc.ctx)
	defer sc.calls.close()
	defer sc.dropOwned()
	sc.serve()
}

// socketEnvelope is the room a frame has for its id, op and episode: a
// frame holds a body of up to MaxBodyBytes and its envelope.
const socketEnvelope = 4 << 10

// readFrame reads the next frame into in; a frame over the limit is read
// to its end but not kept, and reported by oversized.
func (sc *socketConn) readFrame(in *bytes.Buffer) (oversized bool, err error) {
	_, r, err := sc.c.Reader(context.Background())
	if err != nil {
		return false, err
	}
	limit := sc.s.opts.MaxBodyBytes + socketEnvelope
	in.Reset()
	if _, err := in.ReadFrom(io.LimitReader(r, limit+1)); err != nil || int64(in.Len()) <= limit {
		return false, err
	}
	in.Reset()
	_, err = io.Copy(io.Discard, r)
	return true, err
}

// serve reads and answers frames until the connection ends. Reads and
// writes take no context of their own (a context with a deadline costs
// a timer and an AfterFunc per frame): one timer per connection closes it
// after WSIdleTimeout without a message or with an answer unread, and the
// server's Close closes it.
func (sc *socketConn) serve() {
	s, c := sc.s, sc.c
	stop := context.AfterFunc(s.ctx, func() {
		sc.cork.stopHolding()
		c.Close(websocket.StatusGoingAway, "server shutting down")
	})
	defer stop()
	idle := time.AfterFunc(s.opts.WSIdleTimeout, func() {
		sc.cork.stopHolding()
		c.Close(websocket.StatusPolicyViolation, fmt.Sprintf("%v: no message for %s", errWSIdle, s.opts.WSIdleTimeout))
	})
	defer idle.Stop()
	in := bodyPool.Get().(*bytes.Buffer)
	out := encPool.Get().(*jsonEncoder)
	defer func() {
		putBody(in)
		if out.buf.Cap() <= maxPooledBody {
			encPool.Put(out)
		}
	}()
	for {
		oversized, err := sc.readFrame(in)
		if err != nil || !idle.Stop() {
			// A broken frame, the peer gone, the idle timer or Close: the
			// answers held (if any) go out first, within the idle time.
			sc.cork.flush(s.opts.WSIdleTimeout)
			c.CloseNow()
			return
		}
		if oversized {
			out.buf.Reset()
			answerError(out, nil, errf(http.StatusRequestEntityTooLarge, CodeTooLarge,
				"a frame over the limit of %d bytes (the request body's limit and %d for the rest); not read", s.opts.MaxBodyBytes+socketEnvelope, socketEnvelope))
		} else {
			sc.handleFrame(in.Bytes(), out)
		}
		// The timer runs during the write too: a client that stops
		// reading its answers stalls the write once the socket's buffers
		// are full, and is closed like one that stops sending (Close
		// ends a stalled write after its close handshake gives up).
		idle.Reset(s.opts.WSIdleTimeout)
		// With frames read and waiting, the answer is held, to go out
		// with theirs (socket_cork.go).
		sc.cork.holdNext(sc.frames.Buffered() > 0)
		err = c.Write(context.Background(), websocket.MessageText, out.buf.Bytes())
		sc.cork.holdNext(false)
		if err != nil {
			c.CloseNow()
			return
		}
		// A large frame's or answer's buffer is not kept for the next.
		if out.buf.Cap() > maxPooledBody {
			out = encPool.Get().(*jsonEncoder)
		}
		if in.Cap() > maxPooledBody {
			in = bodyPool.Get().(*bytes.Buffer)
		}
	}
}

// handleFrame answers a frame, one request or a batch, into out.
func (sc *socketConn) handleFrame(raw []byte, out *jsonEncoder) {
	out.buf.Reset()
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || b[0] != '[' {
		sc.handle(b, out, false)
		return
	}
	items, err := splitBatch(b, sc.s.opts.MaxJSONDepth, sc.s.opts.MaxGroup)
	if err != nil {
		answerError(out, nil, err)
		return
	}
	out.buf.WriteByte('[')
	for i, item := range items {
		if i > 0 {
			out.buf.WriteByte(',')
		}
		if out.buf.Len() > sc.s.opts.MaxResponseBytes {
			// The answers are held until the frame is written: past the
			// limit of one response, the rest of the batch is not run.
			var req socketReq
			decodeSocketReq(item, &req, sc.s.opts.MaxJSONDepth, true)
			answerError(out, req.ID, errf(http.StatusRequestEntityTooLarge, CodeTooLarge,
				"not run: the batch's answers before this request passed the limit of %d bytes; send it again in another frame", sc.s.opts.MaxResponseBytes))
			continue
		}
		sc.handle(item, out, true) // splitBatch checked the whole frame
	}
	out.buf.WriteByte(']')
}

// handle appends the answer of one request to out; a panic is answered
// 500 like one of an HTTP route (ServeHTTP). valid says raw is known to be
// valid JSON.
func (sc *socketConn) handle(raw []byte, out *jsonEncoder, valid bool) {
	s := sc.s
	s.stats.requests.Add(1)
	req := &sc.req
	*req = socketReq{}
	start := out.buf.Len()
	defer func() {
		if v := recover(); v != nil {
			out.buf.Truncate(start)
			s.stats.panics.Add(1)
			s.opts.Logger.Error("serve: panic", "path", "/v1/ws", "op", req.Op, "panic", fmt.Sprint(v))
			answerError(out, req.ID, errf(http.StatusInternalServerError, CodeInternal, "internal error"))
		}
	}()
	if err := decodeSocketReq(raw, req, s.opts.MaxJSONDepth, valid); err != nil {
		answerError(out, nil, err)
		return
	}
	if int64(len(req.Body)) > s.opts.MaxBodyBytes {
		answerError(out, req.ID, readBodyError(nil, int64(len(req.Body)), s.opts.MaxBodyBytes))
		return
	}
	if req.Op == "call" {
		if req.Episode == "" {
			answerError(out, req.ID, badRequest("op %q needs \"episode\"", req.Op))
			return
		}
		sc.call(out, req)
		return
	}
	op, ok := socketOps[req.Op]
	if !ok {
		answerError(out, req.ID, badRequest("unknown op %q; the ops are %s", req.Op, socketOpNames))
		return
	}
	if op.episode != (req.Episode != "") {
		if op.episode {
			answerError(out, req.ID, badRequest("op %q needs \"episode\"", req.Op))
		} else {
			answerError(out, req.ID, badRequest("op %q takes no \"episode\"", req.Op))
		}
		return
	}
	sc.viaRoute(out, req, op)
}

// call is the /call route (api.go's call and lockForCall) on a frame.
func (sc *socketConn) call(out *jsonEncoder, req *socketReq) {
	s := sc.s
	cr := &sc.cr
	*cr = callReq{}
	// The body is valid JSON: decodeSocketReq parsed it only so.
	if err := decodeCallReq(req.Body, cr, s.opts.MaxJSONDepth, true); err != nil {
		answerError(out, req.ID, err)
		return
	}
	ctx := sc.calls.start(s.opts.CallTimeout)
	defer sc.calls.finish()
	e, unlock, err := s.use(ctx, req.Episode)
	if err != nil {
		if isBusy(err) && sc.ctx.Err() == nil {
			s.stats.calls.Add(1)
			answerFrame(out, req.ID, http.StatusOK, 0, timeoutResult(busyEpisode))
			return
		}
		answerError(out, req.ID, err)
		return
	}
	defer unlock() // deferred: a panic must not leave the episode locked
	res, err := s.callHeld(ctx, e, cr.Name, cr.Arguments)
	if err != nil {
		answerError(out, req.ID, err)
		return
	}
	answerFrame(out, req.ID, http.StatusOK, 0, res)
}

// viaRoute serves an op by its HTTP route, on a request made from the
// frame, and keeps track of the episodes the connection creates.
func (sc *socketConn) viaRoute(out *jsonEncoder, req *socketReq, op socketOp) {
	path := "/v1/episodes"
	if op.episode {
		if req.Episode == "." || req.Episode == ".." {
			// PathEscape keeps dots, and the mux would redirect the
			// path it makes to a clean one: no episode has such an id.
			answerError(out, req.ID, errNoEpisode(req.Episode))
			return
		}
		path += "/" + url.PathEscape(req.Episode) + op.suffix
	}
	r, err := http.NewRequestWithContext(sc.ctx, op.method, path, bytes.NewReader(req.Body))
	if err != nil {
		answerError(out, req.ID, badRequest("episode %q: %v", req.Episode, err))
		return
	}
	w := &bufferWriter{h: http.Header{}}
	sc.s.mux.ServeHTTP(w, r)
	w.WriteHeader(http.StatusOK) // a route that wrote nothing: what net/http would send
	retryAfter, _ := strconv.Atoi(w.h.Get("Retry-After"))
	answerRaw(out, req.ID, w.code, retryAfter, w.body.Bytes())
	switch {
	case req.Op == "create" && w.code == http.StatusCreated:
		var cr struct {
			Episodes []string `json:"episodes"`
		}
		if json.Unmarshal(w.body.Bytes(), &cr) == nil {
			for _, id := range cr.Episodes {
				sc.owned[id] = struct{}{}
			}
		}
	case req.Op == "delete" && w.code == http.StatusOK:
		delete(sc.owned, req.Episode)
	}
}

// dropOwned deletes the episodes created on the connection, as DELETE
// would: one busy past the call timeout is unregistered now and closed
// when its call ends.
func (sc *socketConn) dropOwned() {
	s := sc.s
	for id := range sc.owned {
		e := s.table.get(id)
		if e == nil || !s.table.remove(id) {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.opts.CallTimeout)
		if !e.close(ctx) {
			go e.close(context.Background())
		}
		cancel()
		s.stats.deleted.Add(1)
	}
	clear(sc.owned)
}
