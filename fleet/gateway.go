package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// GatewayOptions configure a Gateway. Zero values get the defaults shown.
type GatewayOptions struct {
	// Timeout bounds one forwarded request (60s); keep it over the
	// workers' call timeout. An owned episode whose worker does not answer
	// in time is lost.
	Timeout time.Duration
	// MaxBodyBytes bounds a request body (the NATS message limit less
	// 64 KiB for headers).
	MaxBodyBytes int64
	// Stale drops a worker from placement after this long without a
	// heartbeat (3s).
	Stale time.Duration
	// Authorize, when set, admits a request to the gateway's own /stats
	// (the workers' load), as the workers' token admits requests to
	// theirs; nil: /stats is open. /health is open, as serve's.
	Authorize func(*http.Request) bool
	// FleetKey, when set, is the fleet's shared secret (serve_auth.go):
	// episodes go only to workers whose heartbeats and answers are signed
	// with it, and the clients' credentials cross NATS sealed with it.
	FleetKey []byte
	// SocketPing is how often a forwarded WebSocket's worker is asked
	// whether it still holds the session (1s): a worker gone closes the
	// client's socket with CloseEpisodeLost within about that long.
	SocketPing time.Duration
}

// Gateway is an http.Handler that serves the routes of serve.Server from
// a fleet of ServeWorkers over NATS request/reply. A request that creates
// episodes goes to the worker whose capacity is the least used; a request on
// an episode goes to the worker named in its id; a request on no episode
// goes to any worker (the queue group). An episode whose worker is gone
// answers 410 with code episode_lost, at once when its worker's connection
// is closed (NATS has no responder), else after Timeout.
//
// WebSockets (GET /ws, GET /mcp) are placed as creates and relayed frame
// by frame to their worker (gateway_socket.go); a worker that dies closes
// its clients' sockets with CloseEpisodeLost. MCP's standalone event
// stream (GET /v1/episodes/{id}/mcp) is not forwarded.
type Gateway struct {
	nc   *nats.Conn
	opts GatewayOptions
	sub  *nats.Subscription

	mu      sync.Mutex
	workers map[string]*workerLoad
}

type workerLoad struct {
	episodes int
	capacity int // most episodes it takes (defaultCapacity when unknown)
	seen     time.Time
}

// defaultCapacity is serve's default MaxEpisodes.
const defaultCapacity = 10000

// fill is the share of the worker's capacity in use.
func (w *workerLoad) fill() float64 { return float64(w.episodes) / float64(w.capacity) }

// NewGateway listens to the workers' heartbeats on nc. Close stops it.
func NewGateway(nc *nats.Conn, opts GatewayOptions) (*Gateway, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	if limit := nc.MaxPayload() - 64<<10; opts.MaxBodyBytes <= 0 || opts.MaxBodyBytes > limit {
		opts.MaxBodyBytes = limit
	}
	if opts.Stale <= 0 {
		opts.Stale = 3 * time.Second
	}
	if opts.SocketPing <= 0 {
		opts.SocketPing = time.Second
	}
	g := &Gateway{nc: nc, opts: opts, workers: map[string]*workerLoad{}}
	sub, err := nc.Subscribe(serveLoad, func(m *nats.Msg) {
		var hb heartbeat
		if !answerSigned(g.opts.FleetKey, "heartbeat", m) {
			return // not a fleet member's: nothing is placed on it
		}
		if json.Unmarshal(m.Data, &hb) == nil && ownerOf("ep_"+hb.ID+".x") == hb.ID {
			g.setLoad(hb.ID, hb.Episodes, hb.Capacity)
		}
	})
	if err != nil {
		return nil, errorf(CodeUnavailable, err, "subscribe to heartbeats")
	}
	if err := nc.Flush(); err != nil {
		sub.Unsubscribe()
		return nil, errorf(CodeUnavailable, err, "subscribe to heartbeats")
	}
	g.sub = sub
	return g, nil
}

