package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// Options configure a Server. Zero values get the defaults shown.
type Options struct {
	// MaxEpisodes bounds the live episodes of all environments (10000).
	MaxEpisodes int
	// MaxGroup bounds n in one POST /v1/episodes (1024).
	MaxGroup int
	// IdleTimeout closes episodes nobody used for this long (10m);
	// negative disables reaping.
	IdleTimeout time.Duration
	// Token, when set, is required as "Authorization: Bearer TOKEN" on
	// every route but /health.
	Token string
	// MaxBodyBytes bounds a request body (2 MiB).
	MaxBodyBytes int64
	// MaxJSONDepth bounds the nesting of a request's JSON (64).
	MaxJSONDepth int
	// MaxResponseBytes bounds a diff or state response (16 MiB); tool
	// results are bounded by each environment's max_output_bytes.
	MaxResponseBytes int
	// CallTimeout bounds one request's wait for its episode plus the call
	// itself (30s); the environment's own call_timeout still applies.
	CallTimeout time.Duration
	// MaxSteps is the default step limit of an episode on /step (0: none).
	MaxSteps int
	// MaxConcurrentCalls bounds tool calls running at once across all
	// episodes (2×GOMAXPROCS, the runtime's instance pool size). More would
	// not run faster: they would share the same cores, instantiate fresh
	// WebAssembly modules when the pool runs dry, and eat into their own
	// call_timeout while waiting for a CPU. Diffs, state hashes and scores
	// take a slot too: they run SQL over all of an episode's changes.
	MaxConcurrentCalls int
	// Logger receives operational messages; nil discards them.
	Logger *slog.Logger
	// Connection hygiene (see hygiene.go): ReadTimeout bounds reading a
	// request, body included (30s); ReadHeaderTimeout its headers (10s);
	// WSIdleTimeout closes a WebSocket with no message for this long (5m);
	// MaxWebSockets bounds open WebSocket sessions (256).
	ReadTimeout       time.Duration
	ReadHeaderTimeout time.Duration
	WSIdleTimeout     time.Duration
	MaxWebSockets     int
	// MaxMemoryBytes refuses new episodes (429) while the process's
	// resident memory is over it, before the machine swaps; 0: no cap.
	// Before refusing, the server frees what closed episodes left (see
	// release.go). While the server runs, it is also the Go runtime's soft
	// memory limit unless one was set (GOMEMLIMIT).
	MaxMemoryBytes int64
	// Clients are the clients allowed in, each with its own bearer token
	// and episode quota (see LoadClients); an episode belongs to the client
	// that created it, and no other client can see it. Token, if set, adds
	// a client named "default" without a quota.
	Clients []Client
	// NeMoGymRoot, when set, names the environment whose NeMo Gym routes
	// are also served at the root (POST /seed_session, /verify, /{tool},
	// /close, and /reset and /step for NeMo Gym's bodies: rootGym):
	// NeMo Gym's client knows a resources server by host and port only.
	NeMoGymRoot string
	// IDPrefix goes between "ep_" and the random part of every episode id
	// (letters, digits, '-' and '.' only). A fleet gateway routes a call
	// to the worker that owns its episode by this prefix alone, without a
	// table of its own (fleet/gateway.go).
	IDPrefix string
	// User, when set, plays the customer of every task (user.go): it
	// opens each episode, the agent talks to it with "message" steps, and
	// the task's instruction and persona are never sent to a client.
	User rl.User
	// StopToken is the user's end of conversation (rl.DefaultStopToken).
	StopToken string
}

