package runtime

import (
	goruntime "runtime"

	"github.com/ncruces/go-sqlite3/vfs"
)

// Parking: an episode between steps gives its connection back and keeps
// its state without one (issue 20: an active episode's memory).
//
// An episode's writes live in its connection's open transaction, and a
// connection costs a few hundred KiB (its own SQLite heap in its own wasm
// memory, which never shrinks), so 10,000 episodes waiting for their agents
// held 10,000 connections. When more than Options.MaxConns connections are
// held, an episode that ends a step (a call, a diff, a state hash, a
// score) commits its transaction into its file, whose image is a tree
// sharing every page it did not write with the initial state (epvfs.go),
// keeps that image and its counters, and gives the connection back to the
// pool. Its next step takes a connection (the same one, if nobody took it
// meanwhile: then its cache is warm) and gives it the image back.
//
// What must not change is what a step sees: the rows (the image), the
// counters SQL can read (last_insert_rowid, changes, total_changes since
// the reset), the rows the change tracking recorded (tracking.go), the
// write budget's base (grownBase), and the clock and random state (the
// episode's own). Reset of a parked episode drops its image. A connection
// given an image other than the one it held gets a new file change counter
// (swap), so that SQLite drops the pages it cached from the other image:
// TestParkedEpisodesAreIdentical replays episodes with and without parking
// and requires byte-identical outputs, diffs and hashes.

// defaultMaxConns is Options.MaxConns's default: 4 connections per
// processor, at least 16 (16 on 2 cores, 256 on 64). Connections touched
// in turn are memory-bound: each has its own SQLite heap and page cache
// (a few hundred KiB), and once more of them are in use than the CPU
// caches hold, a reset's rollback, the next call and the diff all miss
// the caches. On the 2-core VM, 135 τ-bench retail episodes replayed in
// turn (`wasmenv replay`'s shape, BenchmarkTauRotate) cost ~177 µs of
// CPU each with 256 (all keeping their connections; the reset alone
// ~15 µs, against ~3 µs for 4 episodes) and ~160 µs with 16 (parked
// between steps; a parked reset drops an image, < 1 µs), and 1,000
// episodes stepping in turn were cheaper with 64 than with 256
// (docs/BENCHMARKS.md). Fewer connections held also means less memory.
func defaultMaxConns() int {
	return max(16, 4*goruntime.GOMAXPROCS(0))
}

// parked is an episode's state while it holds no connection.
type parked struct {
	image  tree // its database; nil: the initial state's
	lastID int64
	// changes and total are SQL's changes() and total_changes() since the
	// reset (sqlConn.episodeCounters).
	changes, total int64
	track          map[string]*tableRows
}

// enter marks an episode operation that may use SQL; the function it
// returns ends it and, at the outermost level, parks the episode if the
// Env holds too many connections.
func (ep *Episode) enter() func() {
	ep.depth++
	return ep.leave
}

func (ep *Episode) leave() {
	ep.depth--
	if ep.depth == 0 && ep.sqlConn != nil && ep.env.maxConns >= 0 && ep.env.liveConns.Load() > ep.env.maxConns {
		ep.park()
	}
}

// Release gives the episode's connection back now, as an episode parks
// between steps when the Env holds more than Options.MaxConns connections:
// its state is kept and its next step takes a connection again. A caller
// that steps many episodes in turn (`wasmenv replay`: one per task, one
// line at a time) releases each as it moves to another, so that only the
// episode in use holds a connection and none parks between its own steps:
// otherwise the first MaxConns episodes keep theirs while idle and every
// later one parks and resumes at each call, diff and score (issue 35).
func (ep *Episode) Release() {
	if ep.closed || ep.sqlConn == nil || ep.depth > 0 {
		return
	}
	ep.park()
}

// park commits the episode's transaction, keeps its image and counters,
// and gives its connection back. An episode whose state is lost, or a
// connection that cannot be pooled, stays as it is.
func (ep *Episode) park() {
	c := ep.sqlConn
	if ep.closed || ep.lost || c.spoiled {
		return
	}
	if err := catchOOM(c.commit.Exec); err != nil {
		// A COMMIT that fails leaves the transaction open (go on with the
		// connection), or ends it and its writes with it (lost, as guard).
		if c.conn.GetAutocommit() {
			ep.lost = true
		}
		return
	}
	if c.file.lock != vfs.LOCK_NONE {
		// A statement still reading holds its lock past the COMMIT: keep the
		// connection, its writes now committed into the file.
		c.grownBase = treeSize(c.file.data) - treeSize(c.init.snap.Tree)
		if err := catchOOM(c.begin.Exec); err != nil {
			ep.lost = true
		}
		return
	}
	p := &parked{
		lastID:  c.conn.LastInsertRowID(),
		changes: c.changes,
		total:   c.conn.TotalChanges() - c.totalBase,
		track:   c.track.tables,
	}
	if c.file.data != c.initImage {
		p.image = c.file.data
	}
	c.track.tables, c.track.last = nil, nil
	ep.sqlConn = nil
	ep.env.liveConns.Add(-1)
	c.ep = nil
	ep.parked = p
	if c.spilled() || catchOOM(c.begin.Exec) != nil || !ep.env.putConn(c) {
		c.close()
	}
}

// resume makes the connection the episode's: its image (p nil or its image
// nil: the initial state) and counters. The connection comes from the pool
// (or was just opened) inside a BEGIN that has read nothing.
func (c *sqlConn) resume(p *parked) error {
	var want tree
	if p != nil {
		want = p.image
	}
	c.grownBase = 0
	switch {
	case want == nil && c.file.data != c.initImage:
		if err := c.reopen(c.init.snap.Tree); err != nil {
			return err
		}
		c.initImage = c.file.data
	case want != nil && c.file.data != want:
		if err := c.reopen(want); err != nil {
			return err
		}
	}
	if want != nil {
		c.grownBase = treeSize(want) - treeSize(c.init.snap.Tree)
	}
	c.restartCounters()
	if p != nil {
		c.conn.SetLastInsertRowID(p.lastID)
		c.changes = p.changes
		c.totalBase -= p.total
		c.track.tables, c.track.last = p.track, nil
	}
	return nil
}

// reopen ends the connection's transaction, gives its file the image t and
// begins a new one.
func (c *sqlConn) reopen(t tree) error {
	if !c.conn.GetAutocommit() {
		if err := c.rollback.Exec(); err != nil {
			return err
		}
	}
	c.swap(t)
	return c.begin.Exec()
}

// swap gives the file, outside any transaction, the image t with a file
// change counter above any it had: SQLite's pager compares the counter
// with the one it saw last and, as it differs, drops its cached pages
// instead of serving them for t. (A commit adds one to the counter; a
// spill writes it one up, and a rollback takes it back down: a swap goes
// two past the highest the file holds or was stamped with.)
func (c *sqlConn) swap(t tree) {
	c.stamp = max(c.stamp, changeCounter(c.file.data)) + 2
	c.file.data = stamped(t, c.stamp)
}
