package runtime

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3/vfs/mvcc"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Options configure Load.
type Options struct {
	// CompileCacheDir caches wazero's compiled machine code. Default: the
	// user cache dir + /wasmenv/wazero. "off" disables the cache.
	CompileCacheDir string
	// Engine is the WebAssembly engine: "wazero" (default) or, in builds
	// with the wasmtime tag, "wasmtime". See Engines.
	Engine string
	// PoolSize is how many idle module instances are kept. Default 2×GOMAXPROCS.
	PoolSize int
	// Log receives guest log lines (sdk.Log). Nil discards them.
	Log func(env string, line string)
	// MaxCallTimeout, MaxMemoryMB and MaxOutputBytes cap the limits a
	// bundle asks for (server-side overrides); zero keeps the bundle's.
	// Whatever they say, a bundle gets at most 10 minutes, 4096 MiB and
	// 64 MiB (envpkg.Max*).
	MaxCallTimeout time.Duration
	MaxMemoryMB    int
	MaxOutputBytes int
	// MaxWriteMB is the default write budget of an episode (how far its
	// database may grow over its initial state) and the cap on a bundle's
	// max_write_mb (default 256 MiB, at most 4096).
	MaxWriteMB int
	// MaxCallWriteRows and MaxCallWriteBytes cap what one tool call
	// writes, its triggers' writes included: rows inserted, updated or
	// deleted (default 100,000) and the bytes of their new values (default
	// 64 MiB). Past either the call is stopped mid-statement, undone, and
	// answers OutcomeQuota (writecap.go).
	MaxCallWriteRows  int64
	MaxCallWriteBytes int64
	// SQLTimeout bounds each piece of bundle SQL run outside tool calls:
	// a task's setup, each check, the export views of a diff or state hash
	// (default 10s, at most 10m).
	SQLTimeout time.Duration
	// WallGuard is the wall-clock guard on each tool call and each piece
	// of bundle SQL. Limits count work, the same on a quiet and a busy
	// machine (work.go); wall time stops only what a host too slow or
	// wedged cannot finish, as the environment's failure, never the
	// agent's. Default: 10× the limit, at least a minute.
	WallGuard time.Duration
	// SQLMemoryMB bounds the SQLite heap of each episode's connection
	// (default 256 MiB, at most 4095). Running out is an error, never a panic.
	SQLMemoryMB int
	// ConnPool is how many idle SQLite connections, rolled back to an
	// initial state, are kept for the next episodes however long unused
	// (default 4×GOMAXPROCS); more are kept under load, each closed after a
	// second unused. Negative: none, every episode opens its own.
	ConnPool int
	// MaxConns is how many SQLite connections episodes may hold between
	// their steps (default 4 per processor, at least 16: connections
	// touched in turn are memory-bound, see park.go). Past it, an episode
	// that ends a step (a call, a diff, a state hash, a score) keeps its
	// state without a connection, a few KiB plus the pages it wrote, and takes one again
	// at its next step (park.go): 10,000 episodes waiting for their agents
	// need ~0.3 GiB instead of ~8 GiB, for a few µs more per step while
	// over it. Negative: no limit, every episode keeps its connection from
	// its first step to Close.
	MaxConns int
	// PartialCredit scores every environment by the fraction of its
	// checks passed, also those whose manifest asks for all or nothing
	// (credit: all, τ-bench's ports).
	PartialCredit bool
}

// Env is a loaded bundle: compiled tool code, the base database snapshot,
// and a pool of module instances. It is safe for concurrent use.
type Env struct {
	Bundle *envpkg.Bundle

	eng         engine
	dog         *watchdog
	pool        chan *instance
	live        atomic.Int64  // instances in existence, at most cap(pool)
	freed       chan struct{} // an instance was discarded
	limits      envpkg.Limits
	callTimeout time.Duration
	epoch       int64 // episode clock start, unix ns
	tools       map[string]int
	schemas     []*jsonschema.Schema
	schemaNodes []int             // per tool: the size of its schema (validateWithin)
	fast        []*fastSchema     // per tool: the hot-path validator, or nil
	required    []map[string]bool // per tool: its required top-level arguments
	views       []view
	// trackedTables are the tables of views with a tracked path: the rows
	// written to them are recorded (tracking.go).
	trackedTables map[string]bool
	// rowTables are main's tables, rowid and WITHOUT ROWID, by lower-cased
	// name: the tables WrittenFunc answers for (all of them are tracked).
	rowTables map[string]string
	// keyedTables are the WITHOUT ROWID tables, tracked by key.
	keyedTables map[string]keyedTable
	log         func(string, string)
	id          int64
	sqlMemoryMB int
	sqlTimeout  time.Duration
	sqlWall     time.Duration // the wall-clock guard on bundle SQL
	callWall    time.Duration // the wall-clock guard on a call
	// callWriteRows and callWriteBytes cap one call's writes (writecap.go).
	callWriteRows, callWriteBytes int64
	// allOrNothing: a reward is 1 or 0 (Manifest.Credit all, unless
	// Options.PartialCredit)
	allOrNothing bool

	// initCanons: the canonical forms of initial records diffs compared
	// against (initcanon.go)
	initCanons initCanons

	mu       sync.Mutex
	inits    map[string]*initState // by task id ("" = no task)
	gtHashes map[gtKey]string
	epSeq    atomic.Int64
	closed   atomic.Bool

	connPool  int          // idle connections kept at least (Options.ConnPool; connpool.go)
	idleConns atomic.Int64 // idle connections kept now, all initial states
	liveConns atomic.Int64 // connections episodes hold (park.go)
	maxConns  int64        // Options.MaxConns; -1: no limit (0: park at every step, for tests)
	trimming  atomic.Bool  // a trimConns is scheduled
}

