package taubench

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/wasmenv/wasmenv/runtime"
)

// Isolated times every reference call on its own: for each call of each
// episode, best of n runs of (reset, replay the calls before it untimed,
// time the call). It returns per tool the median over its calls of those
// bests. Taking the best of n filters out most of a shared machine's
// interference, which the p50s of Bench include; use it to compare two
// builds of a tool, not as a figure against Python.
func Isolated(ctx context.Context, env *runtime.Env, eps []RefEpisode, n int) (map[string]time.Duration, error) {
	per := map[string][]time.Duration{}
	for _, ref := range eps {
		ep, err := env.NewEpisode(ref.ID, 0)
		if err != nil {
			return nil, fmt.Errorf("episode %s: %w", ref.ID, err)
		}
		for j, c := range ref.Calls {
			best := time.Duration(-1)
			for range n {
				if err := ep.Reset(); err != nil {
					ep.Close()
					return nil, err
				}
				for _, p := range ref.Calls[:j] {
					if _, err := ep.Call(ctx, p.Name, p.Arguments); err != nil {
						ep.Close()
						return nil, err
					}
				}
				t0 := time.Now()
				res, err := ep.Call(ctx, c.Name, c.Arguments)
				d := time.Since(t0)
				if err != nil {
					ep.Close()
					return nil, err
				}
				if !SameOutput(res.Content, ref.Output(j)) {
					ep.Close()
					return nil, fmt.Errorf("episode %s call %d %s: output differs from the reference", ref.ID, j, c.Name)
				}
				if best < 0 || d < best {
					best = d
				}
			}
			per[c.Name] = append(per[c.Name], best)
		}
		ep.Close()
	}
	out := make(map[string]time.Duration, len(per))
	for name, ds := range per {
		slices.Sort(ds)
		out[name] = ds[len(ds)/2]
	}
	return out, nil
}
