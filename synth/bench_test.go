//go:build unix

package synth_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/synth"
)

// cpuSeconds is the user + system CPU time so far of this process and its
// finished children (the go build of the tool module).
func cpuSeconds() float64 {
	total := 0.0
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		syscall.Getrusage(who, &ru)
		tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
		total += tv(ru.Utime) + tv(ru.Stime)
	}
	return total
}

// BenchmarkFromDB10MB synthesizes an environment and 500 tasks from a
// 10 MB database (the test schema at scale 290: 11 tables, ~174k rows).
// Each iteration builds the tool module cold (a fresh cache directory;
// the Go build cache stays warm, as on a user's machine after one build).
// Besides wall time it reports CPU seconds (user + system, all threads):
// on a shared machine the wall time says more about the neighbours.
func BenchmarkFromDB10MB(b *testing.B) {
	dir := b.TempDir()
	db := filepath.Join(dir, "library.sqlite")
	makeDB(b, db, 290)
	fi, _ := os.Stat(db)
	for i := 0; b.Loop(); i++ {
		b.ReportMetric(float64(fi.Size())/(1<<20), "db_MB")
		cache := filepath.Join(dir, "cache", time.Now().Format("150405.000000"))
		os.Setenv("WASMENV_CACHE", cache)
		cpu0 := cpuSeconds()
		res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 500, Seed: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(cpuSeconds()-cpu0, "cpu_s")
		if len(res.Tasks) != 500 {
			b.Fatalf("kept %d tasks", len(res.Tasks))
		}
		for _, t := range res.Summary.Timings {
			b.ReportMetric(t.Seconds, t.Stage+"_s")
		}
		b.ReportMetric(res.Summary.Chain3Plus, "share_3plus")
		if i == 0 {
			res.Summary.Print(os.Stderr)
		}
	}
}