type gtKey struct {
	task string
	seed int64
}

// initState is an episode's initial state: the base snapshot, or the base
// with a task's setup applied. Its mvcc database stays registered so that
// episodes can attach it read-only as "init".
type initState struct {
	name  string
	id    string // what InitFunc answers: unique in the process (initname.go)
	snap  mvcc.Snapshot
	ready chan struct{} // closed once snap or err is set (see initFor)
	err   error
	conns connPool // idle connections over this state (sqlconn.go)
}

var envSeq atomic.Int64

// Load reads, validates and loads a bundle file.
func Load(ctx context.Context, path string, opts Options) (*Env, error) {
	b, err := envpkg.Read(path)
	if err != nil {
		return nil, err
	}
	return LoadBundle(ctx, b, opts)
}

// DefaultCompileCacheDir is where wazero's compiled code is cached.
func DefaultCompileCacheDir() string {
	if d := os.Getenv("WASMENV_CACHE"); d != "" {
		return filepath.Join(d, "wazero")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "wasmenv", "wazero")
	}
	return ""
}

// LoadBundle loads a decoded bundle.
func LoadBundle(ctx context.Context, b *envpkg.Bundle, opts Options) (*Env, error) {
	if err := envpkg.CheckModule(b.Module); err != nil {
		return nil, err
	}
	module, mounts, err := guestCode(b)
	if err != nil {
		return nil, err
	}
	m := &b.Manifest
	e := &Env{
		Bundle:      b,
		limits:      capLimits(m.Limits, opts),
		epoch:       m.Clock.UnixNano(),
		tools:       map[string]int{},
		log:         opts.Log,
		id:          envSeq.Add(1),
		inits:       map[string]*initState{},
		gtHashes:    map[gtKey]string{},
		sqlMemoryMB: min(opts.SQLMemoryMB, maxSQLMemoryMB),
	}
	e.callWriteRows, e.callWriteBytes = cmp.Or(max(opts.MaxCallWriteRows, 0), defaultCallWriteRows), cmp.Or(max(opts.MaxCallWriteBytes, 0), defaultCallWriteBytes)
	e.allOrNothing = m.Credit == envpkg.CreditAll && !opts.PartialCredit
	e.connPool = opts.ConnPool
	switch e.maxConns = int64(opts.MaxConns); {
	case e.maxConns == 0:
		e.maxConns = int64(defaultMaxConns())
	case e.maxConns < 0:
		e.maxConns = -1
	}
	if e.connPool == 0 {
		e.connPool = defaultConnPool * goruntime.GOMAXPROCS(0)
	}
	e.sqlTimeout = opts.SQLTimeout
	if e.sqlTimeout <= 0 {
		e.sqlTimeout = defaultSQLTimeout
	}
	e.sqlTimeout = min(e.sqlTimeout, maxSQLTimeout)
	if e.sqlMemoryMB <= 0 {
		e.sqlMemoryMB = defaultSQLMemoryMB
	}
	e.callTimeout = time.Duration(e.limits.CallTimeoutMS) * time.Millisecond
	e.sqlWall, e.callWall = wallGuard(e.sqlTimeout, opts.WallGuard), wallGuard(e.callTimeout, opts.WallGuard)
	size := opts.PoolSize
	if size <= 0 {
		size = 2 * goruntime.GOMAXPROCS(0)
	}
	e.pool = make(chan *instance, size)
	e.freed = make(chan struct{}, 1)

	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // a bundle's schemas may not load files or URLs
	for i, t := range m.Tools {
		e.tools[t.Name] = i
		nodes, err := checkSchema(t.InputSchema)
		e.schemaNodes = append(e.schemaNodes, nodes)
		if err != nil {
			return nil, fmt.Errorf("tool %s: schema: %w", t.Name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.InputSchema))
		if err != nil {
			return nil, fmt.Errorf("tool %s: schema: %w", t.Name, err)
		}
		url := fmt.Sprintf("wasmenv:///tools/%s.json", t.Name)
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		s, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("tool %s: schema: %w", t.Name, err)
		}
		e.schemas = append(e.schemas, s)
		e.fast = append(e.fast, compileFast(t.InputSchema))
		var top struct {
			Required []string `json:"required"`
		}
		json.Unmarshal(t.InputSchema, &top)
		req := map[string]bool{}
		for _, r := range top.Required {
			req[r] = true
		}
		e.required = append(e.required, req)
	}

	dir := opts.CompileCacheDir
	if dir == "" {
		dir = DefaultCompileCacheDir()
	}
	if dir == "off" {
		dir = ""
	}
	eng, err := newEngine(ctx, opts.Engine, engineConfig{
		module:      module,
		memoryPages: uint32(e.limits.MemoryMB) * 16, // 64 KiB pages
		cacheDir:    dir,
		mounts:      mounts,
	})
	if err != nil {
		return nil, err
	}
	e.eng = eng
	e.dog = newWatchdog(e.callWall)

	base := &initState{name: fmt.Sprintf("wasmenv-%d-init", e.id), id: newInitID(), snap: mvcc.NewSnapshot(sharedString(b.DB)), ready: closedChan}
	mvcc.Create(base.name, base.snap)
	e.inits[""] = base
	if e.views, err = e.loadViews(ctx); err != nil {
		e.Close()
		return nil, err
	}
	e.trackedTables = map[string]bool{}
	for _, name := range e.rowTables {
		e.trackedTables[name] = true
	}
	for _, v := range e.views {
		if v.tracked != nil {
			e.trackedTables[v.tracked.table] = true
		}
	}
	// One warm instance proves the module runs and makes the first call fast.
	inst, err := e.newInstance(ctx)
	if err != nil {
		e.Close()
		return nil, err
	}
	e.live.Add(1)
	e.putInstance(inst)
	return e, nil
}

