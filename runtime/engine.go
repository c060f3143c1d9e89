package runtime

import (
	"context"
	"fmt"
	"slices"

	"github.com/wasmenv/wasmenv/internal/pywasm"
	"github.com/wasmenv/wasmenv/sdk/wire"
)

// engine runs the tool module. wazero (pure Go) is the default; the
// wasmtime build tag adds wasmtime (cgo). Everything else (episodes, host
// ABI, pooling, time limits) is shared, so both run the same bundles with
// the same behaviour.
type engine interface {
	// instantiate makes a fresh instance of the module whose host calls
	// (the "wasmenv" imports, the guest's clock and stderr) go to inst.
	instantiate(ctx context.Context, inst *instance) (guest, error)
	close() error
}

// guest is one instance of the tool module. Only interrupt may be called
// from another goroutine, while a call runs.
type guest interface {
	// buffer calls wasmenv_buffer(n); call calls wasmenv_call(tool, n).
	buffer(ctx context.Context, n uint32) (uint32, error)
	call(ctx context.Context, tool, n uint32) (uint64, error)
	// read returns a view of guest memory, valid until the guest runs.
	read(ptr, n uint32) ([]byte, bool)
	write(ptr uint32, b []byte) bool
	// interrupt makes the running call (or the next one) trap soon.
	interrupt()
	close()
}

// engineConfig is what an engine needs to compile the module.
type engineConfig struct {
	module      []byte
	memoryPages uint32 // 64 KiB pages
	cacheDir    string // compiled-code cache; "" = none
	// mounts are read-only directories of the guest's file system (a
	// Python environment's interpreter, stdlib and sources; python.go).
	// Compiled Go tool modules get none.
	mounts []pywasm.Mount
}

// hostFunc is one function of the "wasmenv" host module the guest imports
// (see sdk/host_wasip1.go), described once for every engine: its wasm
// signature ('i' = i32, 'I' = i64) and its call on the calling instance,
// which reads its arguments from s and writes its result to s[0], as raw
// wasm values (an i32 in the low 32 bits).
type hostFunc struct {
	name            string
	params, results string
	call            func(inst *instance, s []uint64)
}

var hostFuncs = [...]hostFunc{
	{wire.ImportSQL, "ii", "i", func(inst *instance, s []uint64) {
		s[0] = uint64(uint32(inst.hostSQL(uint32(s[0]), uint32(s[1]))))
	}},
	{wire.ImportTake, "i", "", func(inst *instance, s []uint64) { inst.hostTake(uint32(s[0])) }},
	{wire.ImportClock, "", "I", func(inst *instance, s []uint64) { s[0] = uint64(inst.hostClock()) }},
	{wire.ImportRandom, "", "I", func(inst *instance, s []uint64) { s[0] = inst.hostRandom() }},
	{wire.ImportLog, "ii", "", func(inst *instance, s []uint64) { inst.hostLog(uint32(s[0]), uint32(s[1])) }},
}

type engineFactory func(ctx context.Context, cfg engineConfig) (engine, error)

var engines = map[string]engineFactory{"wazero": newWazeroEngine}

// Engines lists the WebAssembly engines built in: "wazero", and
// "wasmtime" in builds with the wasmtime tag.
func Engines() []string {
	var names []string
	for n := range engines {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "wazero":
			return -1
		case b == "wazero":
			return 1
		case a < b:
			return -1
		}
		return 1
	})
	return names
}

func newEngine(ctx context.Context, name string, cfg engineConfig) (engine, error) {
	if name == "" {
		name = "wazero"
	}
	f, ok := engines[name]
	if !ok {
		return nil, fmt.Errorf("WebAssembly engine %q is not built in (have %v; wasmtime needs -tags wasmtime)", name, Engines())
	}
	return f(ctx, cfg)
}
