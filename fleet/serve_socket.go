package fleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"
)

// WebSockets through a gateway (GET /ws, GET /mcp). The gateway accepts
// the client's socket only after the worker has opened its own: the
// worker dials its handler over an in-memory connection (memListener),
// exactly as a client would dial `wasmenv serve`, so the session is
// serve's own, with its limits, quotas and episode. Then frames travel as
// NATS messages:
//
//	gateway → worker  request on wasmenv.serve.sock.<worker>.<session>: a frame, a ping, a close
//	worker → gateway  messages on the gateway's inbox for the session: a frame, a close
//
// Each client frame and each ping is a request, answered when the worker
// has queued it: a worker that is gone (no responders) or wedged (no answer
// in time) closes the client's socket with CloseEpisodeLost at once.
const (
	serveSock = "wasmenv.serve.sock." // + worker id + "." + session id

	hdrSocket      = "Wasmenv-Socket"       // open | frame | ping | close
	hdrSocketID    = "Wasmenv-Socket-Id"    // the worker's session, in the open's 101 answer
	hdrSocketReply = "Wasmenv-Socket-Reply" // open: the gateway's inbox for the session
	hdrSocketPing  = "Wasmenv-Socket-Ping"  // open: ms between the gateway's pings
	hdrSocketType  = "Wasmenv-Socket-Type"  // frame: binary, else text
	hdrCloseCode   = "Wasmenv-Close-Code"   // close: the WebSocket status code
	hdrSubprotocol = "Wasmenv-Subprotocol"  // open's 101 answer: the subprotocol chosen

	// CloseEpisodeLost closes a client's socket whose worker is gone; the
	// reason starts with "episode_lost".
	CloseEpisodeLost websocket.StatusCode = 4410

	// socketQueue bounds the frames a session holds for its handler; a
	// client that sends more without reading the answers is cut off.
	socketQueue = 256
)

// sockets is a serving worker's WebSocket sessions.
type sockets struct {
	w   *ServeWorker
	ln  *memListener
	srv *http.Server

	mu   sync.Mutex
	open map[string]*workerSocket
	// pending counts the sessions that have not answered yet (load).
	pending atomic.Int64
}

func newSockets(w *ServeWorker) *sockets {
	s := &sockets{w: w, ln: newMemListener(), open: map[string]*workerSocket{}}
	s.srv = &http.Server{Handler: w.Handler, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(s.ln)
	return s
}

// close ends every session (their clients hear episode_lost: the
// sessions' episodes go with the worker) and the server.
func (s *sockets) close() {
	s.mu.Lock()
	open := s.open
	s.open = map[string]*workerSocket{}
	s.mu.Unlock()
	for _, ws := range open {
		ws.end(CloseEpisodeLost, "episode_lost: the worker is shutting down; create a new episode")
	}
	s.srv.Close()
	s.ln.Close()
}

// workerSocket is one session: the socket to the handler and the relay.
type workerSocket struct {
	s     *sockets
	id    string
	c     *websocket.Conn
	sub   *nats.Subscription
	reply string // the gateway's inbox
	in    chan *nats.Msg
	seen  chan struct{} // a message from the gateway came in
	once  sync.Once
	done  chan struct{}
	// answered: the session has sent an answer (or ended), and counts
	// in its worker's load by its episode, not as pending.
	answered atomic.Bool
}

func (ws *workerSocket) settle() {
	if ws.answered.CompareAndSwap(false, true) {
		ws.s.pending.Add(-1)
	}
}

// openSocket dials the handler for a gateway's open request and answers
// 101 with the session's id, or the handler's refusal as an HTTP answer.
func (s *sockets) openSocket(m *nats.Msg) {
	w := s.w
	reply, target := m.Header.Get(hdrSocketReply), m.Header.Get(hdrTarget)
	if !strings.HasPrefix(reply, "_INBOX.") || len(target) == 0 || target[0] != '/' {
		w.reply(m, http.StatusBadRequest, nil, errBody("bad_request", "not a forwarded WebSocket open"))
		return
	}
	h := http.Header{}
	var protos []string
	for k, vs := range m.Header {
		switch ck := http.CanonicalHeaderKey(k); {
		case ck == "Sec-Websocket-Protocol":
			for _, v := range vs {
				for _, p := range strings.Split(v, ",") {
					protos = append(protos, strings.TrimSpace(p))
				}
			}
		case strings.HasPrefix(ck, "Wasmenv-") || strings.HasPrefix(ck, "Sec-Websocket-") || ck == "Origin" || ck == "Host" || hopHeaders[ck]:
		default:
			h[ck] = vs
		}
	}
	if !unseal(w.FleetKey, m.Header, h) {
		w.reply(m, http.StatusBadRequest, nil, errBody("bad_request", "sealed credentials that do not open with this worker's fleet key"))
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://worker"+target, &websocket.DialOptions{HTTPHeader: h, Subprotocols: protos,
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: s.ln.dial}}})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			var body []byte
			if resp.Body != nil {
				body, _ = io.ReadAll(resp.Body)
			}
			w.reply(m, resp.StatusCode, resp.Header, body)
			return
		}
		w.reply(m, http.StatusBadGateway, nil, errBody("internal", "the worker could not open the socket: "+err.Error()))
		return
	}
	c.SetReadLimit(int64(w.NC.MaxPayload()))
	var b [8]byte
	rand.Read(b[:])
	ws := &workerSocket{s: s, id: hex.EncodeToString(b[:]), c: c, reply: reply,
		in: make(chan *nats.Msg, socketQueue), seen: make(chan struct{}, 1), done: make(chan struct{})}
	ws.sub, err = w.NC.Subscribe(serveSock+w.ID+"."+ws.id, ws.receive)
	if err != nil {
		c.CloseNow()
		w.reply(m, http.StatusServiceUnavailable, nil, errBody("unavailable", "subscribe: "+err.Error()))
		return
	}
	s.mu.Lock()
	s.open[ws.id] = ws
	s.mu.Unlock()
	s.pending.Add(1)
	ping := 5 * time.Second
	if ms, err := strconv.Atoi(m.Header.Get(hdrSocketPing)); err == nil && ms > 0 {
		ping = time.Duration(ms) * time.Millisecond
	}
	go ws.toHandler(3 * ping)
	go ws.toGateway()
	out := nats.NewMsg(m.Reply)
	out.Header.Set(hdrStatus, strconv.Itoa(http.StatusSwitchingProtocols))
	out.Header.Set(hdrSocketID, ws.id)
	out.Header.Set(hdrWorker, w.ID)
	out.Header.Set(hdrEpisodes, strconv.Itoa(w.load()))
	if p := c.Subprotocol(); p != "" {
		out.Header.Set(hdrSubprotocol, p)
	}
	signAnswer(w.FleetKey, "answer", out)
	m.RespondMsg(out)
}

