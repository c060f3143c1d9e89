package serve

import (
	"sync/atomic"
	"time"

	"github.com/wasmenv/wasmenv/internal/hist"
)

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
	lat      hist.Hist
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
	q := s.lat.Quantiles(0.5, 0.9, 0.99, 0.999)
	var mean float64
	if n := s.lat.N(); n > 0 {
		mean = s.lat.MeanMs()
	}
	return Snapshot{
		UptimeS: time.Since(s.start).Seconds(), Episodes: episodes, MaxEpisodes: maxEpisodes,
		Created: s.created.Load(), Deleted: s.deleted.Load(), Reaped: s.reaped.Load(), Rejected: s.rejected.Load(),
		Requests: s.requests.Load(), Calls: s.calls.Load(), ToolErrors: s.toolErrs.Load(),
		Steps: s.steps.Load(), Scores: s.scores.Load(), Panics: s.panics.Load(),
		CallLatency: LatencySnapshot{Mean: mean, P50: q[0], P90: q[1], P99: q[2], P999: q[3]},
	}
}
