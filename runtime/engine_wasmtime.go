//go:build wasmtime

package runtime

/*
#include <stdint.h>
#include <stdlib.h>

// From wasmtime/store.h and wasmtime/error.h (wasmtime-go v39 links the
// library; its headers are not on this package's include path).
typedef struct wasmtime_context wasmtime_context_t;
typedef struct wasmtime_store wasmtime_store_t;
typedef struct wasmtime_error wasmtime_error_t;
typedef uint8_t wasmtime_update_deadline_kind_t;
void wasmtime_store_epoch_deadline_callback(wasmtime_store_t *store,
	wasmtime_error_t *(*func)(wasmtime_context_t *, void *, uint64_t *, wasmtime_update_deadline_kind_t *),
	void *data, void (*finalizer)(void *));
wasmtime_error_t *wasmtime_error_new(const char *);

// wasmenv_deadline runs on the thread executing the store's wasm when the
// engine epoch passes the store's deadline: it traps if this store was
// interrupted, else moves the deadline to the next epoch and continues.
static wasmtime_error_t *wasmenv_deadline(wasmtime_context_t *cx, void *flag,
		uint64_t *delta, wasmtime_update_deadline_kind_t *kind) {
	if (__atomic_load_n((int32_t *)flag, __ATOMIC_SEQ_CST)) {
		return wasmtime_error_new("wasmenv: interrupted");
	}
	*delta = 1;
	*kind = 0; // WASMTIME_UPDATE_DEADLINE_CONTINUE
	return NULL;
}

// wasmenv_watch installs wasmenv_deadline on a store with a fresh flag, which
// the store frees when it is deleted.
static int32_t *wasmenv_watch(void *store) {
	int32_t *flag = calloc(1, sizeof *flag);
	if (flag) {
		wasmtime_store_epoch_deadline_callback(store, wasmenv_deadline, flag, free);
	}
	return flag;
}
*/
import "C"

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bytecodealliance/wasmtime-go/v39"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

func init() { engines["wasmtime"] = newWasmtimeEngine }

// wasmtimeEngine runs the module under wasmtime (cgo). One wasmtime engine
// per Env, one store per instance.
//
// Interruption is wasmtime's epoch interruption, aimed at one store: the
// code checks the engine epoch at function entries and loop headers; every
// store's deadline is always the next epoch, and its deadline callback (C,
// above) traps if the store's own flag is set and otherwise extends the
// deadline by one epoch. interrupt sets the flag (an atomic in C memory) and
// increments the epoch, which wasmtime documents as safe from any thread;
// the stores not interrupted pay one callback each. Nothing else touches a
// store from another goroutine: wasmtime stores are not thread-safe, so the
// instrumented wasmenv_interrupt global (whose Global.Set takes the store,
// mutably, while the call runs on another thread) is not used, and the
// module runs unrewritten. Its sched_yield calls are not needed either: a
// goroutine running wasm is in a cgo call, which does not hold up the Go
// garbage collector's stop-the-world.
//
// The wasmtime-go binding does not expose the deadline callback, so it is
// set through the C API, with the store's C pointer read by reflection;
// newWasmtimeEngine fails cleanly if a later binding changes that field.
type wasmtimeEngine struct {
	eng    *wasmtime.Engine
	mod    *wasmtime.Module
	memory int64 // bytes
}

func newWasmtimeEngine(_ context.Context, cfg engineConfig) (engine, error) {
	if len(cfg.mounts) > 0 {
		return nil, fmt.Errorf("wasmtime: %w", ErrPythonEngine)
	}
	if f, ok := reflect.TypeFor[wasmtime.Store]().FieldByName("_ptr"); !ok || f.Type.Kind() != reflect.Pointer {
		return nil, errors.New("wasmtime: this wasmtime-go version hides the store pointer that epoch interruption needs")
	}
	wc := wasmtime.NewConfig()
	wc.SetEpochInterruption(true)
	e := &wasmtimeEngine{eng: wasmtime.NewEngineWithConfig(wc), memory: int64(cfg.memoryPages) << 16}
	var err error
	if e.mod, err = e.compile(cfg); err != nil {
		e.eng.Close()
		return nil, fmt.Errorf("compile tool module: %w", err)
	}
	return e, nil
}

