package pywasm_test

import (
	"os"
	"os/exec"
	"path/filepath"
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
