package tasks_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestShortSetIsFilledToTheFloor: a set whose data offers few tasks that
// need reasoning stays usable. On the merge of k-depth and k-vocab the
// tuning hr kept 4 tasks of 220 and sakila 52 (the plain quota being a
// quarter of what was kept); with the floor (tasks.Options.MinTasks,
// default half the set: 110) plain tasks past the quota fill a short set
// up to it, the summary counts them apart, and no floor (-1) keeps the
// short set. sakila (rentals that are all returned, payments that are a
// ledger) is the tuning database that still runs short (about 130 of
// 220), so the test asks a floor above that to see the fill: 160 since
// round 9, where its "refusals" of rentals already returned are plain
// questions (nothing is left to refuse) and fewer candidates are plain
// (174 found at seed 1).
func TestShortSetIsFilledToTheFloor(t *testing.T) {
	dir := t.TempDir()
	db := corpusDB(t, dir, "sakila")
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 220, Seed: 1, Toolset: toolgen.ToolsetDomain, MinTasks: 160})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Summary.Tasks
	if len(res.Tasks) < 160 {
		t.Fatalf("kept %d of 220 tasks, want the floor of 160 or more: %s", len(res.Tasks), st.Short)
	}
	if st.Floor != 160 {
		t.Errorf("summary floor %d, want 160", st.Floor)
	}
	plain := 0
	for _, task := range res.Tasks {
		if isPlain(task) {
			plain++
		}
	}
	if plain != st.Plain {
		t.Errorf("the summary counts %d plain tasks, the kept set has %d", st.Plain, plain)
	}
	if reasoned := len(res.Tasks) - plain; len(res.Tasks) < 220 && (st.PlainFill == 0 || plain-st.PlainFill > reasoned/3+1) {
		t.Errorf("%d plain tasks with %d that need reasoning, %d counted as the floor's fill: the fill is what passes the quota", plain, reasoned, st.PlainFill)
	}
	if !strings.Contains(st.Short, "floor") {
		t.Errorf("the summary does not say the set was filled to the floor: %q", st.Short)
	}
	t.Logf("%d kept, %d plain (%d past the quota): %s", len(res.Tasks), plain, st.PlainFill, st.Short)

	none, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "none"), Tasks: 220, Seed: 1, Toolset: toolgen.ToolsetDomain, MinTasks: -1})
	if err != nil {
		t.Fatal(err)
	}
	if got := none.Summary.Tasks; got.PlainFill != 0 || len(none.Tasks) >= len(res.Tasks) {
		t.Errorf("with no floor: %d kept, %d filled; want a shorter set and none filled", len(none.Tasks), got.PlainFill)
	}
}
