package pywasm

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// TestFigures logs the interpreter's costs for docs/PYTHON.md: wazero's
// compile (cold and from the cache), an interpreter's start (instantiate
// and _initialize: CPython's start-up and the bootstrap's imports) and its
// memory. Run with WASMENV_FIGURES=1 -v; it asserts only that it ran.
func TestFigures(t *testing.T) {
	if os.Getenv("WASMENV_FIGURES") == "" {
		t.Skip("set WASMENV_FIGURES=1 to measure")
	}
	ctx := context.Background()
	in, err := Interpreter()
	if err != nil {
		t.Fatal(err)
	}
	cacheDir := t.TempDir()
	for _, label := range []string{"cold", "cached"} {
		cache, _ := wazero.NewCompilationCacheWithDir(cacheDir)
		rt := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCompilationCache(cache))
		start := time.Now()
		compiled, err := rt.CompileModule(ctx, in.Module)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("compile (%s): %v", label, time.Since(start))
		wasi_snapshot_preview1.MustInstantiate(ctx, rt)
		rt.NewHostModuleBuilder(wire.HostModule).
			NewFunctionBuilder().WithFunc(func(uint32, uint32) int32 { return -1 }).Export(wire.ImportSQL).
			NewFunctionBuilder().WithFunc(func(uint32) {}).Export(wire.ImportTake).
			NewFunctionBuilder().WithFunc(func() int64 { return 0 }).Export(wire.ImportClock).
			NewFunctionBuilder().WithFunc(func() int64 { return 0 }).Export(wire.ImportRandom).
			NewFunctionBuilder().WithFunc(func(uint32, uint32) {}).Export(wire.ImportLog).
			Instantiate(ctx)
		s := NewStub(map[string][]byte{"tools/x.py": []byte("import json\nimport re\nimport datetime\n\n\ndef f() -> str:\n    \"\"\"F.\"\"\"\n    return json.dumps(1)\n")})
		mounts, _ := s.Mounts(in, []string{"f"})
		fsc := wazero.NewFSConfig()
		for _, m := range mounts {
			fsc = fsc.WithFSMount(m.FS, m.Dir)
		}
		for i := 0; i < 3; i++ {
			start = time.Now()
			mod, err := rt.InstantiateModule(ctx, compiled, wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize").WithFSConfig(fsc))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("interpreter start (%s module): %v, memory %d MiB", label, time.Since(start), mod.Memory().Size()>>20)
			mod.Close(ctx)
		}
		rt.Close(ctx)
	}
}
