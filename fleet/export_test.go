package fleet

import (
	"context"

	"github.com/nats-io/nats.go"

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

// SignResult signs a result message's headers as a worker holding key
// does: a test's bad worker.
func SignResult(key []byte, subject string, h nats.Header) {
	h.Set(headerMAC, mac(key, "result", resultParts(subject, h)...))
}

// SignDead signs a dead letter as a worker holding key does.
func SignDead(key []byte, m *nats.Msg) { signDead(key, m) }

// CheckToolsets is the driver's check of a group's toolset records.
func CheckToolsets() func([]byte) error { return toolsetChecker{}.check }
