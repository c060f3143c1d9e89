package envs_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envs"
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
			if name != "taubench-retail" { // a port: its size is τ-bench's
				if n := len(b.Manifest.Tools); n < 15 {
					t.Errorf("%d tools, want ≥ 15", n)
				}
				if n := len(b.Tasks); n < 10 {
					t.Errorf("%d tasks, want ≥ 10", n)
				}
			}
			for _, task := range b.Tasks {
				ep, err := env.NewEpisode(task.ID, 1)
				if err != nil {
					t.Fatal(err)
				}
				empty, err := ep.Score(ctx, nil)
				if err != nil {
					t.Fatalf("%s: %v", task.ID, err)
				}
				for _, c := range task.Calls {
					if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
						t.Fatalf("%s: %v", task.ID, err)
					}
				}
				var answer *string
				if task.Answer != nil {
					answer = &task.Answer.Value
				}
				solved, err := ep.Score(ctx, answer)
				if err != nil {
					t.Fatalf("%s: %v", task.ID, err)
				}
				if solved.Reward != 1 {
					t.Errorf("%s: ground truth scores %.2f: %+v", task.ID, solved.Reward, solved.Checks)
				}
				if len(task.Checks) > 0 && empty.Reward >= 1 {
					t.Errorf("%s: an empty episode scores %.2f", task.ID, empty.Reward)
				}
				ep.Close()
			}
		})
	}
}

func TestMain(m *testing.M) { testcache.Main(m) }
