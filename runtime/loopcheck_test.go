package runtime

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// spinModule is a module whose exported "spin" loops forever:
// (import "wasi_snapshot_preview1" "sched_yield" (func (result i32)))
// (func (export "spin") (loop (br 0))), with an empty global section.
func spinModule() []byte {
	m := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	section := func(id byte, body ...byte) { m = append(append(append(m, id), byte(len(body))), body...) }
	section(1, 2, 0x60, 0, 0, 0x60, 0, 1, 0x7F) // types: () -> (), () -> i32
	imp := []byte{1, 22}
	imp = append(imp, "wasi_snapshot_preview1"...)
	imp = append(imp, 11)
	imp = append(imp, "sched_yield"...)
	section(2, append(imp, 0x00, 1)...)                   // import func of type 1
	section(3, 1, 0)                                      // one function of type 0
	section(6, 0)                                         // no globals
	section(7, 1, 4, 's', 'p', 'i', 'n', 0x00, 1)         // export "spin" = func 1
	section(10, 1, 7, 0, 0x03, 0x40, 0x0C, 0, 0x0B, 0x0B) // loop; br 0; end; end
	return m
}

// The checks instrumentLoops inserts do what its comment says: the loop
// calls sched_yield every yieldEvery iterations, and setting the exported
// wasmenv_interrupt global makes it trap. Without them "spin" never
// returns.
func TestInstrumentedLoopStopsAndYields(t *testing.T) {
	out, err := instrumentLoops(spinModule())
	if err != nil {
		t.Fatal(err)
	}
	// A safety net only: the test fails, rather than hangs, if the checks
	// do not work.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfig().WithCloseOnContextDone(true))
	defer r.Close(ctx)
	var yields atomic.Int64
	if _, err := r.NewHostModuleBuilder("wasi_snapshot_preview1").NewFunctionBuilder().
		WithFunc(func() int32 { yields.Add(1); return 0 }).Export("sched_yield").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	mod, err := r.Instantiate(ctx, out)
	if err != nil {
		t.Fatalf("the instrumented module does not instantiate: %v", err)
	}
	g, ok := mod.ExportedGlobal(interruptGlobal).(api.MutableGlobal)
	if !ok {
		t.Fatalf("no mutable global %s exported", interruptGlobal)
	}
	go func() {
		for yields.Load() < 3 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		g.Set(1)
	}()
	_, err = mod.ExportedFunction("spin").Call(ctx)
	if err == nil || ctx.Err() != nil {
		t.Fatalf("spin: %v (context: %v): the interrupt did not stop the loop", err, ctx.Err())
	}
	if n := yields.Load(); n < 3 {
		t.Errorf("%d yields", n)
	}
}

// sumModule exports "sum" (param $n i32) (param $k i32) (result i32), with
// locals $acc i32 and $x i64, which adds $n, $n-1, ..., 1 in a loop: more
// than checkEvery iterations, so the counting local that instrumentLoops
// adds must be a new one (after the parameters and locals), or the sum
// comes out wrong (or the module does not validate).
func sumModule() []byte {
	m := []byte{0, 'a', 's', 'm', 1, 0, 0, 0}
	section := func(id byte, body ...byte) { m = append(append(append(m, id), byte(len(body))), body...) }
	section(1, 3, 0x60, 0, 0, 0x60, 0, 1, 0x7F, 0x60, 2, 0x7F, 0x7F, 1, 0x7F) // (), () -> i32, (i32 i32) -> i32
	imp := []byte{1, 22}
	imp = append(imp, "wasi_snapshot_preview1"...)
	imp = append(imp, 11)
	imp = append(imp, "sched_yield"...)
	section(2, append(imp, 0x00, 1)...)
	section(3, 1, 2)
	section(6, 0)
	section(7, 1, 3, 's', 'u', 'm', 0x00, 1)
	body := []byte{2, 1, 0x7F, 1, 0x7E, // locals: $acc i32, $x i64
		0x03, 0x40, // loop
		0x20, 2, 0x20, 0, 0x6A, 0x21, 2, // acc += n
		0x20, 0, 0x41, 1, 0x6B, 0x22, 0, // n--
		0x0D, 0, // br_if 0 (n != 0)
		0x0B, 0x20, 2, 0x0B} // end; acc; end
	section(10, append([]byte{1, byte(len(body))}, body...)...)
	return m
}

func TestInstrumentedLoopKeepsLocals(t *testing.T) {
	out, err := instrumentLoops(sumModule())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	var yields atomic.Int64
	if _, err := r.NewHostModuleBuilder("wasi_snapshot_preview1").NewFunctionBuilder().
		WithFunc(func() int32 { yields.Add(1); return 0 }).Export("sched_yield").Instantiate(ctx); err != nil {
		t.Fatal(err)
	}
	mod, err := r.Instantiate(ctx, out)
	if err != nil {
		t.Fatalf("the instrumented module does not instantiate: %v", err)
	}
	const n = 5 * checkEvery
	res, err := mod.ExportedFunction("sum").Call(ctx, n, 7)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := uint32(res[0]), uint32(n*(n+1)/2); got != want {
		t.Fatalf("sum(%d) = %d, want %d", n, got, want)
	}
}
