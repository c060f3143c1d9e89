package runtime

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
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

// The write budget's cheap bound (growthBound) never lets through a call
// the exact page count refuses: the same calls, checked either way, give
// the same outcomes and end in the same state, with and without spills.
func TestWriteBudgetBoundAgreesWithExact(t *testing.T) {
	// 1 MiB: the bound decides near the limit (no spill); 3 MiB: the
	// episode spills first and the exact count takes over.
	for _, c := range []struct{ mb, rows int }{{1, 100}, {3, 300}} {
		t.Run(itoa(c.mb)+"MiB", func(t *testing.T) { testWriteBudgetBound(t, c.mb, c.rows) })
	}
}

func testWriteBudgetBound(t *testing.T, mb, rows int) {
	b := *testBundle(t, "edge", false)
	e, err := LoadBundle(context.Background(), &b, Options{MaxWriteMB: mb})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	run := func(bound bool) string {
		budgetBound = bound
		defer func() { budgetBound = true }()
		ep := newEpisode(t, e, "", 1)
		defer ep.Close()
		var out strings.Builder
		for i := range 20 {
			sql := strings.Replace(fillSQL(rows, 1000), "'k' || x", "'k"+itoa(i)+"-' || x", 1)
			if i%5 == 4 {
				sql = `DELETE FROM nc WHERE k LIKE 'k` + itoa(i-2) + `-%'`
			}
			r := execSQL(t, ep, sql)
			fmt.Fprintf(&out, "%d %v %s %s\n", i, r.IsError, r.Outcome, r.Content)
		}
		fmt.Fprintf(&out, "%s\n", hash(t, ep))
		return out.String()
	}
	exact, fast := run(false), run(true)
	if !strings.Contains(exact, " quota ") {
		t.Fatalf("no call went over the budget:\n%s", exact)
	}
	if fast != exact {
		t.Fatalf("with the bound:\n%s\nexact:\n%s", fast, exact)
	}
}
