package runtime

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/vfs/mvcc"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Options configure Load.
type Options struct {
	// CompileCacheDir caches wazero's compiled machine code. Default: the
	// user cache dir + /wasmenv/wazero. "off" disables the cache.
	CompileCacheDir string
	// PoolSize is how many idle module instances are kept. Default 2×GOMAXPROCS.
	PoolSize int
	// Log receives guest log lines (sdk.Log). Nil discards them.
	Log func(env string, line string)
}

// Env is a loaded bundle: compiled tool code, the base database snapshot,
// and a pool of module instances. It is safe for concurrent use.
type Env struct {
	Bundle *envpkg.Bundle

	rt          wazero.Runtime
	compiled    wazero.CompiledModule
	pool        chan *instance
	limits      envpkg.Limits
	callTimeout time.Duration
	epoch       int64 // episode clock start, unix ns
	tools       map[string]int
	schemas     []*jsonschema.Schema
	views       []view
	log         func(string, string)
	id          int64

	mu       sync.Mutex
	inits    map[string]*initState // by task id ("" = no task)
	gtHashes map[gtKey]string
	epSeq    atomic.Int64
	closed   atomic.Bool
}

type gtKey struct {
	task string
	seed int64
}

// initState is an episode's initial state: the base snapshot, or the base
// with a task's setup applied. Its mvcc database stays registered so that
// episodes can attach it read-only as "init".
type initState struct {
	name string
	snap mvcc.Snapshot
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
	m := &b.Manifest
	e := &Env{
		Bundle:      b,
		limits:      m.Limits,
		callTimeout: time.Duration(m.Limits.CallTimeoutMS) * time.Millisecond,
		epoch:       m.Clock.UnixNano(),
		tools:       map[string]int{},
		log:         opts.Log,
		id:          envSeq.Add(1),
		inits:       map[string]*initState{},
		gtHashes:    map[gtKey]string{},
	}
	size := opts.PoolSize
	if size <= 0 {
		size = 2 * goruntime.GOMAXPROCS(0)
	}
	e.pool = make(chan *instance, size)

	c := jsonschema.NewCompiler()
	for i, t := range m.Tools {
		e.tools[t.Name] = i
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
	}

	cfg := wazero.NewRuntimeConfigCompiler().
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(m.Limits.MemoryMB) * 16) // 64 KiB pages
	dir := opts.CompileCacheDir
	if dir == "" {
		dir = DefaultCompileCacheDir()
	}
	if dir != "" && dir != "off" {
		if cache, err := wazero.NewCompilationCacheWithDir(dir); err == nil {
			cfg = cfg.WithCompilationCache(cache)
		}
	}
	e.rt = wazero.NewRuntimeWithConfig(ctx, cfg)
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, e.rt); err != nil {
		e.rt.Close(ctx)
		return nil, err
	}
	if err := e.instantiateHost(ctx); err != nil {
		e.rt.Close(ctx)
		return nil, err
	}
	compiled, err := e.rt.CompileModule(ctx, b.Module)
	if err != nil {
		e.rt.Close(ctx)
		return nil, fmt.Errorf("compile tool module: %w", err)
	}
	e.compiled = compiled

	base := &initState{name: fmt.Sprintf("wasmenv-%d-init", e.id), snap: mvcc.NewSnapshot(string(b.DB))}
	mvcc.Create(base.name, base.snap)
	e.inits[""] = base
	if e.views, err = e.loadViews(ctx); err != nil {
		e.Close()
		return nil, err
	}
	// One warm instance proves the module runs and makes the first call fast.
	inst, err := e.newInstance(ctx)
	if err != nil {
		e.Close()
		return nil, err
	}
	e.putInstance(inst)
	return e, nil
}

// Name is the environment's name.
func (e *Env) Name() string { return e.Bundle.Manifest.Name }

// Tools lists the tools in MCP form.
func (e *Env) Tools() []envpkg.Tool { return e.Bundle.Manifest.Tools }

// Close releases the runtime and the snapshots. Episodes must be closed first.
func (e *Env) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	close(e.pool)
	for inst := range e.pool {
		inst.mod.Close(context.Background())
	}
	e.mu.Lock()
	for _, s := range e.inits {
		mvcc.Delete(s.name)
	}
	e.inits = nil
	e.mu.Unlock()
	return e.rt.Close(context.Background())
}

func (e *Env) getInstance(ctx context.Context) (*instance, error) {
	select {
	case inst, ok := <-e.pool:
		if ok {
			return inst, nil
		}
		return nil, errClosed
	default:
		return e.newInstance(ctx)
	}
}

func (e *Env) putInstance(inst *instance) {
	if e.closed.Load() {
		inst.mod.Close(context.Background())
		return
	}
	defer func() {
		if recover() != nil { // pool closed concurrently
			inst.mod.Close(context.Background())
		}
	}()
	select {
	case e.pool <- inst:
	default:
		inst.mod.Close(context.Background())
	}
}

// initFor returns the initial state of a task, applying its setup once.
func (e *Env) initFor(task *envpkg.Task) (*initState, error) {
	key := ""
	if task != nil && task.Setup != "" {
		key = task.ID
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.inits == nil {
		return nil, errClosed
	}
	if s, ok := e.inits[key]; ok {
		return s, nil
	}
	s := &initState{name: fmt.Sprintf("wasmenv-%d-init-%s", e.id, key)}
	mvcc.Create(s.name, e.inits[""].snap)
	conn, err := sqlite3.OpenFlags("file:/"+s.name+"?vfs=mvcc", sqlite3.OPEN_READWRITE|sqlite3.OPEN_URI)
	if err == nil {
		err = conn.Exec(task.Setup)
		conn.Close()
	}
	if err != nil {
		mvcc.Delete(s.name)
		return nil, fmt.Errorf("task %s: setup: %w", task.ID, err)
	}
	s.snap = mvcc.TakeSnapshot(s.name)
	e.inits[key] = s
	return s, nil
}
