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

var (
	envDir        = filepath.Join("..", "..", "envs", "taubench-retail")
	airlineEnvDir = filepath.Join("..", "..", "envs", "taubench-airline")
)

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

	// Isolated replays each call after its episode's earlier calls and
	// checks its output: a tool per name of the first episodes' calls.
	few := eps[:10]
	per, err := Isolated(ctx, env, few, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range few {
		for _, c := range ep.Calls {
			if per[c.Name] <= 0 {
				t.Errorf("Isolated: no time for %s", c.Name)
			}
		}
	}
	broken := []RefEpisode{eps[0]}
	broken[0].Outputs = append([]*string{ptr("not the output")}, eps[0].Outputs[1:]...)
	if _, err := Isolated(ctx, env, broken, 1); err == nil {
		t.Error("Isolated with a wrong reference output: no error")
	}
}

func ptr(s string) *string { return &s }

// TestAirlinePythonBaselineVerifies runs baseline_airline.py's verification
// (outputs byte for byte, diffs, rewards) on the first airline episodes and
// the first of the port's error and quirk cases; the benchmark command
// verifies all of them before timing (each episode reloads 3 MB of JSON
// twice, too slow for every test run on a shared 2-core machine).
func TestAirlinePythonBaselineVerifies(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found on PATH: the airline baseline cannot be checked")
	}
	for _, c := range []struct {
		refs          []string
		episodes, out int
	}{
		{RefFiles(airlineEnvDir), 5, 12},
		{[]string{filepath.Join(airlineEnvDir, "testdata", "cases_ref.jsonl")}, 5, 27},
	} {
		res, err := RunPython(context.Background(), PyOptions{
			Python: py, Script: "baseline_airline.py", DataDir: filepath.Join(airlineEnvDir, "data"),
			Refs: c.refs, Limit: c.episodes, VerifyOnly: true, Stderr: os.Stderr,
		})
		if err != nil {
			t.Fatal(err)
		}
		if v := res.Verify; !v.OK || v.Episodes != c.episodes || v.OutputsMatched != c.out {
			t.Errorf("%v: %s (ok %v), want %d/%d outputs; mismatches: %v", c.refs, v.String(), v.OK, c.out, c.out, v.Mismatches)
		}
	}
}

// TestAirlineGoReplay replays the 50 airline episodes on the bundle, then
// one timed pass.
func TestAirlineGoReplay(t *testing.T) {
	ctx := context.Background()
	eps, err := LoadRefs(RefFiles(airlineEnvDir)...)
	if err != nil {
		t.Fatal(err)
	}
	env, _, err := LoadEnv(ctx, "", airlineEnvDir)
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
	if !v.OK || v.Outputs != 158 || v.Episodes != 50 {
		t.Fatalf("wasmenv verification: %s, want 158/158 outputs, 50/50 diffs and rewards; mismatches: %v", v.String(), v.Mismatches)
	}
	b, err := r.Bench(ctx, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if b.Call.N != 158 || b.Reset.N != 50 || b.Call.N != b.CallRead.N+b.CallWrite.N || b.CallWrite.N != 56 {
		t.Errorf("sample counts: calls %d, resets %d, reads %d, writes %d", b.Call.N, b.Reset.N, b.CallRead.N, b.CallWrite.N)
	}
}

func TestDomain(t *testing.T) {
	if d := Domain(airlineEnvDir); d != "airline" {
		t.Errorf("Domain(%s) = %q", airlineEnvDir, d)
	}
	if n := len(RefFiles(airlineEnvDir)); n != 1 {
		t.Errorf("airline has %d reference files, want 1 (no dev split)", n)
	}
	if n := len(RefFiles(envDir)); n != 2 {
		t.Errorf("retail has %d reference files, want 2", n)
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

// TestEndToEndReplaysEveryEpisode runs the end-to-end figure's `wasmenv
// replay` process on a few reference episodes: every output line must
// score 1, and the three runs must all have happened.
func TestEndToEndReplaysEveryEpisode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the wasmenv command")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "wasmenv")
	build := exec.Command("go", "build", "-o", exe, "../../cmd/wasmenv")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	bundle := filepath.Join(dir, "retail.wasm")
	if out, err := exec.Command(exe, "build", envDir, "-o", bundle).CombinedOutput(); err != nil {
		t.Fatalf("wasmenv build: %v\n%s", err, out)
	}
	eps := loadRefs(t)[:8]
	r, err := RunEndToEnd(context.Background(), exe, bundle, eps, 2)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lines != 16 || r.Rewards != 16 {
		t.Fatalf("%d lines, %d with reward 1; want 16 and 16", r.Lines, r.Rewards)
	}
	for i, w := range r.WallNS {
		if w <= 0 {
			t.Fatalf("run %d has no wall time: %v", i, r.WallNS)
		}
	}
	if _, err := RunEndToEnd(context.Background(), exe, bundle, eps, 1); err == nil {
		t.Fatal("one copy accepted: the slope needs two runs with episodes")
	}
}

func TestCountRewards(t *testing.T) {
	out := []byte(`{"id":"a","score":{"reward":1}}
{"id":"b","score":{"reward":0}}
{"id":"c","error":"line 3: boom","score":{"reward":1}}
{"id":"d"}
`)
	if r, l, err := countRewards(out); err != nil || r != 1 || l != 4 {
		t.Fatalf("got %d rewards of %d lines, %v; want 1 of 4", r, l, err)
	}
	if _, _, err := countRewards([]byte("{not json\n")); err == nil {
		t.Fatal("a broken line was counted")
	}
}
