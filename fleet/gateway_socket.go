package fleet

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"
)

// serveSocket forwards a WebSocket (GET /ws, GET /mcp) to a worker (see
// serve_socket.go): the session is placed as a create is, on the least
// loaded worker, and stays there; the client's socket is accepted only
// once the worker's is open, so a refusal (a full worker, a bad token) is
// the worker's HTTP answer as `wasmenv serve` gives it.
func (g *Gateway) serveSocket(w http.ResponseWriter, r *http.Request) {
	if !strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
		gatewayError(w, http.StatusUpgradeRequired, "upgrade_required", "GET "+r.URL.Path+" is a WebSocket: send an upgrade request")
		return
	}
	frames := make(chan *nats.Msg, 2*socketQueue)
	inbox := nats.NewInbox()
	sub, err := g.nc.ChanSubscribe(inbox, frames)
	if err != nil {
		g.failed(w, r, err)
		return
	}
	defer sub.Unsubscribe()
	msg := nats.NewMsg("")
	copyHeaders(msg.Header, r.Header)
	msg.Header.Set(hdrMethod, r.Method)
	msg.Header.Set(hdrTarget, r.URL.RequestURI())
	msg.Header.Set(hdrTimeout, strconv.FormatInt(g.opts.Timeout.Milliseconds(), 10))
	msg.Header.Set(hdrSocket, "open")
	msg.Header.Set(hdrSocketReply, inbox)
	msg.Header.Set(hdrSocketPing, strconv.FormatInt(g.opts.SocketPing.Milliseconds(), 10))
	seal(g.opts.FleetKey, msg.Header)
	ctx, cancel := context.WithTimeout(r.Context(), g.opts.Timeout)
	defer cancel()
	var reply *nats.Msg
	if id := g.leastLoaded(1); id != "" {
		reply, err = g.place(ctx, msg, id, 1)
	} else {
		msg.Subject = serveAny
		reply, err = g.request(ctx, msg)
	}
	if err != nil {
		g.failed(w, r, err)
		return
	}
	worker, sid := reply.Header.Get(hdrWorker), reply.Header.Get(hdrSocketID)
	if reply.Header.Get(hdrStatus) != "101" {
		g.write(w, reply)
		return
	}
	if ownerOf("ep_"+worker+".x") != worker || len(sid) != 16 || strings.Trim(sid, "0123456789abcdef") != "" {
		gatewayError(w, http.StatusBadGateway, "bad_reply", "a worker answered a WebSocket open with no session")
		return
	}
	subject := serveSock + worker + "." + sid
	var opts websocket.AcceptOptions
	if p := reply.Header.Get(hdrSubprotocol); p != "" {
		opts.Subprotocols = []string{p}
	}
	c, err := websocket.Accept(w, r, &opts)
	if err != nil { // Accept has answered the client
		g.tellWorker(subject, websocket.StatusNormalClosure, "")
		return
	}
	c.SetReadLimit(g.opts.MaxBodyBytes)
	(&gatewaySocket{g: g, c: c, worker: worker, subject: subject, frames: frames}).relay()
}

// failed answers a request that could not reach a worker.
func (g *Gateway) failed(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case r.Context().Err() != nil: // the client is gone
	case errors.Is(err, nats.ErrNoResponders):
		gatewayError(w, http.StatusServiceUnavailable, "no_workers", "no worker serves episodes on this NATS")
	case errors.Is(err, errUnsigned):
		gatewayError(w, http.StatusBadGateway, "bad_reply", "a worker's answer is not signed with the fleet key")
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout):
		gatewayError(w, http.StatusGatewayTimeout, "timeout", "no worker answered in "+g.opts.Timeout.String())
	default:
		gatewayError(w, http.StatusServiceUnavailable, "unavailable", "the gateway cannot reach NATS: "+err.Error())
	}
}

