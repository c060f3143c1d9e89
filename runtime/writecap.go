package runtime

import (
	"github.com/ncruces/go-sqlite3"
)

// Default per-call write caps (Options.MaxCallWriteRows, MaxCallWriteBytes).
const (
	defaultCallWriteRows  = 100_000
	defaultCallWriteBytes = 64 << 20
)

// callWrites counts what the running call wrote: rows inserted, updated or
// deleted and the bytes of their new values, its triggers' writes and
// foreign-key actions included (SQLite's pre-update hook sees them all).
// The write budget (budget.go) measures the episode's growth once a call
// has ended; these caps count every row: a source trigger kept by synth
// from-db wrote 200,000 rows from one update_customer (1.7 GB to replay
// with its diff). The statement that goes past a cap fails when it ends,
// as does every later statement of the call, and the call is undone and
// answers OutcomeQuota, so no diff, hash or later call sees its rows. The
// statement is not stopped midway: interrupting a write makes SQLite roll
// back the whole transaction, the episode's earlier calls included; the
// call timeout and the SQL memory limit bound the statement itself.
type callWrites struct {
	rows, bytes       int64
	maxRows, maxBytes int64
	active, over      bool
}

// start begins a call's count under the environment's caps.
func (w *callWrites) start(e *Env) {
	*w = callWrites{maxRows: e.callWriteRows, maxBytes: e.callWriteBytes, active: true}
}

// add counts one row change; the pre-update hook calls it. Only a write's
// new values are sized (a DELETE writes no bytes, only a row).
func (w *callWrites) add(d *sqlite3.PreUpdateData) {
	if !w.active || w.over { // no call running (a task's setup), or already over
		return
	}
	w.rows++
	if d.Op != sqlite3.AUTH_DELETE {
		for i := range d.Count() {
			v, err := d.New(i)
			if err != nil {
				continue
			}
			switch v.Type() {
			case sqlite3.TEXT:
				w.bytes += int64(len(v.RawText()))
			case sqlite3.BLOB:
				w.bytes += int64(len(v.RawBlob()))
			default:
				w.bytes += 8
			}
		}
	}
	w.over = w.rows > w.maxRows || w.bytes > w.maxBytes
}

// quota is the result of a call stopped by a cap.
func (w *callWrites) quota() Result {
	if w.rows > w.maxRows {
		return failed(OutcomeQuota, "this call wrote more than %d rows (triggers included), the most one call may write; nothing it wrote was kept (write fewer rows per call)", w.maxRows)
	}
	return failed(OutcomeQuota, "this call wrote more than %d MiB (triggers included), the most one call may write; nothing it wrote was kept (write less per call)", w.maxBytes>>20)
}
