package serve

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// hist is a lock-free latency histogram: 4 buckets per power of two of
// nanoseconds, so a percentile is within 19% of the true value.
type hist struct {
	b   [64 * 4]atomic.Int64
	n   atomic.Int64
	sum atomic.Int64
}

func bucketOf(ns int64) int {
	if ns < 4 {
		return int(max(ns, 0))
	}
	u := uint64(ns)
	l := bits.Len64(u) // >= 3
	sub := (u >> (l - 3)) & 3
	return (l-1)*4 + int(sub)
}

// bucketHigh is the upper bound of a bucket, in ns.
func bucketHigh(i int) int64 {
	if i < 8 {
		return int64(i)
	}
	l := i/4 + 1
	sub := uint64(i % 4)
	return int64((4+sub+1)<<(l-3)) - 1
}

func (h *hist) observe(d time.Duration) {
	ns := int64(d)
	h.b[bucketOf(ns)].Add(1)
	h.n.Add(1)
	h.sum.Add(ns)
}

// quantiles returns the given quantiles in milliseconds.
func (h *hist) quantiles(qs ...float64) []float64 {
	var counts [len(hist{}.b)]int64
	var total int64
	for i := range h.b {
		counts[i] = h.b[i].Load()
		total += counts[i]
	}
	out := make([]float64, len(qs))
	if total == 0 {
		return out
	}
	for j, q := range qs {
		want := int64(q*float64(total) + 0.5)
		want = min(max(want, 1), total)
		var c int64
		for i, n := range counts {
			c += n
			if c >= want {
				out[j] = float64(bucketHigh(i)) / 1e6
				break
			}
		}
	}
	return out
}

type stats struct {
	start    time.Time
	requests atomic.Int64
	calls    atomic.Int64
	toolErrs atomic.Int64
	steps    atomic.Int64
	scores   atomic.Int64
	created  atomic.Int64
	deleted  atomic.Int64
	reaped   atomic.Int64
	rejected atomic.Int64
	panics   atomic.Int64
	lat      hist
}

func newStats() *stats { return &stats{start: time.Now()} }

// Snapshot is what GET /stats returns.
type Snapshot struct {
	UptimeS     float64         `json:"uptime_s"`
	Episodes    int             `json:"episodes"`
	MaxEpisodes int             `json:"max_episodes"`
	Created     int64           `json:"episodes_created"`
	Deleted     int64           `json:"episodes_deleted"`
	Reaped      int64           `json:"episodes_reaped"`
	Rejected    int64           `json:"creates_rejected"`
	Requests    int64           `json:"requests"`
	Calls       int64           `json:"calls"`
	ToolErrors  int64           `json:"tool_errors"`
	Steps       int64           `json:"steps"`
	Scores      int64           `json:"scores"`
	Panics      int64           `json:"panics"`
	CallLatency LatencySnapshot `json:"call_latency_ms"`
}

// LatencySnapshot summarizes tool-call latency inside the server (from
// taking the episode to the result), in milliseconds.
type LatencySnapshot struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

func (s *stats) snapshot(episodes, maxEpisodes int) Snapshot {
	q := s.lat.quantiles(0.5, 0.9, 0.99, 0.999)
	var mean float64
	if n := s.lat.n.Load(); n > 0 {
		mean = float64(s.lat.sum.Load()) / float64(n) / 1e6
	}
	return Snapshot{
		UptimeS: time.Since(s.start).Seconds(), Episodes: episodes, MaxEpisodes: maxEpisodes,
		Created: s.created.Load(), Deleted: s.deleted.Load(), Reaped: s.reaped.Load(), Rejected: s.rejected.Load(),
		Requests: s.requests.Load(), Calls: s.calls.Load(), ToolErrors: s.toolErrs.Load(),
		Steps: s.steps.Load(), Scores: s.scores.Load(), Panics: s.panics.Load(),
		CallLatency: LatencySnapshot{Mean: mean, P50: q[0], P90: q[1], P99: q[2], P999: q[3]},
	}
}