// compile compiles the module, or loads its compiled form from
// cacheDir/wasmtime-v39/<sha-256 of the module>.cwasm, which wasmtime
// refuses (and compile then rewrites) if another wasmtime version, CPU or
// configuration made it. Like wazero's cache, the directory is trusted:
// wasmtime loads its native code as it is.
func (e *wasmtimeEngine) compile(cfg engineConfig) (*wasmtime.Module, error) {
	if cfg.cacheDir == "" {
		return wasmtime.NewModule(e.eng, cfg.module)
	}
	dir := filepath.Join(cfg.cacheDir, "wasmtime-v39")
	sum := sha256.Sum256(cfg.module)
	path := filepath.Join(dir, fmt.Sprintf("%x.cwasm", sum))
	if m, err := wasmtime.NewModuleDeserializeFile(e.eng, path); err == nil {
		return m, nil
	}
	m, err := wasmtime.NewModule(e.eng, cfg.module)
	if err != nil {
		return nil, err
	}
	if b, err := m.Serialize(); err == nil && os.MkdirAll(dir, 0o755) == nil {
		if f, err := os.CreateTemp(dir, "tmp-*"); err == nil {
			_, werr := f.Write(b)
			if cerr := f.Close(); werr != nil || cerr != nil || os.Rename(f.Name(), path) != nil {
				os.Remove(f.Name())
			}
		}
	}
	return m, nil
}

func (e *wasmtimeEngine) close() error {
	e.mod.Close()
	e.eng.Close()
	return nil
}

// storePtr is the wasmtime_store_t of s (newWasmtimeEngine checked the
// field).
func storePtr(s *wasmtime.Store) unsafe.Pointer {
	return reflect.ValueOf(s).Elem().FieldByName("_ptr").UnsafePointer()
}

type wasmtimeGuest struct {
	eng            *wasmtime.Engine
	inst           *instance
	store          *wasmtime.Store
	caller         *wasmtime.Caller // during a host call
	mem            *wasmtime.Memory
	fbuffer, fcall *wasmtime.Func
	nanotime       int64     // fake monotonic clock, as wazero's default
	rand           io.Reader // fake random source, as wazero's default

	mu   sync.Mutex // interrupt against close
	flag *C.int32_t // set to interrupt; freed with the store
}

func (e *wasmtimeEngine) instantiate(_ context.Context, inst *instance) (guest, error) {
	g := &wasmtimeGuest{eng: e.eng, inst: inst, store: wasmtime.NewStore(e.eng), nanotime: -1e6,
		rand: rand.New(rand.NewSource(42))}
	fail := func(err error) (guest, error) {
		g.store.Close()
		return nil, fmt.Errorf("instantiate tool module: %w", wasmtimeErr(err))
	}
	if g.flag = C.wasmenv_watch(storePtr(g.store)); g.flag == nil {
		return fail(errors.New("out of memory"))
	}
	g.store.SetEpochDeadline(1)
	g.store.Limiter(e.memory, -1, -1, -1, -1)
	// WASI with no files, environment or arguments; stdout and stderr
	// default to a sink.
	g.store.SetWasi(wasmtime.NewWasiConfig())
	l := wasmtime.NewLinker(e.eng)
	defer l.Close()
	if err := l.DefineWasi(); err != nil {
		return fail(err)
	}
	l.AllowShadowing(true)
	for _, f := range hostFuncs {
		if err := l.Define(g.store, wire.HostModule, f.name, g.hostFunc(inst, f)); err != nil {
			return fail(err)
		}
	}
	for _, f := range g.wasiFuncs(inst) {
		if err := l.Define(g.store, "wasi_snapshot_preview1", f.name, g.hostFunc(inst, f)); err != nil {
			return fail(err)
		}
	}
	in, err := l.Instantiate(g.store, e.mod)
	if err != nil {
		return fail(err)
	}
	if ex := in.GetExport(g.store, "memory"); ex != nil {
		g.mem = ex.Memory()
	}
	g.fbuffer, g.fcall = in.GetFunc(g.store, wire.ExportBuffer), in.GetFunc(g.store, wire.ExportCall)
	start := in.GetFunc(g.store, "_initialize")
	if g.fbuffer == nil || g.fcall == nil || g.mem == nil || start == nil {
		g.store.Close()
		return nil, errors.New("tool module lacks wasmenv_buffer/wasmenv_call exports (not built by wasmenv?)")
	}
	// _initialize is bounded like a call: a hostile module could loop there.
	timer := time.AfterFunc(initTimeout, g.interrupt)
	_, err = start.Call(g.store)
	if !timer.Stop() && err == nil {
		err = errors.New("interrupted")
	}
	if err != nil {
		g.store.Close()
		return nil, fmt.Errorf("tool module initialization failed or did not finish within %s: %w", initTimeout, wasmtimeErr(err))
	}
	return g, nil
}

