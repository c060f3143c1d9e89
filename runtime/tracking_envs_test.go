package runtime_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wasmenv/wasmenv/bench/taubench"
	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Issue 20 item 2: on every shipped environment, with every engine, the
// tracked diff and state hash equal the full scan's: after each call of
// every task's ground truth (so every task's ground-truth hash is the
// full scan's), of every τ-bench reference episode, and of random
// episodes drawn from all those calls (most fail; some write what no
// task writes), with resets among them.
func TestTrackedDiffOnShippedEnvs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every shipped environment")
	}
	dirs, err := filepath.Glob(filepath.Join("..", "envs", "*", "env.yaml"))
	if err != nil || len(dirs) < 5 {
		t.Fatalf("shipped environments: %v %v", dirs, err)
	}
	for _, y := range dirs {
		dir := filepath.Dir(y)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			b, err := compiler.Build(context.Background(), dir, compiler.Options{})
			if err != nil {
				t.Fatal(err)
			}
			episodes := [][]envpkg.Call{}
			for _, task := range b.Tasks {
				episodes = append(episodes, task.Calls)
			}
			if refs := taubench.RefFiles(dir); fileExists(refs[0]) {
				eps, err := taubench.LoadRefs(refs...)
				if err != nil {
					t.Fatal(err)
				}
				for _, ep := range eps {
					calls := make([]envpkg.Call, len(ep.Calls))
					for i, c := range ep.Calls {
						calls[i] = envpkg.Call{Name: c.Name, Arguments: c.Arguments}
					}
					episodes = append(episodes, calls)
				}
			}
			for _, engine := range runtime.Engines() {
				t.Run(engine, func(t *testing.T) { trackedOnEnv(t, b, engine, episodes) })
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func trackedOnEnv(t *testing.T, b *envpkg.Bundle, engine string, episodes [][]envpkg.Call) {
	ctx := context.Background()
	e, err := runtime.LoadBundle(ctx, b, runtime.Options{Engine: engine})
	if errors.Is(err, runtime.ErrPythonEngine) {
		t.Skipf("%s: %v", engine, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ep, err := e.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	pk := newParked(t, b, engine)
	var pool []envpkg.Call
	wrote := false
	for i, calls := range episodes {
		if err := ep.Reset(); err != nil {
			t.Fatal(err)
		}
		pk.reset(t)
		for j, c := range calls {
			r, err := ep.Call(ctx, c.Name, c.Arguments)
			if err != nil {
				t.Fatal(err)
			}
			what := fmt.Sprintf("episode %d, call %d (%s)", i, j, c.Name)
			d, h := sameEnd(t, ep, what)
			wrote = wrote || len(d) > 0
			pk.same(t, what, c, r, d, h)
		}
		pool = append(pool, calls...)
	}
	r := rand.New(rand.NewPCG(20, 1))
	for step := range 300 {
		if r.IntN(12) == 0 {
			if err := ep.Reset(); err != nil {
				t.Fatal(err)
			}
			pk.reset(t)
		}
		c := pool[r.IntN(len(pool))]
		res, err := ep.Call(ctx, c.Name, c.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("random step %d (%s %s)", step, c.Name, c.Arguments)
		d, h := sameEnd(t, ep, what)
		wrote = wrote || len(d) > 0
		pk.same(t, what, c, res, d, h)
	}
	// (An environment whose calls never write, chinook's read-only
	// design since round 9, has no change for the tracked path to read:
	// the agreement above is all it can show.)
	if runtime.TrackedScans(ep) == 0 && wrote {
		t.Fatal("the tracked path never ran")
	}
	t.Logf("%d episodes, %d views read on the tracked path", len(episodes), runtime.TrackedScans(ep))
}

// parkedTwin replays an episode's calls on an episode that parks after
// every step (issue 20 item 4), on an Env where another episode takes the
// connection between its steps: each step gives the twin's connection back
// another image. The other episode resets with the twin and makes random
// calls of those seen so far, so that the two images often differ while
// their file change counters (one more per writing step) are equal: what
// SQLite's pager alone would take for the same file.
type parkedTwin struct {
	ep, other *runtime.Episode
	seen      []envpkg.Call
	r         *rand.Rand
}

func newParked(t *testing.T, b *envpkg.Bundle, engine string) *parkedTwin {
	e, err := runtime.LoadBundle(context.Background(), b, runtime.Options{Engine: engine, ConnPool: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	runtime.ParkEveryStep(e)
	p := &parkedTwin{r: rand.New(rand.NewPCG(4, 1))}
	for i, ep := range []**runtime.Episode{&p.ep, &p.other} {
		if *ep, err = e.NewEpisode("", int64(1+i)); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func (p *parkedTwin) reset(t *testing.T) {
	for _, ep := range []*runtime.Episode{p.ep, p.other} {
		if err := ep.Reset(); err != nil {
			t.Fatal(err)
		}
	}
}

// same runs c on the twin (after a call on the other episode) and requires
// the replayed episode's result, diff and hash.
func (p *parkedTwin) same(t *testing.T, what string, c envpkg.Call, want runtime.Result, d runtime.Diff, h string) {
	t.Helper()
	ctx := context.Background()
	p.seen = append(p.seen, c)
	o := p.seen[p.r.IntN(len(p.seen))]
	if _, err := p.other.Call(ctx, o.Name, o.Arguments); err != nil {
		t.Fatalf("%s: the other episode: %v", what, err)
	}
	got, err := p.ep.Call(ctx, c.Name, c.Arguments)
	if err != nil {
		t.Fatalf("%s: parked: %v", what, err)
	}
	if got != want {
		t.Fatalf("%s: parked episode's result\n%+v\nwant\n%+v", what, got, want)
	}
	pd, ph, err := p.ep.DiffAndHash()
	if err != nil {
		t.Fatalf("%s: parked: %v", what, err)
	}
	if !reflect.DeepEqual(pd, d) || ph != h {
		g, _ := json.Marshal(pd)
		w, _ := json.Marshal(d)
		t.Fatalf("%s: parked episode's diff or hash differ (%s, want %s)\n%.2000s\nwant\n%.2000s", what, ph, h, g, w)
	}
}

func sameEnd(t *testing.T, ep *runtime.Episode, what string) (runtime.Diff, string) {
	t.Helper()
	runtime.SetFullScan(ep, true)
	fd, fh, err := ep.DiffAndHash()
	if err != nil {
		t.Fatalf("%s: full scan: %v", what, err)
	}
	runtime.SetFullScan(ep, false)
	td, th, err := ep.DiffAndHash()
	if err != nil {
		t.Fatalf("%s: tracked: %v", what, err)
	}
	ts, err := ep.StateHash()
	if err != nil {
		t.Fatalf("%s: tracked hash: %v", what, err)
	}
	if !reflect.DeepEqual(fd, td) {
		f, _ := json.Marshal(fd)
		g, _ := json.Marshal(td)
		t.Fatalf("%s: diffs differ\nfull:    %.2000s\ntracked: %.2000s", what, f, g)
	}
	if fh != th || th != ts {
		t.Fatalf("%s: hashes differ: full %s, tracked %s, streamed %s", what, fh, th, ts)
	}
	return td, th
}