// tellWorker ends the worker's session (best effort: it also ends by
// itself when the gateway's pings stop).
func (g *Gateway) tellWorker(subject string, code websocket.StatusCode, reason string) {
	m := nats.NewMsg(subject)
	m.Header.Set(hdrSocket, "close")
	m.Header.Set(hdrCloseCode, strconv.Itoa(int(code)))
	m.Data = []byte(reason)
	g.nc.PublishMsg(m)
}

// gatewaySocket is one forwarded session, on the gateway's side.
type gatewaySocket struct {
	g       *Gateway
	c       *websocket.Conn
	worker  string
	subject string
	frames  chan *nats.Msg
	once    sync.Once
	done    chan struct{}
}

// relay carries frames both ways until either side closes, or the
// worker is found gone: then the client's socket closes with
// CloseEpisodeLost.
func (s *gatewaySocket) relay() {
	s.done = make(chan struct{})
	go s.fromClient()
	go s.ping()
	for {
		select {
		case <-s.done:
			return
		case m := <-s.frames:
			if m.Header.Get(hdrSocket) == "close" {
				code, _ := strconv.Atoi(m.Header.Get(hdrCloseCode))
				s.finish(websocket.StatusCode(code), string(m.Data), false)
				return
			}
			typ := websocket.MessageText
			if m.Header.Get(hdrSocketType) == "binary" {
				typ = websocket.MessageBinary
			}
			ctx, cancel := context.WithTimeout(context.Background(), s.g.opts.Timeout)
			err := s.c.Write(ctx, typ, m.Data)
			cancel()
			if err != nil {
				s.finish(websocket.StatusGoingAway, "", true)
				return
			}
		}
	}
}

// fromClient forwards the client's frames, each a request the worker
// answers when it has queued it.
func (s *gatewaySocket) fromClient() {
	for {
		typ, data, err := s.c.Read(context.Background())
		if err != nil {
			code, reason := websocket.StatusGoingAway, ""
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				code, reason = ce.Code, ce.Reason
			}
			s.finish(code, reason, true)
			return
		}
		m := nats.NewMsg(s.subject)
		m.Header.Set(hdrSocket, "frame")
		if typ == websocket.MessageBinary {
			m.Header.Set(hdrSocketType, "binary")
		}
		m.Data = data
		if _, err := s.g.nc.RequestMsg(m, s.g.opts.Timeout); err != nil {
			s.lost(err)
			return
		}
	}
}

// ping asks the worker every SocketPing whether the session is still
// there; no responders (its connection is closed: it died) or no answer
// within the gateway's Timeout (wedged, as for an HTTP call) is a lost
// worker.
func (s *gatewaySocket) ping() {
	t := time.NewTicker(s.g.opts.SocketPing)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		m := nats.NewMsg(s.subject)
		m.Header.Set(hdrSocket, "ping")
		if _, err := s.g.nc.RequestMsg(m, s.g.opts.Timeout); err != nil {
			if errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, nats.ErrConnectionDraining) {
				s.finish(websocket.StatusGoingAway, "the gateway is shutting down", true)
			} else {
				s.lost(err)
			}
			return
		}
	}
}

func (s *gatewaySocket) lost(err error) {
	s.finish(CloseEpisodeLost, "episode_lost: its worker "+s.worker+" is gone ("+truncate(err.Error(), 40)+"); create a new episode", false)
}

// finish closes both sides once. toWorker: the worker's session is told
// (the client or the gateway ended it); else the worker ended it or is
// gone, and the client gets code and reason.
func (s *gatewaySocket) finish(code websocket.StatusCode, reason string, toWorker bool) {
	s.once.Do(func() {
		close(s.done)
		if toWorker {
			s.g.tellWorker(s.subject, code, reason)
		}
		if code < 1000 || code == websocket.StatusNoStatusRcvd || code == websocket.StatusAbnormalClosure || code > 4999 {
			code = websocket.StatusNormalClosure
		}
		if len(reason) > 123 {
			reason = reason[:123]
		}
		go s.c.Close(code, reason)
	})
}