// Close stops listening to heartbeats; it does not close the connection.
func (g *Gateway) Close() error { return g.sub.Unsubscribe() }

// Workers is the ids of the workers heard from lately and their live
// episodes.
func (g *Gateway) Workers() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := map[string]int{}
	for id, w := range g.workers {
		if time.Since(w.seen) <= g.opts.Stale {
			out[id] = w.episodes
		}
	}
	return out
}

// setLoad notes a worker's live episodes; capacity 0 keeps what was known.
func (g *Gateway) setLoad(id string, episodes, capacity int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if capacity <= 0 {
		capacity = defaultCapacity
		if old := g.workers[id]; old != nil {
			capacity = old.capacity
		}
	}
	g.workers[id] = &workerLoad{episodes: episodes, capacity: capacity, seen: time.Now()}
}

// known reports whether a worker's heartbeat was heard: an answer notes
// the load of such a worker only, never makes one known.
func (g *Gateway) known(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.workers[id] != nil
}

// errUnsigned is an answer not signed with the fleet key.
var errUnsigned = errors.New("an answer not signed with the fleet key")

// request sends a request to a worker and takes its answer only if it is
// signed with the fleet key (when there is one).
func (g *Gateway) request(ctx context.Context, msg *nats.Msg) (*nats.Msg, error) {
	reply, err := g.nc.RequestMsgWithContext(ctx, msg)
	if err == nil && !answerSigned(g.opts.FleetKey, "answer", reply) {
		return nil, errUnsigned
	}
	return reply, err
}

func (g *Gateway) forget(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.workers, id)
}

// leastLoaded picks the live worker whose capacity is the least used (ties:
// fewer episodes, then id) and counts n more episodes on it until its next
// report, so that a burst of creates spreads before heartbeats catch up.
// "" when none is known.
func (g *Gateway) leastLoaded(n int) string {
	g.mu.Lock()
	defer g.mu.Unlock()
	ids := make([]string, 0, len(g.workers))
	for id, w := range g.workers {
		if time.Since(w.seen) > g.opts.Stale {
			delete(g.workers, id)
			continue
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return ""
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := g.workers[ids[i]], g.workers[ids[j]]
		if a.fill() != b.fill() {
			return a.fill() < b.fill()
		}
		return a.episodes < b.episodes || a.episodes == b.episodes && ids[i] < ids[j]
	})
	g.workers[ids[0]].episodes += max(n, 1)
	return ids[0]
}

