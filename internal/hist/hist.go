// Package hist is the lock-free latency histogram shared by the server's
// statistics and the load generator.
package hist

import (
	"math/bits"
	"sync/atomic"
	"time"
)

// Hist is a lock-free latency histogram: 4 buckets per power of two of
// nanoseconds, so a percentile is within 19% of the true value.
type Hist struct {
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

// Observe records one duration.
func (h *Hist) Observe(d time.Duration) {
	ns := int64(d)
	h.b[bucketOf(ns)].Add(1)
	h.n.Add(1)
	h.sum.Add(ns)
}

// Quantiles returns the given quantiles in milliseconds.
func (h *Hist) Quantiles(qs ...float64) []float64 {
	var counts [len(Hist{}.b)]int64
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

// N is the number of durations recorded.
func (h *Hist) N() int64 { return h.n.Load() }

// MeanMs is the mean duration in milliseconds (0 when empty).
func (h *Hist) MeanMs() float64 {
	n := h.n.Load()
	if n == 0 {
		return 0
	}
	return float64(h.sum.Load()) / float64(n) / 1e6
}
