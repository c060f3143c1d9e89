package runtime

import (
	"context"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Issue 13 item 8: a bundle's limits are capped. call_timeout_ms = 2^62
// overflowed to "0s"; memory_mb and max_output_bytes were unbounded; the
// server can cap them lower.
func TestBundleLimitsAreCapped(t *testing.T) {
	b := *testBundle(t, "edge", false)
	b.Manifest.Limits = envpkg.Limits{CallTimeoutMS: 1 << 62, MemoryMB: 1 << 30, MaxOutputBytes: 1 << 62}
	e, err := LoadBundle(context.Background(), &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	l := e.Limits()
	e.Close()
	if l.CallTimeout != 10*time.Minute || l.MemoryMB != envpkg.MaxMemoryMB || l.MaxOutputBytes != envpkg.MaxOutputBytesCap {
		t.Fatalf("uncapped: %+v", l)
	}
	e, err = LoadBundle(context.Background(), &b, Options{MaxCallTimeout: 3 * time.Second, MaxMemoryMB: 64, MaxOutputBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	l = e.Limits()
	e.Close()
	if l.CallTimeout != 3*time.Second || l.MemoryMB != 64 || l.MaxOutputBytes != 1<<20 {
		t.Fatalf("server caps not applied: %+v", l)
	}

	// A bundle asking for them is refused (Encode and Decode share the
	// manifest check), in words.
	b = *testBundle(t, "edge", false)
	b.Manifest.Limits.CallTimeoutMS = 1 << 62
	if _, err := envpkg.Encode(&b); err == nil || !strings.Contains(err.Error(), "1 ms to 10 minutes") {
		t.Fatalf("a 2^62 ms call timeout: %v", err)
	}
}

// Loading does not copy the database again: a large database costs its own
// size once, not twice.
func TestLoadDoesNotCopyTheDatabase(t *testing.T) {
	b := *testBundle(t, "edge", false)
	const pad = 128 << 20 // SQLite ignores bytes past the header's page count
	b.DB = append(append(make([]byte, 0, len(b.DB)+pad), b.DB...), make([]byte, pad)...)
	var m0, m1 goruntime.MemStats
	goruntime.GC()
	goruntime.ReadMemStats(&m0)
	e, err := LoadBundle(context.Background(), &b, Options{PoolSize: 1})
	if err != nil {
		t.Fatal(err)
	}
	goruntime.ReadMemStats(&m1)
	e.Close()
	if grew := m1.TotalAlloc - m0.TotalAlloc; grew > pad/2 {
		t.Fatalf("loading a %d MiB database allocated %d MiB", pad>>20, grew>>20)
	}
}
