package runtime

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/testcache"
)

var (
	bundleOnce = map[string]*sync.Once{}
	bundles    = map[string]*envpkg.Bundle{}
	bundleErrs = map[string]error{}
	bundleMu   sync.Mutex
)

// testBundle builds a testdata environment once per test binary.
func testBundle(t testing.TB, name string, skipChecks bool) *envpkg.Bundle {
	t.Helper()
	bundleMu.Lock()
	once, ok := bundleOnce[name]
	if !ok {
		once = &sync.Once{}
		bundleOnce[name] = once
	}
	bundleMu.Unlock()
	once.Do(func() {
		dir := filepath.Join("..", "testdata", "envs", name)
		b, err := compiler.Build(context.Background(), dir, compiler.Options{SkipStaticChecks: skipChecks})
		bundleMu.Lock()
		bundles[name], bundleErrs[name] = b, err
		bundleMu.Unlock()
	})
	bundleMu.Lock()
	defer bundleMu.Unlock()
	if bundleErrs[name] != nil {
		t.Fatalf("build %s: %v", name, bundleErrs[name])
	}
	return bundles[name]
}

func loadEnv(t testing.TB, name string) *Env {
	t.Helper()
	return loadEnvWith(t, name, "")
}

// loadEnvWith loads a testdata environment on the named engine ("" = the
// default).
func loadEnvWith(t testing.TB, name, engine string) *Env {
	t.Helper()
	// wasmtime's guest loops stop at the wall-clock guard (work.go counts
	// wazero's): a short one keeps the runaway tests short.
	var guard time.Duration
	if engine == "wasmtime" {
		guard = 2 * time.Second
	}
	e, err := LoadBundle(context.Background(), testBundle(t, name, name == "sandbox"), Options{Engine: engine, WallGuard: guard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// eachEngine runs f with every engine built in: directly when wazero is the
// only one (the default build, whose test names and cost stay as they
// were), else as one subtest per engine.
func eachEngine(t *testing.T, f func(t *testing.T, engine string)) {
	names := Engines()
	if len(names) == 1 {
		f(t, names[0])
		return
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) { f(t, n) })
	}
}

func newEpisode(t testing.TB, e *Env, task string, seed int64) *Episode {
	t.Helper()
	ep, err := e.NewEpisode(task, seed)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ep.Close() })
	return ep
}

func call(t testing.TB, ep *Episode, tool, args string) Result {
	t.Helper()
	r, err := ep.Call(context.Background(), tool, []byte(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", tool, args, err)
	}
	return r
}

func TestMain(m *testing.M) { testcache.Main(m) }
