package fleet

import (
	"context"

	"github.com/wasmenv/wasmenv/runtime"
)

// BundleCache exposes the worker's bundle cache to the tests.
type BundleCache struct{ c *bundleCache }

func NewBundleCache(dir string, max int) *BundleCache {
	return &BundleCache{&bundleCache{dir: dir, max: max}}
}

// Acquire reads bundles from dir only (no object store).
func (b *BundleCache) Acquire(hash string) (*runtime.Env, func(), error) {
	return b.c.acquire(context.Background(), nil, hash)
}

func (b *BundleCache) Loaded() int { return b.c.loaded() }
func (b *BundleCache) Close()      { b.c.close() }
