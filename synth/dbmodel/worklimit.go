package dbmodel

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// DefaultWorkLimit is the work one query on a source database may do, in
// SQLite progress checks (one per ~1000 VM instructions, and one per row
// stepped): about 5 billion VM steps, minutes of SQLite. The statistics of
// a table take about half a check per row of five columns (100,000 checks
// for 200,000 rows), so tables of millions of rows fit; a larger one needs
// a larger limit (--work-limit), a view that never ends fails.
const DefaultWorkLimit = 5_000_000

// WorkLimitError is returned when a query on a source database did more
// work than its limit allows: a view over an endless recursive CTE never
// ends, and neither must synthesis.
type WorkLimitError struct {
	Limit int64 // the limit, in progress checks
}

func (e *WorkLimitError) Error() string {
	return fmt.Sprintf("a query ran past its work limit (%d SQLite progress checks, ~%d billion VM steps): an endless query such as a view over an unbounded recursive CTE? (--work-limit)",
		e.Limit, max(e.Limit/1_000_000, 1))
}

// workLimit is a source connection's interrupt context (conn.SetInterrupt):
// SQLite asks its Err every ~1000 VM instructions and before each step, so
// counting the asks measures the query's work. It is done when its parent
// is, or once the query in progress did more than limit; each query starts
// afresh (Fresh).
type workLimit struct {
	parent context.Context
	limit  int64
	used   int64
	over   error
}

// Guard runs every later query of conn under ctx (its cancellation stops a
// query mid-step) and a work limit per query (limit <= 0: DefaultWorkLimit).
// The returned func restores the connection's previous interrupt context.
func Guard(ctx context.Context, conn *sqlite3.Conn, limit int64) (release func()) {
	if limit <= 0 {
		limit = DefaultWorkLimit
	}
	old := conn.SetInterrupt(&workLimit{parent: ctx, limit: limit})
	return func() { conn.SetInterrupt(old) }
}

// Fresh starts a new query's work count on a guarded connection (a no-op
// on any other).
func Fresh(conn *sqlite3.Conn) {
	if w, ok := conn.GetInterrupt().(*workLimit); ok {
		w.used, w.over = 0, nil
	}
}

// Interrupted returns why conn's last query was interrupted (the context's
// error, or a *WorkLimitError), or nil when it was not.
func Interrupted(conn *sqlite3.Conn) error {
	if w, ok := conn.GetInterrupt().(*workLimit); ok {
		if err := w.parent.Err(); err != nil {
			return err
		}
		return w.over
	}
	return conn.GetInterrupt().Err()
}

// Fatal reports whether err means reading must stop (the run was cancelled,
// or a query ran past its work limit) rather than one object be skipped.
func Fatal(err error) bool {
	var wl *WorkLimitError
	return errors.As(err, &wl) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func (w *workLimit) Err() error {
	if err := w.parent.Err(); err != nil {
		return err
	}
	if w.over == nil {
		if w.used++; w.used > w.limit {
			w.over = &WorkLimitError{Limit: w.limit}
		}
	}
	return w.over
}

func (w *workLimit) Deadline() (time.Time, bool) { return w.parent.Deadline() }
func (w *workLimit) Done() <-chan struct{}       { return w.parent.Done() }
func (w *workLimit) Value(key any) any           { return w.parent.Value(key) }
