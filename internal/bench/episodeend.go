package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// endWrites are the write counts of the episode-end rows.
var endWrites = []int{1, 10, 100}

// measureEnd fills EndBySize for the wasmenv engines: what an episode's
// end costs (DiffAndHash: the diff and the state hash; and the Score of
// the bundle's first task) after 1, 10 and 100 writes of the workload,
// at each database size. On benchenv the filler goes into orders, the
// table the writes change, so that a cost following the written tables'
// size would show (issue 20: it follows the rows written); on another
// bundle it goes into a table of its own, as for the reset curve.
func measureEnd(ctx context.Context, b *envpkg.Bundle, w *workload, cache string, cfg *Config, rep *Report) error {
	if len(w.writes) == 0 {
		return nil
	}
	task := ""
	if len(b.Tasks) > 0 && b.Tasks[0].Setup == "" {
		task = b.Tasks[0].ID
	}
	for _, size := range cfg.Sizes {
		grow := growDB
		if isBenchenv(b) {
			grow = growOrders
		}
		db, err := grow(b.DB, size)
		if err != nil {
			return fmt.Errorf("grow database to %d bytes: %w", size, err)
		}
		grown := *b
		grown.DB = db
		grown.Manifest.DBBytes = int64(len(db))
		for _, name := range rep.Order {
			if name == "filecopy" || name == "serdes" {
				continue
			}
			opts := runtime.Options{CompileCacheDir: cache}
			if name != "wasmenv" {
				opts.Engine = name
			}
			env, err := runtime.LoadBundle(ctx, &grown, opts)
			if err != nil {
				return err
			}
			f := rep.figures(name)
			if f.EndBySize == nil {
				f.EndBySize = map[string]map[string]Latency{}
			}
			key := strconv.FormatInt(size, 10)
			f.EndBySize[key], err = endSamples(ctx, env, task, w)
			env.Close()
			if err != nil {
				return fmt.Errorf("%s at %d bytes: %w", name, size, err)
			}
			cfg.logf("  %s %s: diff + hash after 1 write p50 %s", fmtBytes(int64(len(db))), name, fmtNs(f.EndBySize[key]["diffhash/1"].P50))
		}
	}
	return nil
}

// endSamples times DiffAndHash ("diffhash/N") and, with a task, Score
// ("score/N") after N writes, N in endWrites: 200 samples each, or fewer
// past a second and a half.
func endSamples(ctx context.Context, env *runtime.Env, task string, w *workload) (map[string]Latency, error) {
	out := map[string]Latency{}
	whats := []string{"diffhash"}
	if task != "" {
		whats = append(whats, "score")
	}
	for _, what := range whats {
		ep, err := env.NewEpisode(task, 1)
		if err != nil {
			return nil, err
		}
		for _, n := range endWrites {
			var ds []time.Duration
			budget := time.Now().Add(1500 * time.Millisecond)
			for i := 0; i < 200 && (i < 5 || time.Now().Before(budget)); i++ {
				for j := range n {
					if err := (wasmenvEpisode{ep}).step(&w.writes[(i*n+j)%len(w.writes)]); err != nil {
						ep.Close()
						return nil, err
					}
				}
				t0 := time.Now()
				if what == "diffhash" {
					_, _, err = ep.DiffAndHash()
				} else {
					_, err = ep.Score(ctx, nil)
				}
				ds = append(ds, time.Since(t0))
				if err == nil {
					err = ep.Reset()
				}
				if err != nil {
					ep.Close()
					return nil, err
				}
			}
			out[what+"/"+strconv.Itoa(n)] = summarize(ds)
		}
		ep.Close()
	}
	return out, nil
}

// growOrders is growDB for benchenv with the filler in orders (a 1 KiB
// note each, orders past the workload's ids).
func growOrders(db []byte, size int64) ([]byte, error) {
	return growWith(db, size, func(*sqlite3.Conn) (string, error) {
		return `INSERT INTO orders (user_id, product_id, quantity, status, created_at, note)
SELECT 1 + abs(random()) %% 1000, 1 + abs(random()) %% 500, 1, 'delivered', '2024-01-01T00:00:00Z', hex(randomblob(512)) FROM n`, nil
	})
}
