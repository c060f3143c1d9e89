package pywasm_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/bench/taubench"
	tb "github.com/wasmenv/wasmenv/internal/taubenchtest"
)

// τ-bench retail's 16 tools written in Python against wasmenv.data
// (testdata/taubench-retail/tools/retail.py, from
// /work/shared/taubench-retail/TOOLS.md), over the Go port's env.yaml,
// schema and data: every reference episode's outputs are byte-identical
// to τ-bench's and its state diff equal, as the Go port's are.
func TestTaubenchRetailInPython(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI and replays 135 episodes")
	}
	h, port := retailHarness(t)
	refs, err := taubench.LoadRefs(filepath.Join(port, "testdata", "test_ref.jsonl"), filepath.Join(port, "testdata", "dev_ref.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 135 {
		t.Fatalf("%d reference episodes, want 135", len(refs))
	}
	if n := h.CheckEpisodes(t, refs); n != 607 {
		t.Errorf("%d calls, want 607", n)
	}
}

// On 1,000 random sequences of the reference episodes' calls (1 to 8
// calls, from any episodes, in any order: writes on records other calls
// changed, errors, repeats), the Python port and the Go port give the
// same output for every call and the same state diff for every sequence.
func TestTaubenchRetailPythonMatchesGoPortOnRandomSequences(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both ports and replays 1,000 sequences")
	}
	py, port := retailHarness(t)
	goPort := tb.Harness{CLI: py.CLI, Bundle: filepath.Join(t.TempDir(), "retail-go.wasm")}
	if out, err := exec.Command(py.CLI, "build", port, "-o", goPort.Bundle).CombinedOutput(); err != nil {
		t.Fatalf("wasmenv build %s: %v\n%s", port, err, out)
	}
	refs, err := taubench.LoadRefs(filepath.Join(port, "testdata", "test_ref.jsonl"), filepath.Join(port, "testdata", "dev_ref.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var pool []tb.Call
	for _, ep := range refs {
		pool = append(pool, ep.Calls...)
	}
	rng := rand.New(rand.NewPCG(39, 1))
	in := make([]tb.ReplayIn, 1000)
	for i := range in {
		in[i].ID = fmt.Sprintf("seq-%d", i)
		for range 1 + rng.IntN(8) {
			in[i].Calls = append(in[i].Calls, pool[rng.IntN(len(pool))])
		}
	}
	want, got := goPort.Replay(t, in), py.Replay(t, in)
	calls, bad := 0, 0
	for _, seq := range in {
		g, w := got[seq.ID], want[seq.ID]
		if len(g.Outputs) != len(w.Outputs) {
			t.Fatalf("%s: %d outputs, Go port %d", seq.ID, len(g.Outputs), len(w.Outputs))
		}
		for i := range w.Outputs {
			calls++
			if g.Outputs[i] != w.Outputs[i] {
				bad++
				t.Errorf("%s call %d (%s %s):\n python %s\n go     %s", seq.ID, i, seq.Calls[i].Name, seq.Calls[i].Arguments,
					tb.Clip(g.Outputs[i]), tb.Clip(w.Outputs[i]))
			}
		}
		if m := tb.DiffMismatches(g.StateDiff, w.StateDiff); len(m) > 0 {
			bad++
			t.Errorf("%s: state diffs differ:\n  %s", seq.ID, strings.Join(m, "\n  "))
		}
	}
	t.Logf("%d sequences, %d calls: %d mismatches", len(in), calls, bad)
}

// retailHarness builds the CLI and the Python port's bundle: the Go port's
// env.yaml, schema and data with testdata/taubench-retail/tools/retail.py.
func retailHarness(t *testing.T) (tb.Harness, string) {
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	port := filepath.Join(root, "envs", "taubench-retail")
	dir := t.TempDir()
	env := filepath.Join(dir, "env")
	for _, f := range []string{"env.yaml", "schema.sql", "data/users.json", "data/products.json", "data/orders.json"} {
		copyFile(t, filepath.Join(port, f), filepath.Join(env, f))
	}
	copyFile(t, filepath.Join("testdata", "taubench-retail", "tools", "retail.py"), filepath.Join(env, "tools", "retail.py"))
	h := tb.Harness{CLI: filepath.Join(dir, "wasmenv"), Bundle: filepath.Join(dir, "retail-py.wasm")}
	build := exec.Command("go", "build", "-o", h.CLI, "./cmd/wasmenv")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if out, err := exec.Command(h.CLI, "build", env, "-o", h.Bundle).CombinedOutput(); err != nil {
		t.Fatalf("wasmenv build: %v\n%s", err, out)
	}
	return h, port
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
