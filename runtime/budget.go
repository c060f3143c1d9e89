package runtime

import (
	"errors"

	"github.com/ncruces/go-sqlite3"
)

// defaultWriteMB is an episode's write budget when neither the bundle nor
// the server sets one.
const defaultWriteMB = 256

// writeBudget bounds how far an episode's database grows over its initial
// state. The episode's pages live in memory (mvcc) and a diff or state hash
// reads them all, so an agent writing through honest tools (200 MB in 7 s
// was seen) must hit a clear limit instead of the server's memory. Growth
// is measured in pages (PRAGMA page_count, main against init) after each
// call: the call that goes past the budget is undone and the agent told.
type writeBudget struct {
	main, init *sqlite3.Stmt
	initPages  int64
	pageSize   int64
}

// overBudget reports, after a call that succeeded, whether the episode is
// now over its write budget, with the result the agent gets then.
func (ep *Episode) overBudget() (Result, bool) {
	limit := int64(ep.env.limits.MaxWriteMB) << 20
	if bound, ok := ep.growthBound(); ok && bound <= limit && budgetBound {
		return Result{}, false
	}
	b := &ep.budget
	if b.main == nil {
		var err error
		if b.main, _, err = ep.conn.Prepare("PRAGMA main.page_count"); err != nil {
			return Result{}, false
		}
		if b.init, _, err = ep.conn.Prepare("PRAGMA init.page_count"); err != nil {
			return Result{}, false
		}
		b.initPages, b.pageSize = pragmaInt(b.init), 0
		if st, _, err := ep.conn.Prepare("PRAGMA main.page_size"); err == nil {
			b.pageSize = pragmaInt(st)
			st.Close()
		}
	}
	grown := (pragmaInt(b.main) - b.initPages) * b.pageSize
	if grown <= limit {
		return Result{}, false
	}
	return failed(OutcomeQuota, "this call would grow the episode's data by %d MiB in all, over its write budget of %d MiB; nothing it wrote was kept (delete data, or write less)",
		grown>>20, ep.env.limits.MaxWriteMB), true
}

// budgetBound lets overBudget skip the exact count when growthBound
// suffices (off in a test that compares the two).
var budgetBound = true

// growthBound bounds how far the episode's database grew, without a
// PRAGMA: SQLite re-prepares a PRAGMA statement on every run (its VDBE runs
// only once), which cost ~2 µs, a third of a single-row write call. While
// the pager has spilled nothing (written no page to the database mid-
// transaction; the transaction is never committed), every page the episode
// added is a dirty page in the page cache, so the cache's size bounds the
// growth. After a spill there is no bound (pages can sit in the file, or,
// freed, nowhere) and ok is false: the exact count runs.
func (c *sqlConn) growthBound() (bound int64, ok bool) {
	spill, _, err := c.conn.Status(sqlite3.DBSTATUS_CACHE_SPILL, false)
	if err != nil || spill > 0 {
		return 0, false
	}
	used, _, err := c.conn.Status(sqlite3.DBSTATUS_CACHE_USED, false)
	return c.grownBase + used, err == nil // grownBase: what a parked episode had committed
}

func pragmaInt(st *sqlite3.Stmt) int64 {
	defer st.Reset()
	if !st.Step() {
		return 0
	}
	return st.ColumnInt64(0)
}

// closeBudget finalizes the budget's statements.
func (c *sqlConn) closeBudget() {
	for _, st := range []*sqlite3.Stmt{c.budget.main, c.budget.init} {
		if st != nil {
			catchOOM(st.Close)
		}
	}
	c.budget = writeBudget{}
}

// ErrDiffTooLarge is returned by DiffAndHashUpTo for a diff over its limit.
var ErrDiffTooLarge = errors.New("runtime: the diff is too large")

// DiffAndHashUpTo is DiffAndHash that stops, with ErrDiffTooLarge, as soon
// as the diff passes max bytes (keys and records), so that a caller with an
// output cap spends memory in proportion to the cap, not to the episode.
func (ep *Episode) DiffAndHashUpTo(max int) (Diff, string, error) {
	ep.diffMax = max
	defer func() { ep.diffMax = 0 }()
	return ep.DiffAndHash()
}