// receive takes the gateway's messages in order: it queues frames for the
// handler and answers at once, so that a ping is answered while the
// handler runs a long call.
func (ws *workerSocket) receive(m *nats.Msg) {
	select {
	case ws.seen <- struct{}{}:
	default:
	}
	switch m.Header.Get(hdrSocket) {
	case "frame":
		select {
		case ws.in <- m:
		default:
			m.Respond(nil)
			ws.end(websocket.StatusPolicyViolation, "more than "+strconv.Itoa(socketQueue)+" messages waiting for their answers")
			return
		}
	case "close":
		select {
		case ws.in <- m: // after the frames before it
		default:
			ws.end(websocket.StatusNormalClosure, "")
		}
	}
	m.Respond(nil)
}

// toHandler writes the queued frames to the handler's socket, and ends the
// session when the gateway has been silent for three ping intervals (it is
// gone: nobody reads the answers any more). A write waits while the
// handler runs a call (up to serve's CallTimeout, and serve's own write
// waits at most its idle timeout), longer than the silence maybe: the
// timer has then fired though pings came in meanwhile, so a fired timer
// counts only when no message is waiting in seen.
func (ws *workerSocket) toHandler(silence time.Duration) {
	t := time.NewTimer(silence)
	defer t.Stop()
	for {
		select {
		case <-ws.done:
			return
		case <-ws.seen:
			t.Reset(silence)
		case <-t.C:
			select {
			case <-ws.seen:
				t.Reset(silence)
				continue
			default:
			}
			ws.end(websocket.StatusGoingAway, "the gateway is gone")
			return
		case m := <-ws.in:
			if m.Header.Get(hdrSocket) == "close" {
				code, _ := strconv.Atoi(m.Header.Get(hdrCloseCode))
				if code < 1000 || code > 4999 || code == 1005 || code == 1006 {
					code = int(websocket.StatusNormalClosure)
				}
				ws.end(websocket.StatusCode(code), string(m.Data))
				return
			}
			typ := websocket.MessageText
			if m.Header.Get(hdrSocketType) == "binary" {
				typ = websocket.MessageBinary
			}
			if err := ws.c.Write(context.Background(), typ, m.Data); err != nil {
				ws.end(websocket.StatusInternalError, "writing to the session: "+err.Error())
				return
			}
		}
	}
}

// toGateway relays the handler's messages, then its close, to the gateway.
func (ws *workerSocket) toGateway() {
	for {
		typ, data, err := ws.c.Read(context.Background())
		if err != nil {
			code, reason := websocket.StatusNormalClosure, ""
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				code, reason = ce.Code, ce.Reason
			}
			ws.end(code, reason)
			return
		}
		m := nats.NewMsg(ws.reply)
		m.Header.Set(hdrSocket, "frame")
		if typ == websocket.MessageBinary {
			m.Header.Set(hdrSocketType, "binary")
		}
		m.Data = data
		err = ws.s.w.NC.PublishMsg(m)
		ws.settle()
		if err != nil {
			ws.end(websocket.StatusMessageTooBig, "relaying an answer: "+err.Error())
			return
		}
	}
}

// end closes the session once: the handler's socket (so its episode is
// deleted, as serve does when a client goes) and the gateway's side.
func (ws *workerSocket) end(code websocket.StatusCode, reason string) {
	ws.once.Do(func() {
		close(ws.done)
		ws.settle()
		ws.sub.Unsubscribe()
		ws.s.mu.Lock()
		delete(ws.s.open, ws.id)
		ws.s.mu.Unlock()
		if len(reason) > 120 {
			reason = reason[:120]
		}
		m := nats.NewMsg(ws.reply)
		m.Header.Set(hdrSocket, "close")
		m.Header.Set(hdrCloseCode, strconv.Itoa(int(code)))
		m.Data = []byte(reason)
		ws.s.w.NC.PublishMsg(m)
		go func() {
			ws.c.Close(websocket.StatusNormalClosure, "")
			ws.c.CloseNow()
		}()
	})
}

// memListener is a net.Listener whose connections are dialled in process
// (net.Pipe): the worker's own sockets to its handler, reachable from no
// network.
type memListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newMemListener() *memListener {
	return &memListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *memListener) Addr() net.Addr { return memAddr{} }

func (l *memListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type memAddr struct{}

func (memAddr) Network() string { return "memory" }
func (memAddr) String() string  { return "worker" }
