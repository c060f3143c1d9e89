package runtime

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// sqlConn is an episode's SQLite side: its own mvcc database over an
// initial state (with that state attached read-only as init), one
// connection holding a transaction open over it, and what is prepared on
// that connection (control statements, guest statement cache, the write
// budget's statements).
//
// An episode takes one at its first use of SQL, so an idle episode holds no
// connection, and gives it back at Close to its initial state's pool, rolled
// back to that state, so the next episode skips what opening costs: a new
// SQLite module, reading two schemas, preparing statements
// (BenchmarkEpisodeOpenClose; the pool itself is connpool.go). Whatever a
// connection carries from one episode to the next is undone when it is
// given back (disconnect: a rollback) and when it is taken (connect: the
// counters; the callbacks act for c.ep); the tests in sqlconn_test.go
// replay episodes on fresh, reused and lazily opened connections and
// require byte-identical results.
type sqlConn struct {
	init *initState
	name string  // the database (epvfs.go)
	file *epFile // its file, whose image the connection's episode may change (park.go)
	conn *sqlite3.Conn
	// initImage is the image the file was given when it last went back to
	// the initial state: while the file holds it, so does the database.
	initImage tree
	stamp     uint32 // the highest file change counter the file has had (swap)
	grownBase int64  // bytes the database had grown before this transaction (a resumed episode's)
	// ep is the episode using the connection: the authorizer and the SQL
	// functions (random, changes, total_changes) act for it.
	ep *Episode

	stmts    map[string]*guestStmt
	spBegin  *sqlite3.Stmt
	spCommit *sqlite3.Stmt
	spUndo   *sqlite3.Stmt
	rollback *sqlite3.Stmt
	begin    *sqlite3.Stmt
	commit   *sqlite3.Stmt
	budget   writeBudget

	authGuest bool       // the authorizer applies guest rules
	writes    []string   // tables written by the statement being prepared
	changes   int64      // rows the last guest write changed, since reset (SQL changes())
	totalBase int64      // the connection's total changes at reset (SQL total_changes())
	resp      []byte     // SQL response buffer, kept between calls (see call.end)
	track     rowTracker // the rows written since the reset (tracking.go)
	callWrote callWrites // what the running call wrote (writecap.go)
	spoiled   bool       // SQLite ran out of memory on it: closed, never pooled
	idleSince time.Time  // when it went back to the pool
}

// Connect gives the episode its SQLite connection now (a pooled one, or a
// new one: ~0.3 ms, a few hundred KiB) instead of at its first call. For a
// caller that accounts memory when it creates episodes, such as a server
// with a memory cap; others need not call it.
func (ep *Episode) Connect() error {
	if ep.closed {
		return ErrClosed
	}
	return ep.connect()
}

// connect gives the episode its connection at its first use of SQL: an
// idle one of its initial state, else a new one.
func (ep *Episode) connect() error {
	if ep.sqlConn != nil {
		return nil
	}
	c := ep.env.takeConn(ep.init)
	if c == nil {
		var err error
		if c, err = ep.env.openSQLConn(ep.init); err != nil {
			return err
		}
	}
	if err := catchOOM(func() error { return c.resume(ep.parked) }); err != nil {
		c.close()
		return err
	}
	ep.parked = nil
	c.ep = ep
	ep.sqlConn = c
	ep.env.liveConns.Add(1)
	return nil
}

// disconnect gives the episode's connection back to the pool, rolled back
// to the initial state, or closes it.
func (ep *Episode) disconnect() error {
	c := ep.sqlConn
	if c == nil {
		return nil
	}
	ep.sqlConn = nil
	ep.env.liveConns.Add(-1)
	c.ep = nil
	if ep.lost || c.spoiled || c.spilled() || catchOOM(c.restart) != nil || !ep.env.putConn(c) {
		return c.close()
	}
	return nil
}

// spilled reports whether the episode changed more pages than the page
// cache holds (SQLite wrote some to the database mid-transaction). Such an
// episode grew the connection's SQLite heap (its memory journal holds the
// original of every changed page) and that heap never shrinks, so the
// connection is closed rather than kept: a pooled connection then holds at
// most about twice the cache size.
func (c *sqlConn) spilled() bool {
	n, _, err := c.conn.Status(sqlite3.DBSTATUS_CACHE_SPILL, true)
	return err != nil || n > 0
}

