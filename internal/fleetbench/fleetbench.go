package fleetbench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/rl"
	wrt "github.com/wasmenv/wasmenv/runtime"
)

// Config says what to measure.
type Config struct {
	Bundles  []string // bundle files; every task of each is one group
	Group    int      // rollouts per group (default 16)
	MaxTurns int      // default 20
	Seed     int64
	Workers  []int // worker process counts (default 1, 2, 4)
	Slots    int   // jobs each worker runs at once (default 1)
	Runs     int   // measured runs per point, after one warm-up (default 3)
	Binary   string
	Log      func(string)
}

// Point is one configuration's measured runs; the rates are the median
// run's.
type Point struct {
	Where          string    `json:"where"`
	Workers        int       `json:"workers,omitempty"`
	Rollouts       int       `json:"rollouts"`
	Steps          int       `json:"steps"`
	Seconds        []float64 `json:"seconds"`
	RolloutsPerSec float64   `json:"rollouts_per_second"`
	StepsPerSec    float64   `json:"steps_per_second"`
}

// Overhead is the cost of one job on the fleet beside in this process:
// groups of one rollout of one turn, one at a time.
type Overhead struct {
	Jobs            int     `json:"jobs"`
	InProcessMicros float64 `json:"in_process_us_per_job"` // median run
	FleetMicros     float64 `json:"fleet_us_per_job"`
	OverheadMicros  float64 `json:"overhead_us_per_job"`
}

// Report is the whole measurement.
type Report struct {
	CPUs      int      `json:"cpus"`
	GoVersion string   `json:"go"`
	LoadStart string   `json:"loadavg_start"`
	LoadEnd   string   `json:"loadavg_end"`
	Groups    int      `json:"groups"`
	Group     int      `json:"group"`
	MaxTurns  int      `json:"max_turns"`
	Slots     int      `json:"jobs_per_worker"`
	Points    []Point  `json:"points"`
	Overhead  Overhead `json:"overhead"`
}

func (c *Config) defaults() {
	set := func(v *int, d int) {
		if *v < 1 {
			*v = d
		}
	}
	set(&c.Group, 16)
	set(&c.MaxTurns, 20)
	set(&c.Slots, 1)
	set(&c.Runs, 3)
	if len(c.Workers) == 0 {
		c.Workers = []int{1, 2, 4}
	}
	if c.Log == nil {
		c.Log = func(string) {}
	}
}

