package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Config tunes a run.
type Config struct {
	// Episodes is the largest number of concurrent episodes (throughput
	// and memory). Default 1000.
	Episodes int
	// Duration is how long each throughput point runs. Default 1s.
	Duration time.Duration
	// Sizes are the database sizes of the reset-versus-size curve, in
	// bytes. Default 1, 10 and 100 MiB.
	Sizes []int64
	// Log receives progress lines; nil discards them.
	Log func(string)
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		c.Log(fmt.Sprintf(format, args...))
	}
}

// Figures are one system's measurements.
type Figures struct {
	ResetNs     Latency            `json:"reset_ns"`
	StepReadNs  Latency            `json:"step_read_ns"`
	StepWriteNs Latency            `json:"step_write_ns"`
	StepToolNs  map[string]Latency `json:"step_ns_by_tool,omitempty"`
	Throughput  map[string]float64 `json:"throughput_steps_per_s"`
	RSSIdle     int64              `json:"rss_bytes_per_idle_episode"`
	RSSActive   int64              `json:"rss_bytes_per_active_episode"`
	RSSTotal    int64              `json:"rss_bytes_total_active"` // at the largest N, over the process before
	RSSEpisodes int                `json:"rss_episodes"`
	ColdStartMs ColdStart          `json:"cold_start_ms"`
	BundleBytes Sizes              `json:"bundle_bytes"`
	ResetBySize map[string]Latency `json:"reset_ns_by_db_bytes,omitempty"`
	// EndBySize is, per database size, the episode end's latency after N
	// writes: "diffhash/N" (DiffAndHash) and "score/N" (the first task's
	// Score); wasmenv engines only (episodeend.go).
	EndBySize    map[string]map[string]Latency `json:"end_ns_by_db_bytes,omitempty"`
	ResetSamples []int64                       `json:"-"`
}

// ColdStart is the time from the bundle on disk to the first completed call.
type ColdStart struct {
	Cached   float64 `json:"cached"`
	Uncached float64 `json:"uncached"`
}

// Sizes are raw and zstd-compressed byte counts.
type Sizes struct {
	Raw  int64 `json:"raw"`
	Zstd int64 `json:"zstd"`
}

// Report is the result of a run: wasmenv's figures (on wazero) at the top
// level, the baselines' beside them.
type Report struct {
	Figures
	Machine   Machine             `json:"machine"`
	Bundle    string              `json:"bundle"`
	Workload  string              `json:"workload"`
	Baselines map[string]*Figures `json:"baselines"`
	Order     []string            `json:"-"` // wasmenv first, then baselines
}

