package tasks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// isPlain mirrors the quota's measure, from the kept task alone: not a
// refusal nor a shape made to need reasoning (a choice across a
// reference, arithmetic, two goals), fewer than two rows changed, fewer
// than four calls.
func isPlain(t envpkg.Task) bool {
	for _, kind := range []string{"-refuse", "-pick-", "-arith-", "-goals-"} {
		if strings.Contains(t.ID, kind) {
			return false
		}
	}
	changes := 0
	for _, c := range t.Checks {
		if !c.Guard {
			changes++
		}
	}
	return changes < 2 && len(t.Calls) < 4
}

// TestPlainTasksHaveAQuota: the kept set leans to tasks that need
// reasoning (refusals, several rows changed, four or more calls): plain
// ones fill at most a quarter of it (round 7; a half before, with a
// reserve of held-back plain tasks that filled the set when the attempts
// ran out: now a short set is kept instead and the summary says why),
// and its ids stay unique and numbered in order. On the shop database
// without the quota 35 of 40 kept tasks are plain (57 attempts used).
func TestPlainTasksHaveAQuota(t *testing.T) {
	const n = 40
	res := fromDB(t, shopDB(t), synth.Options{Tasks: n, Toolset: toolgen.ToolsetDomain})
	st := res.Summary.Tasks
	plain := 0
	for i, task := range res.Tasks {
		if isPlain(task) {
			plain++
		}
		if want := fmt.Sprintf("synth-%04d-", i+1); !strings.HasPrefix(task.ID, want) {
			t.Errorf("task %d has id %q, want the prefix %q", i, task.ID, want)
		}
	}
	if plain != st.Plain {
		t.Errorf("the summary counts %d plain tasks, the kept set has %d", st.Plain, plain)
	}
	if len(res.Tasks) != n {
		t.Fatalf("kept %d tasks, want %d (the shop has enough that need reasoning): %s", len(res.Tasks), n, st.Short)
	}
	if plain > n/4 {
		t.Errorf("%d of %d tasks are plain: the quota is a quarter", plain, n)
	}
	if plain == n {
		t.Errorf("every task is plain: %v", st.ByKind)
	}
	t.Logf("%d of %d plain, %d attempts, %d plain candidates skipped, by kind %v", plain, n, st.Attempts, st.PlainSkipped, st.ByKind)
}
