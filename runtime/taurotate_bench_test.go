package runtime_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/bench/taubench"
	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/runtime"
)

// BenchmarkTauRotate is bench/taubench's and `wasmenv replay`'s shape on
// τ-bench retail: one live episode per reference episode (135), each in
// turn reset and replayed, then DiffAndHash. It reports per episode the
// reset, the first call, the other calls, DiffAndHash (wall) and the
// process's CPU time. Knobs (environment variables), to see what the
// number of connections touched in turn costs:
//
//	TAUROT_MAXCONNS=n  Options.MaxConns (0: the default, -1: no limit)
//	TAUROT_N=n         replay on the first n episodes only
//	TAUROT_ONE=1       replay every reference episode on one episode
//
//	go test -run '^$' -bench TauRotate -benchtime 4000x ./runtime
func BenchmarkTauRotate(b *testing.B) {
	ctx := context.Background()
	dir := filepath.Join("..", "envs", "taubench-retail")
	refs, err := taubench.LoadRefs(taubench.RefFiles(dir)...)
	if err != nil {
		b.Fatal(err)
	}
	bun, err := compiler.Build(ctx, dir, compiler.Options{})
	if err != nil {
		b.Fatal(err)
	}
	mc, _ := strconv.Atoi(os.Getenv("TAUROT_MAXCONNS"))
	env, err := runtime.LoadBundle(ctx, bun, runtime.Options{MaxConns: mc})
	if err != nil {
		b.Fatal(err)
	}
	defer env.Close()
	eps := make([]*runtime.Episode, len(refs))
	for i, r := range refs {
		if eps[i], err = env.NewEpisode(r.ID, 0); err != nil {
			b.Fatal(err)
		}
		defer eps[i].Close()
		for _, c := range r.Calls {
			if _, err := eps[i].Call(ctx, c.Name, c.Arguments); err != nil {
				b.Fatal(err)
			}
		}
	}
	one := os.Getenv("TAUROT_ONE") != ""
	rot, _ := strconv.Atoi(os.Getenv("TAUROT_N"))
	var reset, first, rest, dh time.Duration
	i := 0
	var ru0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	for b.Loop() {
		ref, ep := refs[i%len(refs)], eps[i%len(refs)]
		if one {
			ep = eps[0]
		} else if rot > 0 {
			ep = eps[i%rot]
		}
		i++
		t0 := time.Now()
		if err := ep.Reset(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		reset += t1.Sub(t0)
		for j, c := range ref.Calls {
			t0 := time.Now()
			if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
				b.Fatal(err)
			}
			if j == 0 {
				first += time.Since(t0)
			} else {
				rest += time.Since(t0)
			}
		}
		t0 = time.Now()
		if _, _, err := ep.DiffAndHash(); err != nil {
			b.Fatal(err)
		}
		dh += time.Since(t0)
	}
	var ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
	n := float64(b.N)
	b.ReportMetric(float64(cpu)/n, "cpu-ns/op")
	b.ReportMetric(float64(reset.Nanoseconds())/n, "reset-ns")
	b.ReportMetric(float64(first.Nanoseconds())/n, "first-ns")
	b.ReportMetric(float64(rest.Nanoseconds())/n, "rest-ns")
	b.ReportMetric(float64(dh.Nanoseconds())/n, "dh-ns")
}
