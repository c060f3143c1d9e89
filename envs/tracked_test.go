package envs_test

import (
	"context"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/runtime"
)

// writtenCall matches a check's call of envpkg.WrittenFunc with its table.
var writtenCall = regexp.MustCompile(regexp.QuoteMeta(envpkg.WrittenFunc) + `\(('(?:[^']|'')*')\)`)

// Issue 35: the synthesized environments' state checks read the rows the
// episode wrote (wasmenv_written) instead of every table, with results
// identical to the whole-table comparison. Each check is evaluated both
// ways, the second with every wasmenv_written(t) replaced by NULL (which
// takes the whole-table branch, today's SQL), on episodes that replay the
// ground truth of random tasks, whole or cut short, so that the states
// hold the writes of many tasks, right and wrong for the task scored.
func TestTrackedChecksMatchWholeTable(t *testing.T) {
	episodes := 400
	if testing.Short() {
		episodes = 60
	}
	ctx := context.Background()
	for _, name := range envs.Names() {
		if strings.HasPrefix(name, "taubench-") {
			continue
		}
		dir := t.TempDir()
		if err := envs.Extract(name, dir); err != nil {
			t.Fatal(err)
		}
		b, err := compiler.Build(ctx, dir, compiler.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tracked, writes := 0, false
		for i := range b.Tasks {
			task := &b.Tasks[i]
			n := len(task.Checks)
			for _, c := range task.Checks[:n] {
				writes = writes || !c.Guard
				if writtenCall.MatchString(c.SQL) {
					tracked++
				}
				whole := writtenCall.ReplaceAllString(c.SQL, "nullif($1, $1)")
				task.Checks = append(task.Checks, envpkg.Check{Name: "whole: " + c.Name, SQL: whole, Guard: c.Guard})
			}
		}
		if tracked == 0 {
			continue // a hand-written environment
		}
		t.Run(name, func(t *testing.T) {
			env, err := runtime.LoadBundle(ctx, b, runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			rng := rand.New(rand.NewPCG(35, uint64(len(name))))
			passed, compared := 0, 0
			for range episodes {
				task := &b.Tasks[rng.IntN(len(b.Tasks))]
				ep, err := env.NewEpisode(task.ID, 1)
				if err != nil {
					t.Fatal(err)
				}
				// Up to three tasks' ground truth; the scored task's own
				// among them half the time.
				var calls []envpkg.Call
				for range rng.IntN(4) {
					other := &b.Tasks[rng.IntN(len(b.Tasks))]
					if rng.IntN(2) == 0 {
						other = task
					}
					cs := other.Calls
					if rng.IntN(3) == 0 {
						cs = cs[:rng.IntN(len(cs)+1)]
					}
					calls = append(calls, cs...)
				}
				for _, c := range calls {
					if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
						t.Fatal(err)
					}
				}
				s, err := ep.Score(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				byName := map[string]bool{}
				for _, c := range s.Checks {
					byName[c.Name] = c.Passed
				}
				for _, c := range s.Checks {
					if strings.HasPrefix(c.Name, "whole: ") || strings.HasPrefix(c.Name, runtime.AnswerCheckPrefix) {
						continue
					}
					compared++
					if c.Passed {
						passed++
					}
					if w := byName["whole: "+c.Name]; w != c.Passed {
						t.Errorf("task %s after %d calls: check %q is %v tracked, %v whole-table", task.ID, len(calls), c.Name, c.Passed, w)
					}
				}
				ep.Close()
			}
			// Both outcomes occur, or the comparison proves little; an
			// environment whose tasks change nothing (every check a "nothing
			// changed" guard: a read-only scope, chinook since round 9) has
			// no ground truth that fails one, so only the agreement counts.
			if passed == 0 || (passed == compared && writes) {
				t.Errorf("%d of %d checks passed: the states tried are too alike", passed, compared)
			}
			t.Logf("%d episodes, %d checks compared (%d passed), %d checks tracked", episodes, compared, passed, tracked)
		})
	}
}
