package runtime

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// wazeroEngine runs the module under wazero. The module is rewritten with a
// cheap interrupt check at every loop header (instrumentLoops); only if
// that fails does it fall back to wazero's WithCloseOnContextDone, which
// is correct but several times slower per call.
type wazeroEngine struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
	fallback bool            // no loop checks: interrupt through the context
	fs       wazero.FSConfig // nil: no files (Go tool modules)
}

func newWazeroEngine(ctx context.Context, cfg engineConfig) (engine, error) {
	module, err := instrumentLoops(cfg.module)
	fallback := err != nil
	if fallback {
		module = cfg.module
	}
	rc := wazero.NewRuntimeConfigCompiler().
		WithCloseOnContextDone(fallback).
		WithMemoryLimitPages(cfg.memoryPages)
	if cfg.cacheDir != "" && guestListener == nil { // cached code has no listener calls
		if cache, err := wazero.NewCompilationCacheWithDir(cfg.cacheDir); err == nil {
			rc = rc.WithCompilationCache(cache)
		}
	}
	e := &wazeroEngine{rt: wazero.NewRuntimeWithConfig(ctx, rc), fallback: fallback, fs: guestFS(cfg.mounts)}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, e.rt); err != nil {
		e.rt.Close(ctx)
		return nil, err
	}
	host := e.rt.NewHostModuleBuilder(wire.HostModule)
	for _, f := range hostFuncs {
		host = host.NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, _ api.Module, s []uint64) {
			f.call(instanceOf(ctx), s)
		}), wazeroTypes(f.params), wazeroTypes(f.results)).Export(f.name)
	}
	_, err = host.Instantiate(ctx)
	if err != nil {
		e.rt.Close(ctx)
		return nil, err
	}
	if guestListener != nil {
		ctx = experimental.WithFunctionListenerFactory(ctx, guestListener)
	}
	if e.compiled, err = e.rt.CompileModule(ctx, module); err != nil {
		e.rt.Close(ctx)
		return nil, fmt.Errorf("compile tool module: %w", err)
	}
	return e, nil
}

// guestListener, when a test sets it, is told of every guest function
// call (BenchmarkGuestWork counts the guest's work per tool call with it).
var guestListener experimental.FunctionListenerFactory

// wazeroTypes maps a hostFunc signature to wazero's value types.
func wazeroTypes(sig string) []api.ValueType {
	var ts []api.ValueType
	for _, c := range sig {
		if c == 'I' {
			ts = append(ts, api.ValueTypeI64)
		} else {
			ts = append(ts, api.ValueTypeI32)
		}
	}
	return ts
}

func (e *wazeroEngine) close() error { return e.rt.Close(context.Background()) }

// callCtx is the context of a guest call: host functions find their
// instance in it without a context chain walk.
type callCtx struct {
	context.Context
	inst *instance
}

type instKey struct{}

func (c *callCtx) Value(k any) any {
	if _, ok := k.(instKey); ok {
		return c.inst
	}
	return c.Context.Value(k)
}

func instanceOf(ctx context.Context) *instance {
	if c, ok := ctx.(*callCtx); ok {
		return c.inst
	}
	inst, _ := ctx.Value(instKey{}).(*instance)
	return inst
}

