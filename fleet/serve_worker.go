package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// ServeWorker answers a gateway's HTTP requests over NATS with an
// in-process handler (a serve.Server's). It subscribes to its own subject,
// for the episodes it owns, and to the queue group of all serving workers,
// for requests that any worker may answer; every Heartbeat it publishes its
// load.
type ServeWorker struct {
	NC *nats.Conn
	// ID is NewServeID's; the handler's episode ids must carry it
	// (serve.Options.IDPrefix = ID + ".").
	ID      string
	Handler http.Handler
	// Episodes reports the live episodes, the load a gateway balances.
	Episodes func() int
	// Capacity is the most live episodes the handler takes (its
	// serve.Options.MaxEpisodes); 0 is serve's default, 10000.
	Capacity int
	// Heartbeat is the interval of load reports (1s).
	Heartbeat time.Duration
	// MaxInFlight bounds requests handled at once (1024); more are
	// answered 503 busy.
	MaxInFlight int
	// FleetKey, when set, is the fleet's shared secret (serve_auth.go):
	// heartbeats and answers are signed with it, and the clients'
	// credentials come sealed with it.
	FleetKey []byte

	socks *sockets
}

// Run serves until ctx ends, then drains: requests in flight finish and
// get their answers.
func (w *ServeWorker) Run(ctx context.Context) error {
	if w.NC == nil || w.Handler == nil || len(w.ID) != 8 || ownerOf("ep_"+w.ID+".x") != w.ID {
		return errorf(CodeBadInput, nil, "a serve worker needs a connection, a handler and an id from NewServeID")
	}
	if w.Heartbeat <= 0 {
		w.Heartbeat = time.Second
	}
	if w.MaxInFlight <= 0 {
		w.MaxInFlight = 1024
	}
	w.socks = newSockets(w)
	defer w.socks.close() // after the requests in flight
	slots := make(chan struct{}, w.MaxInFlight)
	var wg sync.WaitGroup
	handle := func(m *nats.Msg) {
		select {
		case slots <- struct{}{}:
		default:
			w.reply(m, http.StatusServiceUnavailable, nil, errBody("busy", "the worker has too many requests in flight"))
			return
		}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			defer func() {
				// As net/http does for a handler that panics: this
				// request fails, the worker and its other episodes go on.
				if p := recover(); p != nil {
					w.reply(m, http.StatusInternalServerError, nil, errBody("internal", fmt.Sprintf("the worker's handler panicked: %v", p)))
				}
			}()
			w.serve(ctx, m)
		}()
	}
	own, err := w.NC.Subscribe(serveOwn+w.ID, handle)
	if err != nil {
		return errorf(CodeUnavailable, err, "subscribe")
	}
	anySub, err := w.NC.QueueSubscribe(serveAny, serveQueue, handle)
	if err != nil {
		own.Unsubscribe()
		return errorf(CodeUnavailable, err, "subscribe")
	}
	if err := w.NC.Flush(); err != nil {
		return errorf(CodeUnavailable, err, "subscribe")
	}
	tick := time.NewTicker(w.Heartbeat)
	defer tick.Stop()
	for {
		w.beat()
		select {
		case <-tick.C:
			continue
		case <-ctx.Done():
		}
		break
	}
	own.Unsubscribe()
	anySub.Unsubscribe()
	wg.Wait()
	return nil
}

// load is the live episodes, and a WebSocket session that has not
// answered yet counts as one (its episode comes with its first message):
// sessions opened in a burst spread as creates do.
func (w *ServeWorker) load() int {
	n := 0
	if w.socks != nil {
		n = int(w.socks.pending.Load())
	}
	if w.Episodes == nil {
		return n
	}
	return n + w.Episodes()
}

func (w *ServeWorker) beat() {
	m := nats.NewMsg(serveLoad)
	m.Data, _ = json.Marshal(heartbeat{ID: w.ID, Episodes: w.load(), Capacity: w.Capacity})
	signAnswer(w.FleetKey, "heartbeat", m)
	w.NC.PublishMsg(m)
}

// serve runs one forwarded request through the handler. Its context is not
// ctx, so that a worker shutting down lets requests in flight finish; it
// ends when the gateway stops waiting, so that a request nobody waits for
// does not hold an episode or a call slot.
func (w *ServeWorker) serve(_ context.Context, m *nats.Msg) {
	if m.Header.Get(hdrSocket) == "open" {
		w.socks.openSocket(m)
		return
	}
	method, target := m.Header.Get(hdrMethod), m.Header.Get(hdrTarget)
	rctx := context.Background()
	if ms, err := strconv.ParseInt(m.Header.Get(hdrTimeout), 10, 64); err == nil && ms > 0 {
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(rctx, time.Duration(ms)*time.Millisecond)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(rctx, method, target, bytes.NewReader(m.Data))
	if err != nil || method == "" || len(target) == 0 || target[0] != '/' {
		w.reply(m, http.StatusBadRequest, nil, errBody("bad_request", "not a forwarded HTTP request"))
		return
	}
	for k, vs := range m.Header {
		if len(k) > 8 && k[:8] == "Wasmenv-" {
			continue
		}
		req.Header[k] = vs
	}
	if !unseal(w.FleetKey, m.Header, req.Header) {
		w.reply(m, http.StatusBadRequest, nil, errBody("bad_request", "sealed credentials that do not open with this worker's fleet key"))
		return
	}
	req.ContentLength = int64(len(m.Data))
	req.RemoteAddr = "nats"
	req.RequestURI = target
	rec := &recorder{h: http.Header{}, max: int(w.NC.MaxPayload()) - 16<<10}
	w.Handler.ServeHTTP(rec, req)
	if rctx.Err() != nil {
		// The gateway has stopped waiting (or is about to): an answer now
		// would race its own, so it gets none and answers for itself.
		return
	}
	if rec.over {
		w.reply(m, http.StatusBadGateway, nil, errBody("response_too_large",
			"the answer is over the NATS message limit of "+strconv.Itoa(int(w.NC.MaxPayload()))+" bytes"))
		return
	}
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	w.reply(m, rec.status, rec.h, rec.body.Bytes())
}

func (w *ServeWorker) reply(m *nats.Msg, status int, h http.Header, body []byte) {
	out := nats.NewMsg(m.Reply)
	copyHeaders(out.Header, h)
	if h == nil {
		out.Header.Set("Content-Type", "application/json")
	}
	out.Header.Set(hdrStatus, strconv.Itoa(status))
	out.Header.Set(hdrWorker, w.ID)
	out.Header.Set(hdrEpisodes, strconv.Itoa(w.load()))
	out.Data = body
	signAnswer(w.FleetKey, "answer", out)
	m.RespondMsg(out)
}

func errBody(code, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": msg}})
	return b
}

// recorder buffers a handler's answer, up to max bytes of body.
type recorder struct {
	h      http.Header
	status int
	body   bytes.Buffer
	max    int
	over   bool
}

func (r *recorder) Header() http.Header { return r.h }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	if r.body.Len()+len(p) > r.max {
		r.over = true
		return 0, http.ErrContentLength
	}
	return r.body.Write(p)
}

// Flush is a no-op: the whole answer travels as one message. MCP's
// streamable handler streams its POST answers and needs a Flusher.
func (r *recorder) Flush() {}