// openSQLConn opens a connection on a new mvcc database over an initial
// state, inside an open (deferred) transaction.
func (e *Env) openSQLConn(s *initState) (*sqlConn, error) {
	c := &sqlConn{init: s, name: fmt.Sprintf("wasmenv-%d-ep-%d", e.id, e.epSeq.Add(1)), stmts: map[string]*guestStmt{}}
	c.initImage = s.snap.Tree
	c.file = newEpFile(c.name, c.initImage)
	if err := catchOOM(func() error { return c.open(e) }); err != nil {
		dropEpFile(c.name)
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *sqlConn) open(e *Env) error {
	conn, err := e.openURI("file:/" + c.name + "?vfs=" + epVFSName)
	if err != nil {
		return err
	}
	c.conn = conn
	if err := conn.Exec(`ATTACH 'file:/` + c.init.name + `?vfs=mvcc&mode=ro' AS init`); err != nil {
		return err
	}
	if err := conn.SetAuthorizer(func(action sqlite3.AuthorizerActionCode, name3rd, name4th, schema, inner string) sqlite3.AuthorizerReturnCode {
		if !c.authGuest { // host SQL, including while no episode holds the connection
			return sqlite3.AUTH_OK
		}
		return c.ep.authorize(action, name3rd, name4th, schema, inner)
	}); err != nil {
		return err
	}
	// init is read by diffs, state hashes and checks only, and a diff reads
	// the rows an episode wrote (tracking.go): a small cache for it bounds
	// what a full scan (a view without a tracked path) leaves in the
	// connection's heap, which never shrinks (BenchmarkEpisodeActiveRSS).
	if err := conn.Exec(`PRAGMA init.cache_size = -` + strconv.Itoa(initCacheKiB)); err != nil {
		return err
	}
	conn.Limit(sqlite3.LIMIT_ATTACHED, 0) // init is attached; nothing else ever
	c.track.want, c.track.keyed, c.track.on = e.trackedTables, e.keyedTables, trackWrites
	conn.PreUpdateHook(func(d sqlite3.PreUpdateData) {
		c.callWrote.add(&d)
		if c.track.on {
			c.track.hook(d)
		}
	})
	// Plans that do not depend on bound values: otherwise SQLite marks a
	// statement whose plan looked at a parameter (a bound LIMIT; STAT4
	// estimates) expired on every bind, and re-prepares it on every call
	// with new arguments (~12 µs of a 24 µs list_orders call).
	if _, err := conn.Config(sqlite3.DBCONFIG_ENABLE_QPSG, true); err != nil {
		return err
	}
	if err := seededRandom(conn, func() uint64 { return c.ep.rng.Uint64() }); err != nil {
		return err
	}
	// 'now' is the episode clock (during a call, what sdk.Now returns), or
	// the epoch while no episode holds the connection.
	if err := sqlClock(conn, func() int64 {
		if c.ep == nil {
			return e.epoch
		}
		return c.ep.clockNanos()
	}); err != nil {
		return err
	}
	if err := c.episodeCounters(); err != nil {
		return err
	}
	if err := c.registerWritten(e.rowTables); err != nil {
		return err
	}
	if err := c.registerInit(); err != nil {
		return err
	}
	// Long SQL stops when the watchdog stops the call: during a call the
	// connection's interrupt context is the call (see call.go).
	for _, p := range []struct {
		dst **sqlite3.Stmt
		sql string
	}{{&c.spBegin, "SAVEPOINT call"}, {&c.spCommit, "RELEASE call"}, {&c.spUndo, "ROLLBACK TO call"},
		{&c.rollback, "ROLLBACK"}, {&c.begin, "BEGIN"}, {&c.commit, "COMMIT"}} {
		if *p.dst, _, err = conn.Prepare(p.sql); err != nil {
			return err
		}
	}
	return c.begin.Exec()
}

// episodeCounters replaces SQLite's changes() and total_changes(), which
// count for the connection's whole life, with counts since the episode's
// reset, so that SQL in tool code sees the same numbers on a fresh episode,
// after a reset and on a reused connection (last_insert_rowid is reset with
// the connection's own setter, see restartCounters).
func (c *sqlConn) episodeCounters() error {
	if err := createFunction(c.conn, "changes", 0, 0, func(ctx sqlite3.Context, _ ...sqlite3.Value) {
		ctx.ResultInt64(c.changes)
	}); err != nil {
		return err
	}
	return createFunction(c.conn, "total_changes", 0, 0, func(ctx sqlite3.Context, _ ...sqlite3.Value) {
		ctx.ResultInt64(c.conn.TotalChanges() - c.totalBase)
	})
}

// restartCounters makes SQLite's counters start fresh, as on a new episode.
func (c *sqlConn) restartCounters() {
	c.conn.SetLastInsertRowID(0)
	c.changes = 0
	c.totalBase = c.conn.TotalChanges()
}

// restart rolls the transaction back (unless SQLite already did, see
// guard) and begins a new one, on the initial state.
func (c *sqlConn) restart() error {
	c.track.clear()
	c.grownBase = 0
	if !c.conn.GetAutocommit() {
		if err := c.rollback.Exec(); err != nil {
			return err
		}
	}
	if c.file.data != c.initImage { // a resumed episode's image (park.go)
		c.swap(c.init.snap.Tree)
		c.initImage = c.file.data
	}
	return c.begin.Exec()
}

// close frees the connection and its database, each statement on its own:
// one failing must not keep the others open.
func (c *sqlConn) close() error {
	if c.conn == nil {
		return nil
	}
	c.clearStmts()
	c.closeBudget()
	for _, s := range []*sqlite3.Stmt{c.spBegin, c.spCommit, c.spUndo, c.rollback, c.begin, c.commit} {
		if s != nil {
			catchOOM(s.Close)
		}
	}
	err := catchOOM(c.conn.Close)
	c.conn = nil
	return err
}

// clearStmts drops the cached guest statements (after out of memory, a
// statement may be left half-run).
func (c *sqlConn) clearStmts() {
	for k, s := range c.stmts {
		catchOOM(func() error { return s.stmt.Close() })
		delete(c.stmts, k)
	}
}

// initCacheKiB is the page cache of an episode's init schema, in KiB
// (main keeps SQLite's default, 2,000 KiB: its pages are the episode's).
const initCacheKiB = 256