func (o *Options) defaults() {
	if o.MaxEpisodes <= 0 {
		o.MaxEpisodes = 10000
	}
	if o.MaxGroup <= 0 {
		o.MaxGroup = 1024
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = 10 * time.Minute
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 2 << 20
	}
	if o.MaxJSONDepth <= 0 {
		o.MaxJSONDepth = 64
	}
	if o.MaxResponseBytes <= 0 {
		o.MaxResponseBytes = 16 << 20
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 30 * time.Second
	}
	if o.MaxConcurrentCalls <= 0 {
		o.MaxConcurrentCalls = 2 * goruntime.GOMAXPROCS(0)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.hygieneDefaults()
}

// Server serves episodes of a fixed set of environments. It does not own
// the environments: close the Server, then the environments.
type Server struct {
	opts    Options
	envs    []*runtime.Env
	byName  map[string]*runtime.Env
	table   *table
	stats   *stats
	mux     *http.ServeMux
	mcp     *mcp.StreamableHTTPHandler
	slots   chan struct{} // MaxConcurrentCalls
	ws      chan struct{} // MaxWebSockets
	clients []Client
	mem     *releaser // gives memory back after episodes close (release.go)

	restoreMemoryLimit func()

	ctx    context.Context // cancelled by Close; ends WebSocket sessions
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// New makes a server for envs, which must have distinct names.
func New(envs []*runtime.Env, opts Options) (*Server, error) {
	if len(envs) == 0 {
		return nil, errors.New("serve: no environments")
	}
	opts.defaults()
	if strings.Trim(opts.IDPrefix, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-.") != "" {
		return nil, fmt.Errorf("serve: IDPrefix %q: only letters, digits, '-' and '.'", opts.IDPrefix)
	}
	s := &Server{opts: opts, envs: envs, byName: map[string]*runtime.Env{}, stats: newStats()}
	for _, e := range envs {
		if _, dup := s.byName[e.Name()]; dup {
			return nil, fmt.Errorf("serve: two environments named %q", e.Name())
		}
		s.byName[e.Name()] = e
	}
	if err := s.checkNeMoGymRoot(); err != nil {
		return nil, err
	}
	s.table = newTable(opts.MaxEpisodes)
	if err := s.setClients(); err != nil {
		return nil, err
	}
	s.slots = make(chan struct{}, opts.MaxConcurrentCalls)
	s.ws = make(chan struct{}, opts.MaxWebSockets)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.mcp = mcp.NewStreamableHTTPHandler(s.mcpServerFor, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: opts.MaxBodyBytes,
		Logger:              opts.Logger,
	})
	s.routes()
	s.mem = newReleaser()
	s.wg.Add(1)
	go s.releaseLoop()
	s.restoreMemoryLimit = setMemoryLimit(opts.MaxMemoryBytes)
	if opts.IdleTimeout > 0 {
		s.wg.Add(1)
		go s.reaper()
	}
	return s, nil
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s }

// Close stops the reaper, ends WebSocket sessions and closes every episode.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.cancel()
		s.wg.Wait()
		for _, e := range s.table.drain() {
			e.close(context.Background())
		}
		s.restoreMemoryLimit()
	})
	return nil
}

// Episodes is the number of live episodes.
func (s *Server) Episodes() int { return s.table.len() }

func (s *Server) routes() {
	m := http.NewServeMux()
	m.HandleFunc("GET /health", s.health)
	m.HandleFunc("GET /stats", s.getStats)
	m.HandleFunc("GET /v1/envs", s.listEnvs)
	m.HandleFunc("GET /v1/envs/{env}/tasks", s.listTasks)
	m.HandleFunc("POST /v1/episodes", s.createEpisodes)
	m.HandleFunc("GET /v1/episodes/{id}", s.getEpisode)
	m.HandleFunc("DELETE /v1/episodes/{id}", s.deleteEpisode)
	m.HandleFunc("POST /v1/episodes/{id}/call", s.call)
	m.HandleFunc("POST /v1/episodes/{id}/step", s.step)
	m.HandleFunc("POST /v1/episodes/{id}/score", s.score)
	m.HandleFunc("GET /v1/episodes/{id}/diff", s.diff)
	m.HandleFunc("POST /v1/episodes/{id}/reset", s.reset)
	m.HandleFunc("/v1/episodes/{id}/mcp", s.serveMCP)
	m.HandleFunc("GET /v1/ws", s.episodeSocket)
	m.HandleFunc("POST /reset", s.rootGym(s.oeReset, s.ngReset)) // NeMo Gym's too with NeMoGymRoot
	m.HandleFunc("POST /step", s.rootGym(s.oeStep, s.ngStep))
	m.HandleFunc("GET /state", s.oeState)
	m.HandleFunc("GET /schema", s.oeSchema)
	m.HandleFunc("GET /metadata", s.oeMetadata)
	m.HandleFunc("GET /ws", s.oeWebSocket)
	m.HandleFunc("POST /mcp", s.oeMCP)
	m.HandleFunc("GET /mcp", s.oeMCPSocket)
	s.nemoGymRoutes(m)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, errf(http.StatusNotFound, CodeNotFound, "no route for %s %s", r.Method, r.URL.Path))
	})
	s.mux = m
}