// Run measures the bundle at path.
func Run(ctx context.Context, path string, cfg Config) (*Report, error) {
	if cfg.Episodes <= 0 {
		cfg.Episodes = 1000
	}
	if cfg.Duration <= 0 {
		cfg.Duration = time.Second
	}
	if cfg.Sizes == nil {
		cfg.Sizes = []int64{1 << 20, 10 << 20, 100 << 20}
	}
	b, err := envpkg.Read(path)
	if err != nil {
		return nil, err
	}
	cache, err := os.MkdirTemp("", "wasmenv-bench-cache-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(cache)
	rep := &Report{Machine: machine(), Bundle: path, Baselines: map[string]*Figures{}}

	wz, err := newWasmenv(ctx, "wasmenv", b, runtime.Options{CompileCacheDir: cache})
	if err != nil {
		return nil, err
	}
	var w *workload
	if isBenchenv(b) {
		w, rep.Workload = benchenvWorkload(), "benchenv: get_order (read), set_order_status (write), list_orders; mix 70/20/10"
	} else if w, err = taskWorkload(ctx, wz.env); err != nil {
		wz.close()
		return nil, err
	} else {
		rep.Workload = fmt.Sprintf("task calls: %d reads, %d writes (baselines: resets only)", len(w.reads), len(w.writes))
	}

	type entry struct {
		f    *Figures
		open func() (system, error)
	}
	var entries []entry
	entries = append(entries, entry{&rep.Figures, func() (system, error) { return wz, nil }})
	rep.Order = append(rep.Order, "wasmenv")
	for _, eng := range runtime.Engines() {
		if eng == "wazero" {
			continue
		}
		f := &Figures{}
		rep.Baselines[eng] = f
		rep.Order = append(rep.Order, eng)
		entries = append(entries, entry{f, func() (system, error) {
			return newWasmenv(ctx, eng, b, runtime.Options{CompileCacheDir: cache, Engine: eng})
		}})
	}
	for _, name := range []string{"filecopy", "serdes"} {
		f := &Figures{}
		rep.Baselines[name] = f
		rep.Order = append(rep.Order, name)
		entries = append(entries, entry{f, func() (system, error) {
			if name == "filecopy" {
				return newFilecopy(b.DB)
			}
			return &serdesSystem{img: b.DB}, nil
		}})
	}

	for i, en := range entries {
		sys, err := en.open()
		if err != nil {
			return nil, err
		}
		name := rep.Order[i]
		native := i == 0 || sys.name() != "filecopy" && sys.name() != "serdes"
		cfg.logf("%s: latency", name)
		if native || w.native {
			if err := measureLatency(sys, w, en.f); err != nil {
				sys.close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			cfg.logf("%s: throughput and memory", name)
			if err := measureScale(sys, w, &cfg, en.f); err != nil {
				sys.close()
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		sys.close()
		cfg.logf("%s: cold start", name)
		if en.f.ColdStartMs, err = coldStart(ctx, path, name, cache, w); err != nil {
			return nil, fmt.Errorf("%s: cold start: %w", name, err)
		}
	}
	if err := bundleSizes(path, b, rep); err != nil {
		return nil, err
	}
	cfg.logf("reset versus database size")
	if err := measureSizes(ctx, b, w, cache, &cfg, rep); err != nil {
		return nil, err
	}
	cfg.logf("episode end (diff + state hash, score) versus writes and database size")
	if err := measureEnd(ctx, b, w, cache, &cfg, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// measureLatency samples step latency per tool and reset latency after a
// typical write workload (5 writes, 5 reads) on one episode.
func measureLatency(sys system, w *workload, f *Figures) error {
	ep, err := sys.newEpisode()
	if err != nil {
		return err
	}
	defer ep.close()
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 { // warm up
		if err := ep.step(w.mix(r)); err != nil {
			return err
		}
	}
	if err := ep.reset(); err != nil {
		return err
	}
	byTool := map[string][]time.Duration{}
	var reads, writes []time.Duration
	budget := time.Now().Add(3 * time.Second)
	for i := 0; i < 3000 && (i < 100 || time.Now().Before(budget)); i++ {
		for _, op := range []*Op{w.pick(r, 0), w.pick(r, 1), w.pick(r, 2)} {
			if op == nil {
				continue
			}
			t0 := time.Now()
			err := ep.step(op)
			d := time.Since(t0)
			if err != nil {
				return err
			}
			byTool[op.Tool] = append(byTool[op.Tool], d)
			if op.Write {
				writes = append(writes, d)
			} else {
				reads = append(reads, d)
			}
		}
		if i%20 == 19 {
			if err := ep.reset(); err != nil {
				return err
			}
		}
	}
	f.StepReadNs, f.StepWriteNs = summarize(reads), summarize(writes)
	f.StepToolNs = map[string]Latency{}
	for t, ds := range byTool {
		f.StepToolNs[t] = summarize(ds)
	}
	resets, err := resetSamples(ep, w, r, 2000, 3*time.Second)
	f.ResetNs = summarize(resets)
	f.ResetSamples = f.ResetNs.Samples
	return err
}

// pick returns a read (0), a write (1) or a list (2), or nil if the
// workload has none.
func (w *workload) pick(r *rand.Rand, kind int) *Op {
	ops := [][]Op{w.reads, w.writes, w.lists}[kind]
	if len(ops) == 0 {
		return nil
	}
	return &ops[r.IntN(len(ops))]
}

// resetSamples times resets, each after 5 writes and 5 reads (when the
// system can run the workload's steps).
func resetSamples(ep episode, w *workload, r *rand.Rand, n int, budget time.Duration) ([]time.Duration, error) {
	var ds []time.Duration
	end := time.Now().Add(budget)
	for i := 0; i < n && (i < 5 || time.Now().Before(end)); i++ {
		for range 5 {
			for _, op := range []*Op{w.pick(r, 1), w.pick(r, 0)} {
				if op == nil {
					continue
				}
				if err := ep.step(op); err != nil {
					return nil, err
				}
			}
		}
		t0 := time.Now()
		if err := ep.reset(); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(t0))
	}
	return ds, nil
}

// measureScale runs N = 1, 10, 100, 1000 concurrent episodes, one
// goroutine each, for cfg.Duration, and measures memory at the largest N:
// per idle episode (created, no call yet) and per active episode (after
// the throughput run, each holding its writes).
func measureScale(sys system, w *workload, cfg *Config, f *Figures) error {
	f.Throughput = map[string]float64{}
	for _, n := range []int{1, 10, 100, 1000} {
		last := n >= cfg.Episodes
		n = min(n, cfg.Episodes)
		var before int64
		if last {
			if c, ok := sys.(interface{ closeIdle() }); ok {
				c.closeIdle() // the earlier rounds' pooled connections
			}
			before = rss()
		}
		eps := make([]episode, 0, n)
		defer func() {
			for _, ep := range eps {
				ep.close()
			}
		}()
		for range n {
			ep, err := sys.newEpisode()
			if err != nil {
				return err
			}
			eps = append(eps, ep)
		}
		if last {
			f.RSSIdle = (rss() - before) / int64(n)
		}
		// One step each before the clock starts: a wasmenv episode opens its
		// SQLite connection at its first call (or takes a pooled one), and
		// throughput is about stepping; opening is BenchmarkEpisodeOpenClose's.
		r := rand.New(rand.NewPCG(uint64(n), 7))
		for _, ep := range eps {
			if err := ep.step(w.mix(r)); err != nil {
				return err
			}
		}
		steps, err := throughput(eps, w, cfg.Duration)
		if err != nil {
			return err
		}
		f.Throughput[strconv.Itoa(n)] = steps
		cfg.logf("  N=%d: %.0f steps/s", n, steps)
		if last {
			total := rss() - before
			f.RSSActive, f.RSSTotal, f.RSSEpisodes = total/int64(n), total, n
		}
		for _, ep := range eps {
			ep.close()
		}
		eps = eps[:0]
		if last {
			break
		}
	}
	return nil
}

func throughput(eps []episode, w *workload, d time.Duration) (float64, error) {
	var stop atomic.Bool
	var total atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, len(eps))
	start := time.Now()
	for i, ep := range eps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(i), 5))
			n := int64(0)
			for !stop.Load() {
				if err := ep.step(w.mix(r)); err != nil {
					errs <- err
					return
				}
				n++
				if n%20 == 0 && !stop.Load() { // an episode: 20 steps, then a reset
					if err := ep.reset(); err != nil {
						errs <- err
						return
					}
				}
			}
			total.Add(n)
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	elapsed := time.Since(start)
	select {
	case err := <-errs:
		return 0, err
	default:
	}
	return float64(total.Load()) / elapsed.Seconds(), nil
}
