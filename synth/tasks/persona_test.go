package tasks_test

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// corpusDB loads a dump of the tuning corpus (synth/testdata/corpus) into
// a SQLite file under dir.
func corpusDB(t *testing.T, dir, name string) string {
	t.Helper()
	dump, err := os.ReadFile(filepath.Join("..", "testdata", "corpus", name+".sql"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(string(dump)); err != nil {
		t.Fatal(err)
	}
	return path
}

var airline struct {
	once  sync.Once
	tasks []envpkg.Task
	stats string
	plain int
	err   error
}

// airlineTasks is the procedural route's set on the tuning corpus's
// airline (users and their reservations), as make-envs.sh makes it: 220
// tasks, seed 1, the domain toolset. One run serves the tests of the
// bars.
func airlineTasks(t *testing.T) []envpkg.Task {
	airline.once.Do(func() {
		dir, err := os.MkdirTemp("", "bars")
		if err != nil {
			airline.err = err
			return
		}
		defer os.RemoveAll(dir)
		res, err := synth.FromDB(context.Background(), corpusDB(t, dir, "airline"), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 220, Seed: 1, Toolset: toolgen.ToolsetDomain})
		if err != nil {
			airline.err = err
			return
		}
		airline.tasks, airline.plain = res.Tasks, res.Summary.Tasks.Plain
		airline.stats = res.Summary.Tasks.Short
	})
	if airline.err != nil {
		t.Fatal(airline.err)
	}
	if len(airline.tasks) == 0 {
		t.Fatal("no task")
	}
	return airline.tasks
}

// TestGroundTruthMedianBar: issue 34's first bar, a ground-truth median
// of four calls or more, on a tuning database with people who own rows.
// Persona-anchored tasks are the main path (find the user, list their
// rows, read what the decision needs, act or answer), and plain tasks are
// at most a quarter of the set, counted honestly in the summary. At
// ef02254 the median was 2 and 110 of 220 tasks were plain.
func TestGroundTruthMedianBar(t *testing.T) {
	tasks := airlineTasks(t)
	var calls []int
	plain := 0
	for _, task := range tasks {
		calls = append(calls, len(task.Calls))
		if isPlain(task) {
			plain++
		}
	}
	sort.Ints(calls)
	n := len(tasks)
	if median := float64(calls[(n-1)/2]+calls[n/2]) / 2; median < 4 {
		t.Errorf("median ground truth %g calls, want 4 or more", median)
	}
	if plain != airline.plain || 4*plain > n {
		t.Errorf("%d plain tasks (summary %d) of %d: the quota is a quarter", plain, airline.plain, n)
	}
	t.Logf("%d tasks, %d plain; short: %q", n, plain, airline.stats)
}

// TestMultiRowBar: issue 34's second bar, 30% or more of the tasks
// change two or more rows (at ef02254: 33 of 220, 15%).
func TestMultiRowBar(t *testing.T) {
	tasks := airlineTasks(t)
	multi := 0
	for _, task := range tasks {
		changes := 0
		for _, c := range task.Checks {
			if !c.Guard {
				changes++
			}
		}
		if changes >= 2 {
			multi++
		}
	}
	if 100*multi < 30*len(tasks) {
		t.Errorf("%d of %d tasks change two or more rows, want 30%% or more", multi, len(tasks))
	}
}

// TestPolicyBarOnThePersonaPath: issue 34's third bar, 15% or more policy
// tasks (the right result is a refusal or other than asked), reached by
// the main path: requests a person makes about their own rows. At
// ef02254 the set had 34 policy tasks of 220, and 5 of them (2%) were
// a person's own.
func TestPolicyBarOnThePersonaPath(t *testing.T) {
	tasks := airlineTasks(t)
	policy, own := 0, 0
	for _, task := range tasks {
		if strings.Contains(task.ID, "-refuse-") {
			policy++
			if task.Persona != "" {
				own++
			}
		}
	}
	if 100*own < 15*len(tasks) {
		t.Errorf("%d of %d tasks are policy tasks a person asks about their own rows (%d policy tasks in all), want 15%% or more", own, len(tasks), policy)
	}
}
