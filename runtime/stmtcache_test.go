package runtime

import (
	"fmt"
	"testing"
)

// The statement cache of a connection outlives its episodes (the pool
// reuses connections), and a synthesized environment's checks alone are
// more distinct statements than its bound (airline 337, chinook 341, hr
// 400): a full cache gives up one statement for a new one, not all of them,
// or every episode after the first few hundred prepares its checks again
// (issue 35: half of a replayed airline episode's CPU was re-preparing
// them).
func TestStmtCacheEvictsOneAtItsBound(t *testing.T) {
	e := loadEnv(t, "mini")
	ep := newEpisode(t, e, "", 1)
	if err := ep.connect(); err != nil {
		t.Fatal(err)
	}
	const extra = 10
	first := map[string]*guestStmt{}
	for i := range maxStmtCache + extra {
		sql := fmt.Sprintf("SELECT %d", i)
		gs, err := ep.prepareGuest(sql)
		if err != nil {
			t.Fatal(err)
		}
		if i < maxStmtCache {
			first[sql] = gs
		}
		if ok, err := ep.evalCheck(sql); err != nil || ok != (i != 0) {
			t.Fatalf("%s: %v %v", sql, ok, err)
		}
	}
	if len(ep.stmts) != maxStmtCache {
		t.Fatalf("%d statements cached after %d distinct ones; want the bound, %d", len(ep.stmts), maxStmtCache+extra, maxStmtCache)
	}
	kept := 0
	for sql, gs := range first {
		if ep.stmts[sql] == gs {
			kept++
		}
	}
	if kept < maxStmtCache-extra {
		t.Fatalf("%d of the first %d statements still cached after %d more; want at least %d (one given up per new one)", kept, maxStmtCache, extra, maxStmtCache-extra)
	}
}
