package runtime

import (
	"context"
	"errors"
	goruntime "runtime"
	"testing"
)

// fillSQL writes rows of size bytes (hex text) into edge's nc table in one call.
func fillSQL(rows, size int) string {
	return `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ` +
		itoa(rows) + `) INSERT INTO nc SELECT 'k' || x, hex(randomblob(` + itoa(size/2) + `)) FROM c`
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// Issue 13 item 1: a diff (or hash, or check) over more data than SQLite's
// per-connection heap used to panic inside go-sqlite3 and bring the process
// down. Now it is an error, the episode says its state is lost (SQLite rolls
// the transaction back on SQLITE_NOMEM) instead of going on from its initial
// state, and Reset makes it usable again.
func TestSQLiteOutOfMemoryIsAnError(t *testing.T) {
	e, err := LoadBundle(context.Background(), testBundle(t, "edge", false), Options{SQLMemoryMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ep := newEpisode(t, e, "", 1)
	if r := execSQL(t, ep, fillSQL(48, 500000)); r.IsError {
		t.Fatalf("fill: %s", r.Content)
	}
	_, err = ep.Diff()
	if !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("diff of 24 MB in 500 KB values under an 8 MiB heap: %v", err)
	}
	for what, f := range map[string]func() error{
		"hash": func() error { _, err := ep.StateHash(); return err },
		"call": func() error {
			_, err := ep.Call(context.Background(), "query", []byte(`{"sql":"SELECT 1 AS x"}`))
			return err
		},
	} {
		if err := f(); !errors.Is(err, ErrStateLost) {
			t.Errorf("%s after the state was lost: %v", what, err)
		}
	}
	if err := ep.Reset(); err != nil {
		t.Fatalf("reset: %v", err)
	}
	if d, err := ep.Diff(); err != nil || len(d) != 0 {
		t.Fatalf("diff after reset: %v %v", d, err)
	}
	if r := query(t, ep, "SELECT count(*) AS n FROM nc"); r.IsError || r.Content != `[{"n":1}]` {
		t.Fatalf("query after reset: %s", r.Content)
	}
}

// Closing an episode frees its pages: memory returns near where it was.
func TestClosedEpisodeFreesItsPages(t *testing.T) {
	e := loadEnv(t, "edge")
	heap := func() uint64 {
		goruntime.GC()
		var m goruntime.MemStats
		goruntime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	newEpisode(t, e, "", 1).Close() // warm caches
	before := heap()
	ep, err := e.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	if r := execSQL(t, ep, fillSQL(32000, 1000)); r.IsError {
		t.Fatalf("fill: %s", r.Content)
	}
	if during := heap(); during < before+8<<20 {
		t.Fatalf("32 MB written but the heap grew by %d bytes only: the test measures nothing", during-before)
	}
	ep.Close()
	if after := heap(); after > before+4<<20 {
		t.Fatalf("heap %d bytes before, %d after closing the episode", before, after)
	}
}

// Out of memory inside a tool call's SQL is the call's failure, not the
// process's; the episode then either keeps its state or says it lost it.
func TestSQLiteOutOfMemoryInACall(t *testing.T) {
	e, err := LoadBundle(context.Background(), testBundle(t, "edge", false), Options{SQLMemoryMB: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ep := newEpisode(t, e, "", 1)
	if r := execSQL(t, ep, fillSQL(48, 500000)); r.IsError {
		t.Fatalf("fill: %s", r.Content)
	}
	r, err := ep.Call(context.Background(), "query", []byte(`{"sql":"SELECT length(group_concat(v)) AS n FROM nc"}`))
	t.Logf("result %+v, error %v", r, err)
	if err == nil && !r.IsError {
		t.Fatalf("a 24 MB group_concat under an 8 MiB heap succeeded: %s", r.Content)
	}
	if err != nil && !errors.Is(err, ErrStateLost) && !errors.Is(err, ErrOutOfMemory) {
		t.Fatalf("error: %v", err)
	}
	if err == nil && r.Outcome != OutcomeOutOfMemory {
		t.Fatalf("outcome %q: %s", r.Outcome, r.Content)
	}
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	if r := query(t, ep, "SELECT count(*) AS n FROM nc"); r.Content != `[{"n":1}]` {
		t.Fatalf("after reset: %s", r.Content)
	}
}