// hostFunc makes f a function of g's store. It finds its instance by
// closure, and lets read and write use the caller's store context.
func (g *wasmtimeGuest) hostFunc(inst *instance, f hostFunc) *wasmtime.Func {
	ty := wasmtime.NewFuncType(wasmtimeTypes(f.params), wasmtimeTypes(f.results))
	return wasmtime.NewFunc(g.store, ty, func(c *wasmtime.Caller, args []wasmtime.Val) ([]wasmtime.Val, *wasmtime.Trap) {
		var s [4]uint64
		for i, a := range args {
			if a.Kind() == wasmtime.KindI64 {
				s[i] = uint64(a.I64())
			} else {
				s[i] = uint64(uint32(a.I32()))
			}
		}
		outer := g.caller
		g.caller = c
		f.call(inst, s[:])
		g.caller = outer
		switch f.results {
		case "i":
			return []wasmtime.Val{wasmtime.ValI32(int32(s[0]))}, nil
		case "I":
			return []wasmtime.Val{wasmtime.ValI64(int64(s[0]))}, nil
		}
		return nil, nil
	})
}

func wasmtimeTypes(sig string) []*wasmtime.ValType {
	var ts []*wasmtime.ValType
	for _, c := range sig {
		if c == 'I' {
			ts = append(ts, wasmtime.NewValType(wasmtime.KindI64))
		} else {
			ts = append(ts, wasmtime.NewValType(wasmtime.KindI32))
		}
	}
	return ts
}

// WASI errno values.
const (
	wasiBadf  = 8
	wasiFault = 21
	wasiInval = 28
)

// wasiFuncs replace wasmtime's WASI functions where wazero's behaviour
// differs: the wall clock is the episode clock; the monotonic clock, sleeps
// and random bytes are wazero's deterministic defaults (1 ms per reading,
// no sleeping, math/rand seeded with 42); stdout is discarded and stderr
// captured (wasmtime's WASI can only write them to files or the host's).
func (g *wasmtimeGuest) wasiFuncs(inst *instance) []hostFunc {
	return []hostFunc{
		{"clock_time_get", "iIi", "i", func(_ *instance, s []uint64) {
			var ns int64
			switch s[0] {
			case 0: // realtime
				ns = inst.clockNanos()
			case 1: // monotonic
				g.nanotime += 1e6
				ns = g.nanotime
			default:
				s[0] = wasiInval
				return
			}
			s[0] = g.put(uint32(s[2]), binary.LittleEndian.AppendUint64(nil, uint64(ns)))
		}},
		{"random_get", "ii", "i", func(_ *instance, s []uint64) {
			b, ok := g.read(uint32(s[0]), uint32(s[1]))
			if !ok {
				s[0] = wasiFault
				return
			}
			io.ReadFull(g.rand, b)
			s[0] = 0
		}},
		{"fd_write", "iiii", "i", func(_ *instance, s []uint64) {
			fd, iovs, n := uint32(s[0]), uint32(s[1]), uint32(s[2])
			if fd != 1 && fd != 2 {
				s[0] = wasiBadf
				return
			}
			vec, ok := g.read(iovs, n*8)
			if !ok {
				s[0] = wasiFault
				return
			}
			vec = append([]byte(nil), vec...)
			total := uint32(0)
			for i := range n {
				p, k := binary.LittleEndian.Uint32(vec[8*i:]), binary.LittleEndian.Uint32(vec[8*i+4:])
				b, ok := g.read(p, k)
				if !ok {
					s[0] = wasiFault
					return
				}
				if fd == 2 {
					inst.stderr.Write(b)
				}
				total += k
			}
			s[0] = g.put(uint32(s[3]), binary.LittleEndian.AppendUint32(nil, total))
		}},
		{"poll_oneoff", "iiii", "i", func(_ *instance, s []uint64) {
			in, out, n := uint32(s[0]), uint32(s[1]), uint32(s[2])
			subs, ok := g.read(in, n*48)
			if n == 0 {
				s[0] = wasiInval
				return
			} else if !ok {
				s[0] = wasiFault
				return
			}
			subs = append([]byte(nil), subs...)
			events := make([]byte, 32*n)
			for i := range n {
				sub, ev := subs[48*i:], events[32*i:]
				copy(ev, sub[:8]) // userdata
				ev[10] = sub[8]   // type
				fd := binary.LittleEndian.Uint32(sub[16:])
				if sub[8] != 0 && (sub[8] != 2 || fd != 1 && fd != 2) {
					ev[8] = wasiBadf // only clocks and stdout/stderr writes
				}
			}
			if s[0] = g.put(out, events); s[0] == 0 {
				s[0] = g.put(uint32(s[3]), binary.LittleEndian.AppendUint32(nil, n))
			}
		}},
	}
}

