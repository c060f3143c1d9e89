package runtime

import (
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// wasmenv_init() names the episode's initial state: the same on two
// episodes over the bundle's and after a reset, another for a task setup's,
// and another again when a candidate's setup state is made anew under the
// same task id (what guest code keyed by it must never take for the old).
func TestInitFunc(t *testing.T) {
	e := loadEnv(t, "edge")
	initOf := func(ep *Episode) string {
		t.Helper()
		r := query(t, ep, "SELECT wasmenv_init() AS i")
		if r.IsError {
			t.Fatal(r.Content)
		}
		return r.Content
	}
	a, b := newEpisode(t, e, "", 1), newEpisode(t, e, "", 2)
	bundle := initOf(a)
	if got := initOf(b); got != bundle {
		t.Fatalf("two episodes over the bundle's state: %s and %s", bundle, got)
	}
	execSQL(t, a, "INSERT INTO big VALUES (7, 7)")
	if err := a.Reset(); err != nil {
		t.Fatal(err)
	}
	if got := initOf(a); got != bundle {
		t.Fatalf("after a reset: %s, want %s", got, bundle)
	}
	task := envpkg.Task{ID: "init-probe", Instruction: "Probe.", Setup: "INSERT INTO big VALUES (8, 8)"}
	setupInit := func() string {
		c := e.Candidate(task)
		ep, err := c.NewEpisode(1)
		if err != nil {
			t.Fatal(err)
		}
		id := initOf(ep)
		ep.Close()
		c.Close()
		return id
	}
	first, second := setupInit(), setupInit()
	if first == bundle || second == bundle || first == second {
		t.Fatalf("bundle %s, a setup's state %s, the same setup made again %s: want three names", bundle, first, second)
	}
}
