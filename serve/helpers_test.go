package serve

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

var (
	miniOnce   sync.Once
	miniBundle *envpkg.Bundle
	miniErr    error
)

// miniEnv loads the testdata mini environment, built once per test binary.
func miniEnv(t testing.TB) *runtime.Env {
	t.Helper()
	miniOnce.Do(func() {
		dir := filepath.Join("..", "testdata", "envs", "mini")
		miniBundle, miniErr = compiler.Build(context.Background(), dir, compiler.Options{})
	})
	if miniErr != nil {
		t.Fatalf("build mini: %v", miniErr)
	}
	e, err := runtime.LoadBundle(context.Background(), miniBundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