// Run measures. It starts an embedded NATS server and the worker
// processes (cfg.Binary worker …) itself and stops them before returning.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg.defaults()
	var files []*fleet.BundleFile
	var decoded []*envpkg.Bundle
	for _, p := range cfg.Bundles {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		b, err := fleet.ReadBundle(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		files, decoded = append(files, b), append(decoded, b.Bundle)
	}
	spec := &fleet.Spec{Group: cfg.Group, Seed: cfg.Seed, MaxTurns: cfg.MaxTurns, Policy: fleet.PolicySpec{Kind: "random"}}
	refs, err := fleet.Plan(decoded, "")
	if err != nil {
		return nil, err
	}
	rep := &Report{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), LoadStart: loadavg(),
		Groups: len(refs), Group: cfg.Group, MaxTurns: cfg.MaxTurns, Slots: cfg.Slots}
	envs := map[string]*wrt.Env{}
	defer func() {
		for _, e := range envs {
			e.Close()
		}
	}()
	for _, b := range files {
		if envs[b.Bundle.Hash] == nil {
			e, err := wrt.LoadBundle(ctx, b.Bundle, wrt.Options{})
			if err != nil {
				return nil, err
			}
			envs[b.Bundle.Hash] = e
		}
	}
	dir, err := os.MkdirTemp("", "wasmenv-fleet-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var cleanups []func() // run last first
	defer func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
	}()
	// Each worker set has a server of its own, so that every set stays up
	// and the points are measured in interleaved rounds: a machine whose
	// load drifts (another job starting) hits every point alike.
	type target struct {
		where   string
		workers int
		run     func(spec *fleet.Spec) (*rl.Summary, error)
	}
	var targets []target
	for _, p := range []struct {
		where    string
		parallel int
	}{{"in-process, one group at a time", 1}, {"in-process, all groups at once", len(refs)}} {
		targets = append(targets, target{p.where, 0, func(spec *fleet.Spec) (*rl.Summary, error) {
			return fleet.RunLocal(ctx, envs, spec, refs, p.parallel, discard{}, nil)
		}})
	}
	// onServer starts a server and n workers on it; its driver runs a spec.
	onServer := func(name string, n, slots int) (func(spec *fleet.Spec) (*rl.Summary, error), error) {
		srv, err := fleet.StartServer(fleet.ServerConfig{Port: -1, StoreDir: dir + "/js-" + name})
		if err != nil {
			return nil, err
		}
		cleanups = append(cleanups, func() { srv.Shutdown(); srv.WaitForShutdown() })
		nc, err := nats.Connect(srv.ClientURL())
		if err != nil {
			return nil, err
		}
		cleanups = append(cleanups, nc.Close)
		stop, err := startWorkers(cfg, srv.ClientURL(), dir+"/w-"+name, n, slots)
		if err != nil {
			return nil, err
		}
		cleanups = append(cleanups, stop)
		d := &fleet.Driver{NC: nc}
		return func(spec *fleet.Spec) (*rl.Summary, error) { return d.Run(ctx, files, spec, refs, discard{}) }, nil
	}
	for _, n := range cfg.Workers {
		run, err := onServer(strconv.Itoa(n), n, cfg.Slots)
		if err != nil {
			return nil, err
		}
		where := fmt.Sprintf("NATS, %d worker processes", n)
		if n == 1 {
			where = "NATS, 1 worker process"
		}
		targets = append(targets, target{where, n, run})
	}
	// The overhead per job: the smallest job, one at a time, in this
	// process and on one worker process running one job at a time.
	tiny := &fleet.Spec{Group: 1, Seed: cfg.Seed, MaxTurns: 1, Policy: fleet.PolicySpec{Kind: "random"}}
	runTiny, err := onServer("overhead", 1, 1)
	if err != nil {
		return nil, err
	}
	overhead := []target{
		{"overhead in-process", 0, func(spec *fleet.Spec) (*rl.Summary, error) {
			return fleet.RunLocal(ctx, envs, spec, refs, 1, discard{}, nil)
		}},
		{"overhead on 1 worker", 1, runTiny},
	}

	measure := func(ts []target, spec *fleet.Spec) ([]Point, error) {
		points := make([]Point, len(ts))
		for round := -1; round < cfg.Runs; round++ { // round -1 warms up (bundles loaded, streams made)
			for i, t := range ts {
				start := time.Now()
				sum, err := t.run(spec)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", t.where, err)
				}
				if round >= 0 {
					p := &points[i]
					p.Where, p.Workers, p.Rollouts, p.Steps = t.where, t.workers, sum.Rollouts, sum.EnvSteps
					p.Seconds = append(p.Seconds, time.Since(start).Seconds())
				}
			}
		}
		for i := range points {
			p := &points[i]
			m := median(p.Seconds)
			p.RolloutsPerSec, p.StepsPerSec = float64(p.Rollouts)/m, float64(p.Steps)/m
			cfg.Log(fmt.Sprintf("%-34s %8.0f rollouts/s %9.0f steps/s  (runs %v)", p.Where, p.RolloutsPerSec, p.StepsPerSec, p.Seconds))
		}
		return points, nil
	}
	if rep.Points, err = measure(targets, spec); err != nil {
		return nil, err
	}
	ov, err := measure(overhead, tiny)
	if err != nil {
		return nil, err
	}
	per := func(p Point) float64 { return median(p.Seconds) / float64(len(refs)) * 1e6 }
	rep.Overhead = Overhead{Jobs: len(refs), InProcessMicros: per(ov[0]), FleetMicros: per(ov[1]), OverheadMicros: per(ov[1]) - per(ov[0])}
	rep.LoadEnd = loadavg()
	return rep, nil
}

// startWorkers starts n `wasmenv worker` processes and returns what stops
// them (SIGINT: they give running jobs back and exit).
func startWorkers(cfg Config, url, dir string, n, slots int) (func(), error) {
	var cmds []*exec.Cmd
	stop := func() {
		for _, c := range cmds {
			c.Process.Signal(os.Interrupt)
		}
		for _, c := range cmds {
			c.Wait()
		}
	}
	for i := range n {
		c := exec.Command(cfg.Binary, "worker", "--nats", url, "--jobs", strconv.Itoa(slots), "-q",
			"--cache", fmt.Sprintf("%s/cache-%d", dir, i))
		c.Stderr = os.Stderr
		if err := c.Start(); err != nil {
			stop()
			return nil, err
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// WriteTable prints the report as a Markdown table.
func (r *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "%d groups of %d rollouts (random policy, at most %d turns); %d CPUs, %s, load %s → %s; workers run %d job(s) at once\n\n",
		r.Groups, r.Group, r.MaxTurns, r.CPUs, r.GoVersion, r.LoadStart, r.LoadEnd, r.Slots)
	fmt.Fprintln(w, "| where | rollouts/s | steps/s | runs (s) |")
	fmt.Fprintln(w, "|---|---:|---:|---|")
	for _, p := range r.Points {
		var runs []string
		for _, s := range p.Seconds {
			runs = append(runs, strconv.FormatFloat(s, 'f', 2, 64))
		}
		fmt.Fprintf(w, "| %s | %.0f | %.0f | %s |\n", p.Where, p.RolloutsPerSec, p.StepsPerSec, strings.Join(runs, ", "))
	}
	o := r.Overhead
	fmt.Fprintf(w, "\nper job (%d jobs of one rollout of one turn, one at a time): %.0f µs in-process, %.0f µs on 1 worker process: NATS adds %.0f µs\n",
		o.Jobs, o.InProcessMicros, o.FleetMicros, o.OverheadMicros)
}

// discard is an output that keeps nothing.
type discard struct{}

func (discard) WriteGroup([]byte) error { return nil }
func (discard) Close() error            { return nil }
func (discard) Abort()                  {}
