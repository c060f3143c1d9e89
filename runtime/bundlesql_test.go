package runtime

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
)

const endlessCTE = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c`

// Issue 13 item 5: bundle SQL outside tool calls had no time limit. A task
// setup with an endless recursive CTE hung NewEpisode and, holding the Env
// lock, every other task's episodes; a looping check hung Score whatever its
// context; a looping export view hung the state hash.
func TestBundleSQLHasADeadline(t *testing.T) {
	b := *testBundle(t, "edge", false)
	b.Tasks = []envpkg.Task{
		{ID: "spin", Instruction: "x", Setup: "INSERT INTO big SELECT 99, n FROM (" + endlessCTE + ")"},
		{ID: "ok", Instruction: "x", Setup: "INSERT INTO big VALUES (7, 7)",
			Checks: []envpkg.Check{{Name: "loops", SQL: "SELECT n > 0 FROM (" + endlessCTE + ")"}}},
	}
	e, err := LoadBundle(context.Background(), &b, Options{SQLTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	spun := make(chan error, 1)
	go func() {
		_, err := e.NewEpisode("spin", 1)
		spun <- err
	}()
	time.Sleep(50 * time.Millisecond) // the spinning setup is running now
	ep, err := e.NewEpisode("ok", 1)  // must not wait for it
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	select {
	case err := <-spun:
		if !errors.Is(err, ErrWorkLimit) {
			t.Fatalf("endless setup: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("an endless task setup hangs NewEpisode")
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Issue 35: a check past its work limit is the environment's error,
	// not a failed check the agent is blamed for.
	s, err := ep.Score(ctx, nil)
	var ce *CheckError
	if !errors.As(err, &ce) || ce.Check != "loops" || !errors.Is(err, ErrWorkLimit) {
		t.Fatalf("looping check: %v (score %+v)", err, s)
	}

	b = *testBundle(t, "edge", false)
	m := b.Manifest
	m.Export = []envpkg.Collection{{Name: "spin", Query: "SELECT 'k', json_object('n', n) FROM (" + endlessCTE + ")", Tables: []string{"big"}}}
	b.Manifest = m
	e2, err := LoadBundle(context.Background(), &b, Options{SQLTimeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	ep2 := newEpisode(t, e2, "", 1)
	execSQL(t, ep2, "UPDATE big SET n = 5")
	if _, err := ep2.StateHash(); !errors.Is(err, ErrWorkLimit) {
		t.Fatalf("looping export view: %v", err)
	}
	// The interrupted read left the episode usable.
	if r := query(t, ep2, "SELECT n FROM big"); r.Content != `[{"n":5}]` {
		t.Fatalf("after the interrupted hash: %s", r.Content)
	}
}

// TestTaskSetupRandomIsSeeded: a task setup's random() and randomblob() are
// the same in every process that loads the bundle (the setup runs once per
// Env, so two Envs stand for two processes).
func TestTaskSetupRandomIsSeeded(t *testing.T) {
	var got []string
	for range 2 {
		e := loadEnv(t, "edge")
		s, err := e.initFor(&envpkg.Task{ID: "rand", Setup: `INSERT INTO nc VALUES ('r', random() || hex(randomblob(8)));`})
		if err != nil {
			t.Fatal(err)
		}
		conn, err := e.openConn(s.name, true)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, evalOne(conn, `(SELECT v FROM nc WHERE k = 'r')`))
		conn.Close()
	}
	if got[0] != got[1] {
		t.Fatalf("setup's random() differs between loads: %s, %s", got[0], got[1])
	}
}
