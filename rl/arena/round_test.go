package arena

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/retain"
)

// sourceDB writes an example environment's database where from-db can
// read it: the arena's environments are synthesized from databases.
func sourceDB(t *testing.T, dir, name string) string {
	path := filepath.Join(dir, name+".sqlite")
	if err := os.WriteFile(path, rltest.Bundle(t, name).DB, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Two rounds over two synthesized environments with the random policy; the
// trainer is "killed" in round 2 (after evaluation and diagnosis). The
// rerun resumes past round 1, reuses round 2's evaluation as written, and
// finishes; targeted tasks are verified tasks the arena never evaluated.
func TestArenaRoundsResumeAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesizes environments")
	}
	src := t.TempDir()
	out := filepath.Join(t.TempDir(), "run")
	var trained [][]string
	killed, kill := errors.New("killed"), true
	cfg := Config{
		Arena: []Source{
			{Name: "shop", DB: sourceDB(t, src, "store"), Category: "retail"},
			{Name: "agenda", DB: sourceDB(t, src, "calendar"), Category: "productivity"},
		},
		Out: out, Rounds: 2, Seed: 7, EvalTasks: 6, Group: 2, Targeted: 4, Pool: 16, MaxTurns: 6,
		Policy:    &rl.Random{},
		Diagnoser: Procedural{MinSuccess: 1}, // every environment the random policy fails is weak
		Train: func(_ context.Context, round int, b []string) error {
			if round == 2 && kill {
				kill = false
				return killed
			}
			trained = append(trained, b)
			return nil
		},
	}
	var log bytes.Buffer
	cfg.Log = &log
	if _, err := Run(context.Background(), cfg); !errors.Is(err, killed) {
		t.Fatalf("first run: %v, want the kill", err)
	}
	evalBundle := filepath.Join(out, "round-2", "eval", "shop.wasm")
	rollouts := filepath.Join(out, "round-2", "rollouts.jsonl")
	before := stamps(t, evalBundle, rollouts)
	if _, err := os.Stat(filepath.Join(out, "round-2", "round.json")); err == nil {
		t.Fatal("round 2 marked done after the kill")
	}

	log.Reset()
	res, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || !strings.Contains(log.String(), "round 1: done before") {
		t.Fatalf("results %+v, log:\n%s", res, log.String())
	}
	if after := stamps(t, evalBundle, rollouts); after != before {
		t.Errorf("round 2's evaluation was redone: %s → %s", before, after)
	}
	if len(trained) != 2 {
		t.Fatalf("trainer called %d times, want once per round", len(trained))
	}
	for _, r := range res {
		if len(r.Weak) == 0 || r.Gain == nil && r.Round == 2 {
			t.Fatalf("round %+v", r)
		}
		for _, w := range r.Weak {
			if cx := r.Complexified[w]; cx == nil || len(cx.Rows) == 0 {
				t.Errorf("round %d: %s got no distractors: %+v", r.Round, w, cx)
			}
		}
		for _, f := range []string{"report.json", "report.txt", "diagnosis.json", "rollouts.jsonl"} {
			if _, err := os.Stat(filepath.Join(out, "round-"+string(rune('0'+r.Round)), f)); err != nil {
				t.Error(err)
			}
		}
	}
	txt, _ := os.ReadFile(filepath.Join(out, "round-1", "report.txt"))
	diag, _ := os.ReadFile(filepath.Join(out, "round-1", "diagnosis.json"))
	t.Logf("round 1 report:\n%s\ndiagnosis: %s", txt, diag)
	// Targeted tasks: ground truth scores 1.0, none is an evaluated task.
	for _, path := range trained[1] {
		b, err := envpkg.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		eval, err := envpkg.Read(filepath.Join(filepath.Dir(filepath.Dir(path)), "eval", filepath.Base(path)))
		if err != nil {
			t.Fatal(err)
		}
		if len(b.Tasks) == 0 || len(unseen(b.Tasks, eval.Tasks)) != len(b.Tasks) {
			t.Fatalf("%s: %d targeted tasks, some evaluated", path, len(b.Tasks))
		}
		env, err := runtime.LoadBundle(context.Background(), b, runtime.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var oracle rltest.Collect
		if _, err := rl.Run(context.Background(), []*runtime.Env{env}, rl.Oracle{}, rl.Config{Group: 1, MaxTurns: 40}, &oracle); err != nil {
			t.Fatal(err)
		}
		for _, r := range oracle.All() {
			if r.Reward != 1 {
				t.Errorf("%s: targeted task %s: ground truth scores %.2f", path, r.Task, r.Reward)
			}
		}
		env.Close()
	}
	// Another configuration in the same folder is refused.
	cfg.EvalTasks = 7
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("changed settings: %v", err)
	}
	// So is a retention gate the earlier rounds' evaluation tasks did not pass.
	cfg.EvalTasks = 6
	cfg.Retain = &retain.Config{K: 1, Agent: rl.Oracle{}}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("a retention gate added: %v", err)
	}
}

func stamps(t *testing.T, paths ...string) string {
	var s strings.Builder
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		s.WriteString(fi.ModTime().String() + ";")
	}
	return s.String()
}
