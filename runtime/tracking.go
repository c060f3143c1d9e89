package runtime

import (
	"strconv"

	"github.com/ncruces/go-sqlite3"
)

// Change tracking (issue 20): the rows an episode wrote since its last
// reset, per table, so that the diff, the state hash and the score read
// those rows instead of every row of the tables written (trackview.go).
//
// SQLite's pre-update hook reports every row an INSERT, UPDATE or DELETE
// changes on the connection: the statement's own rows, its triggers' rows,
// foreign-key actions, the rows an INSERT OR REPLACE deletes to make room
// (the update hook misses those) and every row of a DELETE without WHERE
// (a pre-update hook turns SQLite's truncate optimisation off). The
// sandbox allows no other way to change a table (no DDL, no PRAGMA, no
// ATTACH: sqlrules), so a row absent from the set is a row the episode
// did not write. The set is a superset: a call whose savepoint is rolled
// back keeps its rows in it (the diff then finds them unchanged), and a
// row written twice is there once. Reset empties it with the rollback.
//
// Rowids identify rows: the tracked path compares main's and init's rows
// at the recorded rowids (main starts as init, so an unrecorded rowid holds
// the same row on both sides). For a WITHOUT ROWID table the hook's keys
// mean nothing; such tables are never on the tracked path and are scanned
// whole, as are tables past maxTrackedRows.

// maxTrackedRows bounds the rows tracked per table (a variable for the
// tests). Past it the table is scanned whole, and its set is dropped: an
// episode that rewrites a large table costs a full scan, as before, and
// no memory per row.
var maxTrackedRows = 1 << 16

// trackWrites installs the hook on new connections; off (benchmarks of
// what the hook costs), every view is scanned whole.
var trackWrites = true

// rowTracker is a connection's record of written rows, by table name as
// SQLite spells it.
type rowTracker struct {
	// tables holds an entry per table written since the connection opened;
	// those no tracked view reads are marked untracked once, at their first
	// write, and cost a map lookup per row after that.
	tables map[string]*tableRows
	want   map[string]bool       // the tables of tracked views (Env.trackedTables)
	keyed  map[string]keyedTable // WITHOUT ROWID tables, tracked by key (trackkeys.go)
	on     bool                  // the hook is installed (trackWrites)
	last   *tableRows            // the table of the previous event (runs of writes to one table)
	lastOf string
	buf    []byte  // the JSON array of rowids bound to a tracked query
	ids    []int64 // rowids' scratch
}

// tableRows is one table's written rows; all: scan the table whole.
type tableRows struct {
	rows      map[int64]struct{}
	keys      map[string]struct{} // a WITHOUT ROWID table's: the written rows' keys as JSON arrays
	all       bool
	untracked bool // no tracked view reads the table: rows stays nil
}

// hook is the pre-update hook. Writes to temp tables are not tracked (no
// export view reads them); init is read-only.
func (t *rowTracker) hook(d sqlite3.PreUpdateData) {
	if d.Schema != "main" {
		return
	}
	tr := t.last
	if tr == nil || t.lastOf != d.Table {
		if tr = t.tables[d.Table]; tr == nil {
			if t.tables == nil {
				t.tables = map[string]*tableRows{}
			}
			tr = &tableRows{untracked: !t.want[d.Table] && t.keyed[d.Table] == nil}
			t.tables[d.Table] = tr
		}
		t.last, t.lastOf = tr, d.Table
	}
	if tr.all || tr.untracked {
		return
	}
	if key := t.keyed[d.Table]; key != nil {
		t.keyHook(d, tr, key)
		return
	}
	if tr.rows == nil {
		tr.rows = map[int64]struct{}{}
	}
	tr.rows[d.OldRowID] = struct{}{} // the row before (update, delete)
	tr.rows[d.NewRowID] = struct{}{} // and after (insert, update): the same but for an update of the rowid
	if len(tr.rows) > maxTrackedRows {
		tr.rows, tr.all = nil, true
	}
}

// clear forgets every row (Reset, or the connection changing episodes).
// A large set is dropped rather than cleared (a Go map keeps its buckets),
// so that a pooled connection does not keep one episode's peak.
func (t *rowTracker) clear() {
	for _, tr := range t.tables {
		tr.all = false
		if len(tr.rows) > 1024 {
			tr.rows = nil
		} else {
			clear(tr.rows)
		}
		if len(tr.keys) > 1024 {
			tr.keys = nil
		} else {
			clear(tr.keys)
		}
	}
}

// written returns the JSON array of a table's written rowids ("[]" when
// none), valid until the next call, or ok false when the table must be
// scanned whole.
func (t *rowTracker) written(table string) (ids []byte, ok bool) {
	tr := t.tables[table]
	if !t.on || tr != nil && (tr.all || tr.untracked) {
		return nil, false
	}
	b := append(t.buf[:0], '[')
	if tr != nil {
		for id := range tr.rows {
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, id, 10)
		}
	}
	b = append(b, ']')
	t.buf = b
	return b, true
}

// rowids returns a table's written rowids (none when none), valid until
// the next call, or ok false when the table must be scanned whole.
func (t *rowTracker) rowids(table string) (ids []int64, ok bool) {
	tr := t.tables[table]
	if !t.on || tr != nil && (tr.all || tr.untracked) {
		return nil, false
	}
	ids = t.ids[:0]
	if tr != nil {
		for id := range tr.rows {
			ids = append(ids, id)
		}
	}
	t.ids = ids
	return ids, true
}

// count is how many rows of a table are tracked.
func (t *rowTracker) count(table string) int {
	if tr := t.tables[table]; tr != nil {
		return len(tr.rows) + len(tr.keys)
	}
	return 0
}
