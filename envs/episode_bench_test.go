package envs_test

import (
	"context"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/runtime"
)

// BenchmarkEpisode is issue 35's episode cost, in-process: a fresh episode
// of each task in turn, its ground-truth calls and its score (with the
// expected answer), on a τ-bench port and on the synthesized environments.
// "-whole" is a synthesized environment with its checks forced onto the
// whole-table comparison (every wasmenv_written(t) replaced by NULL): the
// cost before the checks read the change set.
func BenchmarkEpisode(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"taubench-retail", "taubench-airline", "airline", "sakila", "northwind"} {
		for _, whole := range []bool{false, true} {
			if whole && name[:3] == "tau" {
				continue
			}
			label := name
			if whole {
				label += "-whole"
			}
			b.Run(label, func(b *testing.B) {
				dir := b.TempDir()
				if err := envs.Extract(name, dir); err != nil {
					b.Fatal(err)
				}
				bundle, err := compiler.Build(ctx, dir, compiler.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if whole {
					for i := range bundle.Tasks {
						for j, c := range bundle.Tasks[i].Checks {
							bundle.Tasks[i].Checks[j].SQL = writtenCall.ReplaceAllString(c.SQL, "nullif($1, $1)")
						}
					}
				}
				env, err := runtime.LoadBundle(ctx, bundle, runtime.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer env.Close()
				b.ResetTimer()
				for i := range b.N {
					runEpisode(ctx, b, env, &bundle.Tasks[i%len(bundle.Tasks)])
				}
			})
		}
	}
}

func runEpisode(ctx context.Context, b *testing.B, env *runtime.Env, t *envpkg.Task) {
	ep, err := env.NewEpisode(t.ID, 1)
	if err != nil {
		b.Fatal(err)
	}
	defer ep.Close()
	for _, c := range t.Calls {
		if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
			b.Fatal(err)
		}
	}
	var answer *string
	if t.Answer != nil {
		answer = &t.Answer.Value
	}
	s, err := ep.Score(ctx, answer)
	if err != nil {
		b.Fatal(err)
	}
	if s.Reward != 1 {
		b.Fatalf("task %s: ground truth scores %v", t.ID, s.Reward)
	}
}
