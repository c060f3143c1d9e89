package synth_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envtest"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
)

// corpusDB loads testdata/corpus/<name>.sql (a public database, see
// SOURCE.md) into a SQLite file.
func corpusDB(t testing.TB, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "corpus", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	return sqlDB(t, dir, name+".sqlite", string(b))
}

// corpusNames lists the dumps of testdata/corpus.
func corpusNames(t testing.TB) []string {
	m, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range m {
		out = append(out, strings.TrimSuffix(filepath.Base(p), ".sql"))
	}
	return out
}

// TestCorpus synthesizes every public database of the corpus and the
// shapes built here (a library with a view, an audit trigger and
// self-references; a deep hierarchy), and checks what a user gets: every
// tool passes its smoke test, every kept task replays to 1.0 and passes
// wasmenv test, a random policy scores clearly below.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes every corpus database")
	}
	dbs := map[string]func(t testing.TB, dir string) string{
		"library":   func(t testing.TB, dir string) string { return sqlDB(t, dir, "library.sqlite", librarySQL) },
		"hierarchy": func(t testing.TB, dir string) string { return sqlDB(t, dir, "hierarchy.sqlite", hierarchySQL()) },
	}
	for _, name := range corpusNames(t) {
		dbs[name] = func(t testing.TB, dir string) string { return corpusDB(t, dir, name) }
	}
	if len(dbs) < 8 {
		t.Fatalf("corpus of %d databases, want ≥ 8", len(dbs))
	}
	for name, make := range dbs {
		t.Run(name, func(t *testing.T) {
			db := make(t, t.TempDir())
			out := filepath.Join(t.TempDir(), "env")
			res, err := synth.FromDB(context.Background(), db, synth.Options{Out: out, Tasks: corpusTasks, Seed: 11})
			if err != nil {
				t.Fatal(err)
			}
			res.Summary.Print(testWriter{t})
			checkCorpusResult(t, res)
		})
	}
}

// corpusTasks is the number of tasks asked of each corpus database.
const corpusTasks = 40

func checkCorpusResult(t *testing.T, res *synth.Result) {
	s := res.Summary
	if s.SmokePassed != s.Tools || s.Tools == 0 {
		t.Errorf("smoke: %d of %d", s.SmokePassed, s.Tools)
	}
	if len(res.Tasks) < corpusTasks/2 {
		t.Errorf("kept %d tasks of %d asked", len(res.Tasks), corpusTasks)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	rep, err := envtest.Run(context.Background(), env, envtest.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Tasks {
		if len(tr.Problems) > 0 {
			t.Errorf("envtest: task %s: %v", tr.ID, tr.Problems)
		}
	}
	gt, rnd, solved := replayAndRandom(t, env)
	t.Logf("mean reward: ground truth %.3f, random policy %.3f (solves %d of %d)", gt, rnd, solved, len(res.Bundle.Tasks))
	if gt != 1 {
		t.Errorf("ground truth mean reward %.3f, want 1", gt)
	}
	if rnd > 0.6*gt {
		t.Errorf("random policy %.3f is not clearly below the ground truth %.3f", rnd, gt)
	}
}
