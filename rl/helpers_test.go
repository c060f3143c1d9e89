package rl_test

import (
	"context"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

func TestMain(m *testing.M) { testcache.Main(m) }

var (
	bundleMu   sync.Mutex
	bundleOnce = map[string]*sync.Once{}
	bundles    = map[string]*envpkg.Bundle{}
	bundleErrs = map[string]error{}
)

// exampleBundle builds an embedded example environment once per test
// binary.
func exampleBundle(t testing.TB, name string) *envpkg.Bundle {
	t.Helper()
	bundleMu.Lock()
	once := bundleOnce[name]
	if once == nil {
		once = &sync.Once{}
		bundleOnce[name] = once
	}
	bundleMu.Unlock()
	once.Do(func() {
		dir := t.TempDir()
		var b *envpkg.Bundle
		err := envs.Extract(name, dir)
		if err == nil {
			b, err = compiler.Build(context.Background(), dir, compiler.Options{})
		}
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

func loadExample(t testing.TB, name string) *runtime.Env {
	t.Helper()
	env, err := runtime.LoadBundle(context.Background(), exampleBundle(t, name), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// collect is an exporter that keeps what it is given.
type collect struct {
	mu     sync.Mutex
	groups [][]rl.Rollout
}

func (c *collect) Write(g []rl.Rollout) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.groups = append(c.groups, append([]rl.Rollout(nil), g...))
	return nil
}

func (c *collect) Close() error { return nil }

func (c *collect) all() []rl.Rollout {
	var out []rl.Rollout
	for _, g := range c.groups {
		out = append(out, g...)
	}
	return out
}
