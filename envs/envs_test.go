package envs_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/envtest"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/runtime"
)

// Every embedded example builds, is as large as the synthesized environments
// of the field, and every task is solved by its ground-truth calls and not
// by doing nothing.
func TestExamples(t *testing.T) {
	names := envs.Names()
	if len(names) < 3 {
		t.Fatalf("embedded examples: %v", names)
	}
	ctx := context.Background()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := envs.Extract(name, dir); err != nil {
				t.Fatal(err)
			}
			b, err := compiler.BuildFile(ctx, dir, filepath.Join(dir, name+".wasm"), compiler.Options{})
			if err != nil {
				t.Fatal(err)
			}
			env, err := runtime.Load(ctx, filepath.Join(dir, name+".wasm"), runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			// A port's size is τ-bench's; pylibrary, the Python tool-code
			// example (docs/PYTHON.md), is small on purpose.
			if !strings.HasPrefix(name, "taubench-") && name != "pylibrary" {
				if n := len(b.Manifest.Tools); n < 15 {
					t.Errorf("%d tools, want ≥ 15", n)
				}
				if n := len(b.Tasks); n < 10 {
					t.Errorf("%d tasks, want ≥ 10", n)
				}
			}
			// wasmenv test: ground truth valid and at 1.0, the empty episode below.
			r, err := envtest.Run(ctx, env, envtest.Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.Err(); err != nil {
				t.Error(err)
			}
			for i, tr := range r.Tasks {
				if len(b.Tasks[i].Checks) > 0 && tr.Empty >= 1 {
					t.Errorf("%s: an empty episode scores %.2f", tr.ID, tr.Empty)
				}
			}
		})
	}
}

func TestMain(m *testing.M) { testcache.Main(m) }
