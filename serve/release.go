package serve

import (
	"context"
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Giving memory back after episodes close.
//
// An episode's pages live in the Go heap (the runtime's mvcc database). When
// a big episode is closed they become garbage, but nothing collects them
// until the heap doubles (GOGC=100) or the runtime's two-minute forced GC,
// and the scavenger then returns the pages to the OS slowly: an idle server
// kept ~500 MiB of RSS for minutes after a 200 MB episode was deleted, and a
// server under --max-memory refused new episodes all that time. A soft
// memory limit (debug.SetMemoryLimit) does not help there: it only makes
// allocations trigger collections, and an idle server allocates nothing
// (measured: with a 300 MiB limit set, RSS stayed at 317 MiB after the
// delete, with a create request after it). So after episodes close, the
// releaser runs debug.FreeOSMemory (a full collection, then every free page
// returned: RSS 435 -> 62 MiB in 0.15 s for that episode), in the
// background, rate-limited so that a busy server does not spend its time
// collecting.
const (
	// releaseEvery is the least time between two releases; a release that
	// took d waits releaseDuty×d at least, so that forced collections take
	// at most 1/releaseDuty of the time, but never more than releaseMax,
	// so that memory still returns within seconds when a release is slow
	// (a loaded machine, a live heap of gigabytes): then they take at most
	// d/(d+releaseMax).
	releaseEvery = time.Second
	releaseDuty  = 20
	releaseMax   = 5 * time.Second
)

// releaseFloor: a release runs only when the Go heap the process holds
// (objects, dead or alive, and free pages not yet returned) is over this,
// so that a server of small episodes never pays for one. The floor cannot
// be relative to the live heap: the pages of an episode closed since are
// counted live until the next collection. (A variable so that a benchmark
// can turn releases off.)
var releaseFloor uint64 = 64 << 20

// releaser decides when to give memory back; see the comment above.
type releaser struct {
	kick chan struct{} // episodes closed since the last look (capacity 1)

	closes atomic.Int64 // episodes closed or reset since the last release began
	runs   atomic.Int64

	mu   sync.Mutex // held through a release (closing episodes never wait for it)
	last time.Time  // end of the last release
	took time.Duration
}

func newReleaser() *releaser { return &releaser{kick: make(chan struct{}, 1)} }

// dropped tells the releaser that an episode was closed or reset (its
// pages are garbage now); it never blocks.
func (r *releaser) dropped() {
	r.closes.Add(1)
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// wait is how long to wait before the next release may run, and whether
// one would be worth it (an episode was dropped since the last one, and
// the Go heap is over the floor).
func (r *releaser) wait() (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Until(r.last.Add(r.pace())), r.closes.Load() > 0 && heapHeld() >= releaseFloor
}

// pace is the least time from the end of a release to the next one.
func (r *releaser) pace() time.Duration {
	return min(max(releaseEvery, releaseDuty*r.took), releaseMax)
}

// release runs debug.FreeOSMemory if an episode was closed since the last
// release, that one is far enough behind, and the Go heap holds enough to
// be worth it; it reports whether it ran.
func (r *releaser) release() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closes.Load() == 0 || time.Since(r.last) < r.pace() || heapHeld() < releaseFloor {
		return false
	}
	r.closes.Store(0)
	start := time.Now()
	debug.FreeOSMemory()
	r.last = time.Now()
	r.took = r.last.Sub(start)
	r.runs.Add(1)
	return true
}

// releaseBefore runs a release that is worth running, waiting for the
// releaser's pace until ctx ends at the latest; it reports whether one ran.
func (r *releaser) releaseBefore(ctx context.Context) bool {
	d, worth := r.wait()
	if !worth {
		return false
	}
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
	return r.release()
}

// releaseLoop releases memory after episodes close, at the pace release
// allows, until the server closes.
func (s *Server) releaseLoop() {
	defer s.wg.Done()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-s.mem.kick:
		}
		s.mem.releaseBefore(s.ctx)
	}
}

var heapMetrics = []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/free:bytes"}

// heapHeld is the Go heap the process holds: objects, dead or alive, and
// free pages not yet returned to the OS.
func heapHeld() uint64 {
	s := make([]metrics.Sample, len(heapMetrics))
	for i, n := range heapMetrics {
		s[i].Name = n
	}
	metrics.Read(s)
	var n uint64
	for _, x := range s {
		if x.Value.Kind() == metrics.KindUint64 {
			n += x.Value.Uint64()
		}
	}
	return n
}

// setMemoryLimit makes the Go runtime's soft memory limit the server's
// memory cap, unless one was set already (GOMEMLIMIT, or the embedding
// program), and returns what restores the previous one. Under load the
// collector then runs more often as the heap nears the cap instead of
// letting garbage grow to twice the live heap, which under a cap would
// refuse new episodes for memory that is only garbage. It bounds the Go
// heap only: SQLite's memory and compiled code are outside it, and the
// RSS check still decides. A cap under 64 MiB, below what the server
// itself needs, sets no limit: the collector would run without end.
func setMemoryLimit(capBytes int64) (restore func()) {
	if capBytes < 64<<20 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(capBytes)
	return func() { debug.SetMemoryLimit(prev) }
}