// put writes b at ptr and returns a WASI errno.
func (g *wasmtimeGuest) put(ptr uint32, b []byte) uint64 {
	if !g.write(ptr, b) {
		return wasiFault
	}
	return 0
}

func (g *wasmtimeGuest) ctx() wasmtime.Storelike {
	if g.caller != nil {
		return g.caller
	}
	return g.store
}

func (g *wasmtimeGuest) buffer(_ context.Context, n uint32) (uint32, error) {
	r, err := g.fbuffer.Call(g.store, int32(n))
	if err != nil {
		return 0, g.callErr(err)
	}
	return uint32(r.(int32)), nil
}

func (g *wasmtimeGuest) call(_ context.Context, tool, n uint32) (uint64, error) {
	r, err := g.fcall.Call(g.store, int32(tool), int32(n))
	if err != nil {
		return 0, g.callErr(err)
	}
	return uint64(r.(int64)), nil
}

func (g *wasmtimeGuest) read(ptr, n uint32) ([]byte, bool) {
	mem := g.mem.UnsafeData(g.ctx())
	if uint64(ptr)+uint64(n) > uint64(len(mem)) {
		return nil, false
	}
	return mem[ptr : ptr+n : ptr+n], true
}

func (g *wasmtimeGuest) write(ptr uint32, b []byte) bool {
	if uint64(len(b)) > math.MaxUint32 {
		return false
	}
	mem, ok := g.read(ptr, uint32(len(b)))
	copy(mem, b)
	return ok
}

func (g *wasmtimeGuest) interrupt() {
	g.mu.Lock()
	if g.flag != nil {
		atomic.StoreInt32((*int32)(unsafe.Pointer(g.flag)), 1)
		g.eng.IncrementEpoch()
	}
	g.mu.Unlock()
}

func (g *wasmtimeGuest) close() {
	g.mu.Lock()
	g.flag = nil // freed by the store
	g.store.Close()
	g.mu.Unlock()
}

// wasmtimeErr is a wasmtime error without its backtraces: the cause, or
// the exit code of an exit.
func wasmtimeErr(err error) error {
	var we *wasmtime.Error
	if errors.As(err, &we) {
		if code, ok := we.ExitStatus(); ok {
			return fmt.Errorf("exit code %d", code)
		}
	}
	msg := err.Error()
	if _, cause, ok := strings.Cut(msg, "Caused by:"); ok {
		msg = strings.TrimSpace(cause)
	}
	msg, _, _ = strings.Cut(msg, "\n")
	return errors.New(strings.TrimSpace(msg))
}

// callErr is the error of a call. A stack overflow is reported on the
// guest's stderr, where instance.explain looks for one: wasmtime's native
// stack (512 KiB) runs out where wazero's grows on until the Go runtime's own
// stack or memory limit reports the runaway recursion there.
func (g *wasmtimeGuest) callErr(err error) error {
	var trap *wasmtime.Trap
	if errors.As(err, &trap) {
		if c := trap.Code(); c != nil && *c == wasmtime.StackOverflow {
			g.inst.stderr.Write([]byte("\nwasm stack overflow\n"))
		}
	}
	return wasmtimeErr(err)
}
