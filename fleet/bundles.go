package fleet

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// putBundle stores a bundle's bytes under its content hash unless the
// store has it already. data must be the bundle file that hashes to hash.
func (s *store) putBundle(ctx context.Context, hash string, data []byte) error {
	var err error
	if retry(ctx, func(ctx context.Context) error { _, err = s.bundles.GetInfo(ctx, hash); return err }); err == nil {
		return nil
	} else if !errors.Is(err, jetstream.ErrObjectNotFound) {
		return errorf(CodeUnavailable, err, "bundle %s", hash)
	}
	if err := s.putObject(ctx, s.bundles, hash, data); err != nil {
		return errorf(CodeUnavailable, err, "upload bundle %s", hash)
	}
	return nil
}

// bundleCache loads each bundle once per worker: from the cache
// directory if a verified copy is there, else from the object store,
// verified as envpkg verifies a file and its hash compared with the name
// it was asked by, then written to the cache.
type bundleCache struct {
	dir  string // "": no disk cache
	opts runtime.Options

	mu   sync.Mutex // held while loading: a worker loads one bundle at a time
	envs map[string]*runtime.Env
}

func (c *bundleCache) env(ctx context.Context, s *store, hash string) (*runtime.Env, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e := c.envs[hash]; e != nil {
		return e, nil
	}
	b, err := c.read(ctx, s, hash)
	if err != nil {
		return nil, err
	}
	e, err := runtime.LoadBundle(ctx, b, c.opts)
	if err != nil {
		return nil, errorf(CodeBadBundle, err, "load bundle %s", hash)
	}
	if c.envs == nil {
		c.envs = map[string]*runtime.Env{}
	}
	c.envs[hash] = e
	return e, nil
}

func (c *bundleCache) read(ctx context.Context, s *store, hash string) (*envpkg.Bundle, error) {
	if !validHash(hash) {
		return nil, errorf(CodeBadBundle, nil, "bundle name %q is not a content hash", hash)
	}
	var path string
	if c.dir != "" {
		path = filepath.Join(c.dir, hash+".wasm")
		if b, err := envpkg.Read(path); err == nil && b.Hash == hash {
			return b, nil
		}
		os.Remove(path) // absent, or a bad copy: fetch it again
	}
	data, err := s.bundles.GetBytes(ctx, hash) // the object store checks its SHA-256 digest
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, errorf(CodeBadBundle, err, "bundle %s is not in the object store %s", hash, BucketBundles)
	}
	if err != nil {
		return nil, errorf(CodeBadBundle, err, "fetch bundle %s", hash)
	}
	b, err := envpkg.Decode(data)
	if err != nil {
		return nil, errorf(CodeBadBundle, err, "bundle %s from the object store", hash)
	}
	if b.Hash != hash {
		return nil, errorf(CodeBadBundle, nil, "object %s holds the bundle %s", hash, b.Hash)
	}
	if path != "" {
		if err := os.MkdirAll(c.dir, 0o755); err == nil {
			envpkg.WriteFileAtomic(path, data) // a cache: failing to keep it costs a fetch
		}
	}
	return b, nil
}

func (c *bundleCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.envs {
		e.Close()
	}
	c.envs = nil
}

// validHash reports whether s looks like envpkg's content hash (16 hex
// digits), so that a job cannot name a path.
func validHash(s string) bool {
	if len(s) != 16 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// putObject stores data in chunks that fit the server's largest message.
func (s *store) putObject(ctx context.Context, o jetstream.ObjectStore, name string, data []byte) error {
	chunk := uint32(128 << 10) // the client's default
	if max := s.maxPayload - 1024; max > 0 && int64(chunk) > max {
		chunk = uint32(max)
	}
	_, err := o.Put(ctx, jetstream.ObjectMeta{Name: name, Opts: &jetstream.ObjectMetaOptions{ChunkSize: chunk}}, bytes.NewReader(data))
	return err
}
