package taubench

// Behaviour only: both sides of the benchmark must reproduce τ-bench's
// reference episodes. No timing is asserted.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var envDir = filepath.Join("..", "..", "envs", "taubench-retail")

func loadRefs(t *testing.T) []RefEpisode {
	t.Helper()
	eps, err := LoadRefs(RefFiles(envDir)...)
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != 135 {
		t.Fatalf("%d reference episodes, want 135", len(eps))
	}
	return eps
}

// TestPythonBaselineVerifies runs baseline.py's own verification on the
// first episodes: outputs, state diffs and τ-bench's reward must match.
func TestPythonBaselineVerifies(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH: the Python baseline (bench/taubench/baseline.py) cannot be checked")
	}
	const n = 6
	eps := loadRefs(t)[:n]
	res, err := RunPython(context.Background(), PyOptions{
		Python: py, Script: "baseline.py", DataDir: filepath.Join(envDir, "data"),
		Refs: RefFiles(envDir), Limit: n, VerifyOnly: true, Stderr: os.Stderr,
	})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, ep := range eps {
		calls += len(ep.Calls)
	}
	v := res.Verify
	if !v.OK || v.Episodes != n || v.Outputs != calls || v.OutputsMatched != calls {
		t.Fatalf("baseline verification: %s (ok %v), want %d/%d outputs; mismatches: %v", v.String(), v.OK, calls, calls, v.Mismatches)
	}
	if res.Bench != nil {
		t.Errorf("--verify-only ran the timings")
	}
}

// TestGoReplay replays all reference episodes on the bundle: every output,
// every state diff and every reward must match; then one timed pass (reset
// and replay on the same episodes) must keep the rewards at 1.
func TestGoReplay(t *testing.T) {
	ctx := context.Background()
	eps := loadRefs(t)
	env, _, err := LoadEnv(ctx, "", envDir)
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	r := &Replayer{Env: env, Eps: eps}
	defer r.Close()
	v, err := r.Verify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK || v.Outputs != 607 {
		t.Fatalf("wasmenv verification: %s, want 607/607 outputs, 135/135 diffs and rewards; mismatches: %v", v.String(), v.Mismatches)
	}
	b, err := r.Bench(ctx, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Call.N != 607 || b.Reset.N != 135 || b.Call.N != b.CallRead.N+b.CallWrite.N || len(b.TotalNS) != 1 || b.Reward.N != 135 {
		t.Errorf("sample counts: %+v", b)
	}
}

func TestSameOutput(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{`{"a": 1, "b": [2.0]}`, `{"b":[2],"a":1.0}`, true},
		{`{"a": 1}`, `{"a": 2}`, false},
		{"Error: order not found", "Error: order not found", true},
		{"", "", true},
		{"8.0", "8", true},
		{"Transfer successful", "Transfer failed", false},
	} {
		if got := SameOutput(c.a, c.b); got != c.want {
			t.Errorf("SameOutput(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

func TestSummarize(t *testing.T) {
	var s []int64
	for i := int64(100); i >= 1; i-- {
		s = append(s, i)
	}
	got := Summarize(s)
	if got.N != 100 || got.P50NS != 50 || got.P99NS != 99 || got.MeanNS != 50 {
		t.Errorf("Summarize(1..100) = %+v", got)
	}
	if one := Summarize([]int64{7}); one.P50NS != 7 || one.P99NS != 7 {
		t.Errorf("Summarize([7]) = %+v", one)
	}
}
