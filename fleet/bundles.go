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
	if err := s.putOnce(ctx, s.bundles, hash, data); err != nil {
		return errorf(CodeUnavailable, err, "upload bundle %s", hash)
	}
	return nil
}

// bundleCache loads each bundle once per worker: from the cache
// directory if a verified copy is there, else from the object store,
// verified as envpkg verifies a file and its hash compared with the name
// it was asked by, then written to the cache. At most max environments
// stay loaded: past that the least recently used one that no job holds is
// closed (an evaluation sweep over hundreds of bundles must not keep them
// all in memory).
type bundleCache struct {
	dir  string // "": no disk cache
	opts runtime.Options
	max  int // loaded environments kept; < 1: 16

	mu    sync.Mutex // held while loading: a worker loads one bundle at a time
	envs  map[string]*cachedEnv
	clock int64
}

type cachedEnv struct {
	env   *runtime.Env
	users int   // jobs holding it
	used  int64 // clock at the last acquire
}

// acquire returns the environment of hash, loaded if need be; release
// must be called when the job is done with it.
func (c *bundleCache) acquire(ctx context.Context, s *store, hash string) (*runtime.Env, func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.envs[hash]
	if e == nil {
		b, err := c.read(ctx, s, hash)
		if err != nil {
			return nil, nil, err
		}
		env, err := runtime.LoadBundle(ctx, b, c.opts)
		if err != nil {
			return nil, nil, errorf(CodeBadBundle, err, "load bundle %s", hash)
		}
		if c.envs == nil {
			c.envs = map[string]*cachedEnv{}
		}
		e = &cachedEnv{env: env}
		c.envs[hash] = e
	}
	c.clock++
	e.users++
	e.used = c.clock
	c.evict()
	var once sync.Once
	return e.env, func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			e.users--
			c.evict()
		})
	}, nil
}

// evict closes the least recently used idle environments beyond max.
func (c *bundleCache) evict() {
	limit := c.max
	if limit < 1 {
		limit = 16
	}
	for len(c.envs) > limit {
		var victim string
		for h, e := range c.envs {
			if e.users == 0 && (victim == "" || e.used < c.envs[victim].used) {
				victim = h
			}
		}
		if victim == "" {
			return // all in use: they are closed when released
		}
		c.envs[victim].env.Close()
		delete(c.envs, victim)
	}
}

// loaded reports how many environments are loaded.
func (c *bundleCache) loaded() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.envs)
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
	if s == nil {
		return nil, errorf(CodeBadBundle, nil, "bundle %s is not in the cache", hash)
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
		e.env.Close()
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