func (e *wazeroEngine) instantiate(ctx context.Context, inst *instance) (guest, error) {
	g := &wazeroGuest{cctx: callCtx{Context: context.Background(), inst: inst}, fallback: e.fallback}
	cfg := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(). // _initialize runs below, under a time limit
		WithStderr(&inst.stderr).
		// sched_yield, which instrumentLoops calls every yieldEvery loop
		// iterations, lets the Go scheduler run other goroutines (the
		// watchdog among them) and reach its stop-the-world safepoints.
		// Each also counts against the running call's work (work.go).
		WithOsyield(func() { inst.yielded(); goruntime.Gosched() }).
		WithWalltime(func() (int64, int32) {
			// wazero passes no context here; the instance knows its episode.
			ns := inst.clockNanos()
			return ns / 1e9, int32(ns % 1e9)
		}, sys.ClockResolution(1000))
	if e.fs != nil {
		cfg = cfg.WithFSConfig(e.fs)
	}
	mod, err := e.rt.InstantiateModule(ctx, e.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiate tool module: %w", err)
	}
	g.mod, g.mem = mod, mod.Memory()
	g.fbuffer = mod.ExportedFunction(wire.ExportBuffer)
	g.fcall = mod.ExportedFunction(wire.ExportCall)
	if g.fbuffer == nil || g.fcall == nil || g.mem == nil {
		mod.Close(ctx)
		return nil, errors.New("tool module lacks wasmenv_buffer/wasmenv_call exports (not built by wasmenv?)")
	}
	if !e.fallback {
		gl, ok := mod.ExportedGlobal(interruptGlobal).(api.MutableGlobal)
		if !ok {
			mod.Close(ctx)
			return nil, errors.New("instrumented module lacks its interrupt global")
		}
		g.intr = gl
	}
	if err := g.initialize(ctx); err != nil {
		mod.Close(ctx)
		return nil, err
	}
	return g, nil
}

// initTimeout bounds a module's _initialize (the Go runtime's start-up):
// a hostile bundle could loop there before any call's watchdog exists.
var initTimeout = 10 * time.Second

func (g *wazeroGuest) initialize(ctx context.Context) error {
	f := g.mod.ExportedFunction("_initialize")
	if f == nil {
		return nil
	}
	ictx, cancel := context.WithTimeout(ctx, initTimeout) // the fallback mode watches ctx
	defer cancel()
	var timer *time.Timer
	if g.intr != nil {
		timer = time.AfterFunc(initTimeout, func() { g.intr.Set(1) })
	}
	_, err := f.Call(ictx)
	if timer != nil && !timer.Stop() && err == nil {
		err = errors.New("interrupted") // the timer fired as it returned: not usable
	}
	if err != nil {
		return fmt.Errorf("tool module initialization failed or did not finish within %s: %w", initTimeout, err)
	}
	return nil
}

type wazeroGuest struct {
	mod            api.Module
	mem            api.Memory
	fbuffer, fcall api.Function
	intr           api.MutableGlobal
	cctx           callCtx
	stack          [2]uint64
	fallback       bool

	mu     sync.Mutex // fallback only: the running call's cancel
	cancel context.CancelFunc
	stop   bool
}

func (g *wazeroGuest) invoke(ctx context.Context, f api.Function) error {
	if !g.fallback {
		g.cctx.Context = ctx
		err := f.CallWithStack(&g.cctx, g.stack[:])
		g.cctx.Context = context.Background()
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	g.mu.Lock()
	g.cancel = cancel
	if g.stop {
		cancel()
	}
	g.mu.Unlock()
	g.cctx.Context = ctx
	err := f.CallWithStack(&g.cctx, g.stack[:])
	g.cctx.Context = context.Background()
	g.mu.Lock()
	g.cancel = nil
	g.mu.Unlock()
	cancel()
	return err
}

func (g *wazeroGuest) buffer(ctx context.Context, n uint32) (uint32, error) {
	g.stack[0] = uint64(n)
	err := g.invoke(ctx, g.fbuffer)
	return uint32(g.stack[0]), err
}

func (g *wazeroGuest) call(ctx context.Context, tool, n uint32) (uint64, error) {
	g.stack[0], g.stack[1] = uint64(tool), uint64(n)
	err := g.invoke(ctx, g.fcall)
	return g.stack[0], err
}

func (g *wazeroGuest) read(ptr, n uint32) ([]byte, bool) { return g.mem.Read(ptr, n) }
func (g *wazeroGuest) write(ptr uint32, b []byte) bool   { return g.mem.Write(ptr, b) }
func (g *wazeroGuest) close()                            { g.mod.Close(context.Background()) }

func (g *wazeroGuest) interrupt() {
	if !g.fallback {
		g.intr.Set(1)
		return
	}
	g.mu.Lock()
	g.stop = true
	if g.cancel != nil {
		g.cancel()
	}
	g.mu.Unlock()
}
