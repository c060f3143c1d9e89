package synth_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestStampedActionOneMoreLookup: a task ending in an action that stamps
// a time from the episode clock (cancelling an order stamps cancelled_at)
// is solved by an agent that makes one more lookup first: the clock counts
// calls, so its stamp is a second later than the walk's, and the checks
// must take it. Before, they pinned the walk's second and scored it 0.
func TestStampedActionOneMoreLookup(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), shopDB(t, dir), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 150, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	n := 0
	for _, task := range res.Tasks {
		last := task.Calls[len(task.Calls)-1]
		tl := res.Spec.Tool(last.Name)
		if tl == nil || tl.Kind != toolgen.DomainAction || task.Answer != nil || len(task.Calls) < 2 || !slices.ContainsFunc(tl.Action.Moves, func(m toolgen.Stamped) bool {
			return strings.Contains(m.Layout, "05") // to the second: a date alone hides a second's difference
		}) {
			continue
		}
		n++
		calls := append([]envpkg.Call{task.Calls[0]}, task.Calls...)
		if s := play(t, env, task.ID, calls, nil); !s.AllPassed {
			t.Errorf("%s (%s): one more lookup first fails its checks", task.ID, task.Instruction)
		}
	}
	if n == 0 {
		t.Fatal("no task ends in a stamping action")
	}
}
