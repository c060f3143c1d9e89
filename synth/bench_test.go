package synth_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/synth"
)

// BenchmarkFromDB10MB synthesizes an environment and 500 tasks from a
// ~10 MB database (the test schema at scale 200: 11 tables, ~100k rows).
// The first iteration builds the tool module cold (the test binary has
// its own empty cache); run with -benchtime=1x for the cold figure.
func BenchmarkFromDB10MB(b *testing.B) {
	dir := b.TempDir()
	db := filepath.Join(dir, "library.sqlite")
	makeDB(b, db, 200)
	fi, _ := os.Stat(db)
	b.ReportMetric(float64(fi.Size())/(1<<20), "db_MB")
	for i := 0; b.Loop(); i++ {
		res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 500, Seed: int64(i)})
		if err != nil {
			b.Fatal(err)
		}
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
