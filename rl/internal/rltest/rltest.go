package rltest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

type built struct {
	once   sync.Once
	bundle *envpkg.Bundle
	err    error
}

var (
	mu      sync.Mutex
	bundles = map[string]*built{}
)

// Bundle builds the embedded example environment name once per test
// binary.
func Bundle(t testing.TB, name string) *envpkg.Bundle {
	t.Helper()
	mu.Lock()
	b := bundles[name]
	if b == nil {
		b = &built{}
		bundles[name] = b
	}
	mu.Unlock()
	b.once.Do(func() {
		dir, err := os.MkdirTemp("", "wasmenv-example-")
		if err != nil {
			b.err = err
			return
		}
		defer os.RemoveAll(dir)
		if b.err = envs.Extract(name, dir); b.err == nil {
			b.bundle, b.err = compiler.Build(context.Background(), dir, compiler.Options{})
		}
	})
	if b.err != nil {
		t.Fatalf("build %s: %v", name, b.err)
	}
	return b.bundle
}

// Load loads the example environment name, closed with the test.
func Load(t testing.TB, name string) *runtime.Env {
	t.Helper()
	env, err := runtime.LoadBundle(context.Background(), Bundle(t, name), runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// Collect is an exporter that keeps the groups it is given.
type Collect struct {
	mu     sync.Mutex
	Groups [][]rl.Rollout
}

// Write implements rl.Exporter.
func (c *Collect) Write(g []rl.Rollout) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.Groups = append(c.Groups, append([]rl.Rollout(nil), g...))
	return nil
}

// Close implements rl.Exporter.
func (c *Collect) Close() error { return nil }

// All returns every rollout kept, group after group.
func (c *Collect) All() []rl.Rollout {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []rl.Rollout
	for _, g := range c.Groups {
		out = append(out, g...)
	}
	return out
}
