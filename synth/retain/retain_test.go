package retain

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

func TestMain(m *testing.M) { testcache.Main(m) }

// courseEnv builds an environment of the relayed corpus (a real bundle).
func courseEnv(t *testing.T) *runtime.Env {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a guest module")
	}
	ctx := context.Background()
	b, err := compiler.Build(ctx, "../llm/corpus/course-enrolment", compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env, err := runtime.LoadBundle(ctx, b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return env
}

// TestGateMeasuresPassRates: an agent that solves every task (the oracle,
// replaying the ground truth) keeps every task with pass rate 1 of k.
func TestGateMeasuresPassRates(t *testing.T) {
	env := courseEnv(t)
	rep, err := Run(context.Background(), env, Config{K: 3, Agent: rl.Oracle{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Tasks) != len(env.Bundle.Tasks) {
		t.Fatalf("%d results for %d tasks", len(rep.Tasks), len(env.Bundle.Tasks))
	}
	for _, r := range rep.Tasks {
		if r.Fate != Kept || r.Attempts != 3 || r.Solved != 3 || r.PassRate != 1 {
			t.Errorf("%+v", r)
		}
	}
	kept := rep.Apply(env.Bundle.Tasks)
	if len(kept) != len(env.Bundle.Tasks) {
		t.Fatalf("kept %d of %d", len(kept), len(env.Bundle.Tasks))
	}
	for _, task := range kept {
		if d := task.Difficulty; d == nil || d.PassRate == nil || *d.PassRate != 1 || d.Attempts != 3 || d.Hard {
			t.Errorf("%s: difficulty %+v", task.ID, d)
		}
	}
}

// TestGateDropsUnsolvedTasksItCannotExamine: tasks no attempt solves (a
// random policy's) are not kept unexamined.
func TestGateDropsUnsolvedTasksItCannotExamine(t *testing.T) {
	env := courseEnv(t)
	rep, err := Run(context.Background(), env, Config{K: 2, Agent: &rl.Random{StopProb: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Tasks {
		if r.Fate != Dropped || r.Fault != Unexamined || r.Solved != 0 || r.Reason == "" {
			t.Errorf("%+v", r)
		}
	}
	if kept := rep.Apply(env.Bundle.Tasks); len(kept) != 0 {
		t.Errorf("kept %d unexamined tasks", len(kept))
	}
	if rep.PassRate() != 0 || len(rep.Dropped()) != len(env.Bundle.Tasks) {
		t.Errorf("pass rate %g, %d dropped", rep.PassRate(), len(rep.Dropped()))
	}
}

func TestGateNeedsAnAgentAndAPositiveK(t *testing.T) {
	if _, err := Run(context.Background(), nil, Config{}); !errors.Is(err, ErrNoAgent) {
		t.Errorf("no agent: %v", err)
	}
	if _, err := Run(context.Background(), nil, Config{Agent: rl.Oracle{}, K: -1}); err == nil {
		t.Error("k -1 accepted")
	}
}

// TestGateBundleRewritesTheBundle: the gated bundle holds the kept tasks
// with their pass rates, and the report lies beside it.
func TestGateBundleRewritesTheBundle(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a guest module")
	}
	ctx := context.Background()
	b, err := compiler.Build(ctx, "../llm/corpus/bike-rental", compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bike.wasm")
	if err := envpkg.Write(path, b); err != nil {
		t.Fatal(err)
	}
	rep, kept, err := GateBundle(ctx, path, Config{K: 1, Agent: rl.Oracle{}}, runtime.Options{})
	if err != nil || len(kept) != len(b.Tasks) || rep.PassRate() != 1 {
		t.Fatalf("err %v, kept %d of %d, pass rate %v", err, len(kept), len(b.Tasks), rep)
	}
	got, err := envpkg.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range got.Tasks {
		if d := task.Difficulty; d == nil || d.PassRate == nil || *d.PassRate != 1 || d.Attempts != 1 {
			t.Errorf("%s: %+v", task.ID, d)
		}
	}
	if _, err := os.Stat(path + ReportSuffix); err != nil {
		t.Error(err)
	}
	// A gate that keeps nothing leaves the bundle as it was.
	before, _ := os.ReadFile(path)
	if _, _, err := GateBundle(ctx, path, Config{K: 1, Agent: &rl.Random{StopProb: 1}}, runtime.Options{}); err == nil {
		t.Error("a gate that kept nothing succeeded")
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the bundle changed although the gate kept nothing")
	}
}