// Name is the environment's name.
func (e *Env) Name() string { return e.Bundle.Manifest.Name }

// HistoryIsolated reports whether the bundle's module was built with the
// guest patches that keep map order and printed addresses from following
// what ran before on an instance (docs/ARCHITECTURE.md, "Isolation between
// episodes"). Bundles built before them run, without that guarantee:
// rebuild them.
func (e *Env) HistoryIsolated() bool { return e.Bundle.Manifest.GuestPatches > 0 }

// Tools lists the tools in MCP form.
func (e *Env) Tools() []envpkg.Tool { return e.Bundle.Manifest.Tools }

// Close releases the runtime and the snapshots. Episodes must be closed first.
func (e *Env) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	close(e.pool)
	for inst := range e.pool {
		inst.discard()
	}
	e.mu.Lock()
	for _, s := range e.inits {
		e.closeConns(s)
		mvcc.Delete(s.name)
	}
	e.inits = nil
	e.mu.Unlock()
	e.dog.close()
	return e.eng.close()
}

// getInstance takes an idle instance, or makes one while fewer than the
// pool size exist, or waits for one: with more callers than cores, making
// instances for callers the scheduler has preempted only churns memory.
func (e *Env) getInstance(ctx context.Context) (*instance, error) {
	for {
		select {
		case inst, ok := <-e.pool:
			if ok {
				return inst, nil
			}
			return nil, ErrClosed
		default:
		}
		if n := e.live.Load(); n < int64(cap(e.pool)) {
			if !e.live.CompareAndSwap(n, n+1) {
				continue
			}
			inst, err := e.newInstance(ctx)
			if err != nil {
				e.live.Add(-1)
				select { // the slot is free again: wake a waiter
				case e.freed <- struct{}{}:
				default:
				}
			}
			return inst, err
		}
		select {
		case inst, ok := <-e.pool:
			if ok {
				return inst, nil
			}
			return nil, ErrClosed
		case <-e.freed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (e *Env) putInstance(inst *instance) {
	if e.closed.Load() {
		inst.discard()
		return
	}
	defer func() {
		if recover() != nil { // pool closed concurrently
			inst.discard()
		}
	}()
	select {
	case e.pool <- inst:
	default:
		inst.discard()
	}
}