func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && (r.URL.Path == "/ws" || r.URL.Path == "/mcp") {
		g.serveSocket(w, r)
		return
	}
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.opts.MaxBodyBytes))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				gatewayError(w, http.StatusRequestEntityTooLarge, "too_large", "the request body is over the gateway's limit of "+strconv.FormatInt(g.opts.MaxBodyBytes, 10)+" bytes")
				return
			}
			gatewayError(w, http.StatusBadRequest, "bad_request", "reading the request body: "+err.Error())
			return
		}
		body = b
	}
	rt := route(r, body)
	switch rt.kind {
	case routeRefused:
		if rt.status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", "POST, DELETE")
		}
		gatewayError(w, rt.status, "not_supported", rt.msg)
		return
	case routeHealth:
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"status": "healthy", "workers": len(g.Workers())})
		return
	case routeStats:
		if g.opts.Authorize != nil && !g.opts.Authorize(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="wasmenv"`)
			gatewayError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong bearer token")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"workers": g.Workers()})
		return
	case routeOwned:
		if rt.owner == "" {
			gatewayError(w, http.StatusNotFound, "unknown_episode", "no episode "+strconv.Quote(rt.episode)+" (not an id this fleet mints)")
			return
		}
	}
	ctx, cancel := context.WithTimeout(r.Context(), g.opts.Timeout)
	defer cancel()
	msg := nats.NewMsg("")
	copyHeaders(msg.Header, r.Header)
	msg.Header.Set(hdrMethod, r.Method)
	msg.Header.Set(hdrTarget, r.URL.RequestURI())
	msg.Header.Set(hdrTimeout, strconv.FormatInt(g.opts.Timeout.Milliseconds(), 10))
	seal(g.opts.FleetKey, msg.Header)
	msg.Data = body

	var reply *nats.Msg
	var err error
	if rt.kind == routeOwned {
		msg.Subject = serveOwn + rt.owner
		reply, err = g.request(ctx, msg)
		if errors.Is(err, nats.ErrNoResponders) {
			g.forget(rt.owner)
			if rt.placeIfLost {
				rt.kind, rt.n, err = routePlace, 1, nil
			}
		}
	}
	switch rt.kind {
	case routeOwned:
		// Lost: nobody holds the owner's subject, or the owner did not
		// answer in time. Any other error is the gateway's own trouble
		// with NATS, below, and says nothing about the episode.
		lost := errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrTimeout) ||
			errors.Is(err, context.DeadlineExceeded)
		if lost && r.Context().Err() == nil {
			gatewayError(w, http.StatusGone, "episode_lost",
				"episode "+strconv.Quote(rt.episode)+": its worker "+rt.owner+" is gone ("+err.Error()+"); create a new episode")
			return
		}
	case routePlace:
		if id := g.leastLoaded(rt.n); id != "" {
			reply, err = g.place(ctx, msg, id, rt.n)
			break
		}
		fallthrough
	default:
		msg.Subject = serveAny
		reply, err = g.request(ctx, msg)
	}
	if err != nil {
		g.failed(w, r, err)
		return
	}
	g.write(w, reply)
}

// place sends a create to worker id. A worker that is gone (nobody got
// the message) or full (429 capacity or memory: it created nothing)
// declines it, and the next least loaded worker gets it, each worker once
// at most; the last answer is the client's. With no worker left it goes to
// the queue group.
func (g *Gateway) place(ctx context.Context, msg *nats.Msg, id string, n int) (*nats.Msg, error) {
	tried := map[string]bool{}
	for {
		tried[id] = true
		msg.Subject = serveOwn + id
		reply, err := g.request(ctx, msg)
		switch {
		case errors.Is(err, nats.ErrNoResponders):
			g.forget(id)
		case err == nil && reply.Header.Get(hdrStatus) == "429" && (bodyCode(reply.Data) == "capacity" || bodyCode(reply.Data) == "memory"):
			g.markFull(id)
		default:
			return reply, err
		}
		next := g.leastLoaded(n)
		if next == "" || tried[next] {
			if err == nil {
				return reply, nil // every worker is full: its 429
			}
			msg.Subject = serveAny
			return g.request(ctx, msg)
		}
		id = next
	}
}

// markFull notes that a worker declined a create for want of room.
func (g *Gateway) markFull(id string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if w := g.workers[id]; w != nil {
		w.episodes = max(w.episodes, w.capacity)
	}
}

// bodyCode is the code of a serve error body, or "".
func bodyCode(body []byte) string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	json.Unmarshal(body, &e)
	return e.Error.Code
}

// write relays a worker's answer and notes the worker's load.
func (g *Gateway) write(w http.ResponseWriter, m *nats.Msg) {
	status, err := strconv.Atoi(m.Header.Get(hdrStatus))
	if err != nil || status < 100 || status > 999 {
		gatewayError(w, http.StatusBadGateway, "bad_reply", "a worker answered something that is not a forwarded HTTP answer")
		return
	}
	if id := m.Header.Get(hdrWorker); id != "" && (g.opts.FleetKey == nil || g.known(id)) {
		if n, err := strconv.Atoi(m.Header.Get(hdrEpisodes)); err == nil {
			g.setLoad(id, n, 0)
		}
	}
	for k, vs := range m.Header {
		if hopHeaders[http.CanonicalHeaderKey(k)] || len(k) > 8 && k[:8] == "Wasmenv-" {
			continue
		}
		w.Header()[k] = vs
	}
	w.WriteHeader(status)
	w.Write(m.Data)
}
