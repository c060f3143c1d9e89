package runtime

import (
	"context"
	"errors"
	goruntime "runtime"
	"testing"
)

// Issue 13 item 2: an episode has a write budget. Past it the call is undone
// and the agent gets a clear error (outcome quota); the bundle's
// max_write_mb is capped by the server's.
func TestWriteBudget(t *testing.T) {
	b := *testBundle(t, "edge", false)
	b.Manifest.Limits.MaxWriteMB = 64
	e, err := LoadBundle(context.Background(), &b, Options{MaxWriteMB: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if l := e.Limits(); l.MaxWriteMB != 2 {
		t.Fatalf("server cap not applied: %+v", l)
	}
	ep := newEpisode(t, e, "", 1)
	if r := execSQL(t, ep, fillSQL(1000, 1000)); r.IsError {
		t.Fatalf("1 MB under a 2 MiB budget: %s", r.Content)
	}
	r := execSQL(t, ep, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
		INSERT INTO nc SELECT 'm' || x, hex(randomblob(500)) FROM c`)
	if !r.IsError || r.Outcome != OutcomeQuota || !r.Outcome.AgentFault() {
		t.Fatalf("3 MB under a 2 MiB budget: %+v", r)
	}
	if got := query(t, ep, "SELECT count(*) AS n FROM nc").Content; got != `[{"n":1001}]` {
		t.Fatalf("the refused call's rows were kept: %s", got)
	}
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	if r := execSQL(t, ep, fillSQL(1500, 1000)); r.IsError {
		t.Fatalf("after reset: %s", r.Content)
	}
}

// A diff with an output cap stops early: its memory follows the cap.
func TestDiffStopsAtItsLimit(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	if r := execSQL(t, ep, fillSQL(16000, 1000)); r.IsError {
		t.Fatal(r.Content)
	}
	var m0, m1 goruntime.MemStats
	goruntime.ReadMemStats(&m0)
	_, _, err := ep.DiffAndHashUpTo(64 << 10)
	goruntime.ReadMemStats(&m1)
	if !errors.Is(err, ErrDiffTooLarge) {
		t.Fatalf("a 16 MB diff under a 64 KiB limit: %v", err)
	}
	if grew := m1.TotalAlloc - m0.TotalAlloc; grew > 4<<20 {
		t.Fatalf("stopping at 64 KiB allocated %d MiB", grew>>20)
	}
	if d, _, err := ep.DiffAndHash(); err != nil || len(d["nc"]) != 16000 {
		t.Fatalf("the unlimited diff after: %d records, %v", len(d["nc"]), err)
	}
}
