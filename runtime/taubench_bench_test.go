package runtime_test

import (
	"context"
	"flag"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"testing"

	"github.com/wasmenv/wasmenv/bench/taubench"
)

// BenchmarkTauEpisode is issue 20's unit on the τ-bench ports: one
// reference episode per op, in turn over all of them: reset, its calls,
// and DiffAndHash (what a `wasmenv replay` line reports); cpu-ns/op is the
// process's CPU time per episode. For a profile of
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
			// Under -cpuprofile each call carries its tool's name and kind as
			// profile labels (pprof -tagfocus kind=write), guest code included.
			labels := flag.Lookup("test.cpuprofile").Value.String() != ""
			i := 0
			var ru0 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			for b.Loop() {
				ref := refs[i%len(refs)]
				i++
				if err := ep.Reset(); err != nil {
					b.Fatal(err)
				}
				for _, c := range ref.Calls {
					call := func(ctx context.Context) {
						if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
							b.Fatal(err)
						}
					}
					if !labels {
						call(ctx)
						continue
					}
					kind := "read"
					if taubench.WriteTools[c.Name] {
						kind = "write"
					}
					pprof.Do(ctx, pprof.Labels("tool", c.Name, "kind", kind), call)
				}
				if _, _, err := ep.DiffAndHash(); err != nil {
					b.Fatal(err)
				}
			}
			var ru1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op") // moves less with the machine's load than ns/op
		})
	}
}
