package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/vfs/mvcc"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Bundle SQL outside tool calls (a task's setup, its checks, export views)
// comes from an untrusted bundle like tool code does, so it runs under the
// same kind of limit: a work limit counted through SQLite's progress handler
// (work.go), a wall-clock guard far beyond it for a wedged host, and never
// while holding a lock other episodes need.

const (
	defaultSQLTimeout = 10 * time.Second
	maxSQLTimeout     = 10 * time.Minute
)

// ErrSQLTimeout is returned when bundle SQL outside a tool call runs past
// the wall-clock guard (Options.WallGuard) or its
// caller's context ends: the host was too slow, or the caller gave up.
var ErrSQLTimeout = errors.New("runtime: bundle SQL exceeded its time limit")

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// underDeadline runs f with conn interrupted once its work is spent, at the
// wall-clock guard, or when ctx ends, whichever comes first.
func (e *Env) underDeadline(ctx context.Context, conn *sqlite3.Conn, f func() error) error {
	ctx, cancel := context.WithTimeout(ctx, e.sqlWall)
	defer cancel()
	w := &workCtx{Context: ctx, left: e.sqlWork()}
	old := conn.SetInterrupt(w)
	defer conn.SetInterrupt(old)
	err := f()
	switch {
	case err == nil:
	case w.spent():
		return fmt.Errorf("%w of %d SQLite steps (about %s on a quiet machine)", ErrWorkLimit, e.sqlWork()*1000, e.sqlTimeout)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: the wall-clock guard of %s fired (the host is overloaded or wedged)", ErrSQLTimeout, e.sqlWall)
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", ErrSQLTimeout, ctx.Err())
	}
	return err
}

// bundleSQL runs f (bundle SQL on the episode's connection) under the
// deadline, with out of memory as an error.
func (ep *Episode) bundleSQL(ctx context.Context, f func() error) error {
	if err := ep.connect(); err != nil {
		return err
	}
	return ep.guard(func() error { return ep.env.underDeadline(ctx, ep.conn, f) })
}

// initFor returns the initial state of a task, applying its setup once.
// The setup runs without the Env lock: a slow setup delays only the
// episodes of its own task, and it stops at the bundle-SQL deadline.
func (e *Env) initFor(task *envpkg.Task) (*initState, error) {
	key := ""
	if task != nil && task.Setup != "" {
		key = task.ID
	}
	e.mu.Lock()
	if e.inits == nil {
		e.mu.Unlock()
		return nil, ErrClosed
	}
	s, ok := e.inits[key]
	if !ok {
		s = &initState{name: fmt.Sprintf("wasmenv-%d-init-%s", e.id, key), id: newInitID(), ready: make(chan struct{})}
		e.inits[key] = s
		mvcc.Create(s.name, e.inits[""].snap)
	}
	e.mu.Unlock()
	if ok {
		<-s.ready
		if s.err != nil {
			return nil, s.err
		}
		return s, nil
	}
	defer close(s.ready)
	conn, err := e.openConn(s.name, false)
	if err == nil {
		err = catchOOM(func() error {
			return e.underDeadline(context.Background(), conn, func() error {
				if err := restrict(conn, e.epoch); err != nil {
					return err
				}
				return execRestricted(conn, task.Setup)
			})
		})
		catchOOM(conn.Close)
	}
	if err != nil {
		// The error is kept: setup SQL is deterministic, it would fail again.
		s.err = fmt.Errorf("task %s: setup: %w", task.ID, err)
		mvcc.Delete(s.name)
		return nil, s.err
	}
	s.snap = mvcc.TakeSnapshot(s.name)
	return s, nil
}
