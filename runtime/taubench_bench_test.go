package runtime_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/bench/taubench"
)

// BenchmarkTauEpisode is issue 20's unit on the τ-bench ports: one
// reference episode per op, in turn over all of them: reset, its calls,
// and DiffAndHash (what a `wasmenv replay` line reports). For a profile of
// where an episode goes:
//
//	go test -run '^$' -bench TauEpisode/retail -cpuprofile cpu.out ./runtime
func BenchmarkTauEpisode(b *testing.B) {
	for _, domain := range []string{"retail", "airline"} {
		b.Run(domain, func(b *testing.B) {
			ctx := context.Background()
			dir := filepath.Join("..", "envs", "taubench-"+domain)
			refs, err := taubench.LoadRefs(taubench.RefFiles(dir)...)
			if err != nil {
				b.Fatal(err)
			}
			env, _, err := taubench.LoadEnv(ctx, "", dir)
			if err != nil {
				b.Fatal(err)
			}
			defer env.Close()
			ep, err := env.NewEpisode("", 0)
			if err != nil {
				b.Fatal(err)
			}
			defer ep.Close()
			i := 0
			for b.Loop() {
				ref := refs[i%len(refs)]
				i++
				if err := ep.Reset(); err != nil {
					b.Fatal(err)
				}
				for _, c := range ref.Calls {
					if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
						b.Fatal(err)
					}
				}
				if _, _, err := ep.DiffAndHash(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