// ServeHTTP applies authentication and panic recovery, then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.stats.requests.Add(1)
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.stats.panics.Add(1)
			s.opts.Logger.Error("serve: panic", "path", r.URL.Path, "panic", fmt.Sprint(v))
			writeError(w, errf(http.StatusInternalServerError, CodeInternal, "internal error"))
		}
	}()
	if len(s.clients) > 0 && r.URL.Path != "/health" {
		name, ok := s.authenticate(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="wasmenv"`)
			writeError(w, errf(http.StatusUnauthorized, CodeUnauthorized, "missing or wrong bearer token"))
			return
		}
		r = r.WithContext(withClient(r.Context(), name))
	}
	s.mux.ServeHTTP(w, r)
}

// reaper closes idle episodes.
func (s *Server) reaper() {
	defer s.wg.Done()
	tick := s.opts.IdleTimeout / 4
	tick = min(max(tick, 10*time.Millisecond), 5*time.Second)
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-s.ctx.Done():
			return
		case now := <-t.C:
			n := s.table.reap(now.Add(-s.opts.IdleTimeout))
			if n > 0 {
				s.stats.reaped.Add(int64(n))
				s.opts.Logger.Info("serve: reaped idle episodes", "n", n)
			}
		}
	}
}

// env picks an environment by name; "" means the only one.
func (s *Server) env(name string) (*runtime.Env, error) {
	if name == "" {
		if len(s.envs) == 1 {
			return s.envs[0], nil
		}
		return nil, errf(http.StatusBadRequest, CodeBadRequest, "several environments are served; name one with \"env\"")
	}
	e, ok := s.byName[name]
	if !ok {
		return nil, errf(http.StatusNotFound, CodeUnknownEnv, "no environment named %q", name)
	}
	return e, nil
}

// newGroup creates n identical episodes and registers them.
func (s *Server) newGroup(ctx context.Context, envName, task string, seed int64, n, maxSteps int) ([]*episode, error) {
	owner := clientFrom(ctx)
	env, err := s.env(envName)
	if err != nil {
		return nil, err
	}
	if task != "" {
		if _, ok := env.Bundle.Task(task); !ok {
			return nil, errf(http.StatusNotFound, CodeUnknownTask, "environment %s has no task %q", env.Name(), task)
		}
	}
	if n <= 0 {
		n = 1
	}
	if n > s.opts.MaxGroup {
		return nil, errf(http.StatusBadRequest, CodeBadRequest, "n = %d is over the limit of %d", n, s.opts.MaxGroup)
	}
	if maxSteps < 0 {
		return nil, errf(http.StatusBadRequest, CodeBadRequest, "max_steps must not be negative")
	}
	if maxSteps == 0 {
		maxSteps = s.opts.MaxSteps
	}
	if err := s.memoryCheck(ctx); err != nil {
		s.stats.rejected.Add(1)
		return nil, err
	}
	if full, overQuota := s.table.reserve(owner, n, s.quota(owner)); full || overQuota {
		s.stats.rejected.Add(1)
		if overQuota {
			return nil, errQuota(owner, s.quota(owner))
		}
		return nil, errCapacity(s.table.max)
	}
	group := newID("grp_")
	eps := make([]*episode, 0, n)
	for range n {
		rep, err := env.NewEpisode(task, seed)
		if err == nil && s.opts.MaxMemoryBytes > 0 {
			// Under a memory cap an episode's memory is counted when it
			// is created: its connection is opened now, not at its first call.
			if err = rep.Connect(); err != nil {
				rep.Close()
			}
		}
		if err != nil {
			for _, e := range eps {
				e.close(context.Background())
			}
			s.table.release(owner, n)
			return nil, errf(http.StatusUnprocessableEntity, CodeEpisodeFailed, "%v", err)
		}
		ep := newEpisode(s.opts.IDPrefix, group, env, rep, maxSteps)
		ep.owner = owner
		ep.dropped = s.mem.dropped
		eps = append(eps, ep)
	}
	if err := s.userOpenings(ctx, eps); err != nil {
		for _, e := range eps {
			e.close(context.Background())
		}
		s.table.release(owner, n)
		return nil, err
	}
	s.table.add(eps, n)
	s.stats.created.Add(int64(n))
	return eps, nil
}

// use looks up an episode and takes its lock, waiting at most the call
// timeout or until the request ends.
func (s *Server) use(ctx context.Context, id string) (*episode, func(), error) {
	e := s.get(ctx, id)
	if e == nil {
		return nil, nil, errNoEpisode(id)
	}
	if err := e.acquire(ctx); err != nil {
		return nil, nil, errf(http.StatusServiceUnavailable, CodeBusy, "episode %s is busy: %v", id, err)
	}
	if e.ep == nil {
		e.release()
		return nil, nil, errNoEpisode(id)
	}
	return e, e.release, nil
}

// callCtx bounds a request's work by the server's call timeout.
func (s *Server) callCtx(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), s.opts.CallTimeout)
}

func errCapacity(max int) *apiError {
	e := errf(http.StatusTooManyRequests, CodeCapacity, "the server holds its maximum of %d episodes; retry later or delete episodes", max)
	e.retryAfter = 1
	return e
}

func errNoEpisode(id string) *apiError {
	return errf(http.StatusNotFound, CodeUnknownEpisode, "no episode %q (never created, deleted or reaped)", id)
}

func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "healthy", "episodes": s.table.len()})
}

func (s *Server) getStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Stats())
}

// Stats is a snapshot of the server's counters.
func (s *Server) Stats() Snapshot {
	return s.stats.snapshot(s.table.len(), s.table.max)
}

func itoa(n int) string { return strconv.Itoa(n) }
