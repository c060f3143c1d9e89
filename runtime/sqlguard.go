package runtime

import (
	"context"
	"errors"
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// ErrOutOfMemory is returned when SQLite runs out of its per-connection heap
// (Options.SQLMemoryMB) outside a tool call: a diff, a state hash, a check,
// a reset. go-sqlite3 panics on SQLITE_NOMEM; the runtime turns that panic
// into this error so that no bundle or agent can crash the process.
var ErrOutOfMemory = errors.New("runtime: SQLite ran out of memory")

// ErrStateLost is returned by an episode whose open transaction SQLite rolled
// back after running out of memory: its state is gone, Reset starts it again.
var ErrStateLost = errors.New("runtime: the episode's state was lost when SQLite ran out of memory; reset the episode")

// defaultSQLMemoryMB is go-sqlite3's own default per-connection heap.
const defaultSQLMemoryMB = 256

// maxSQLMemoryMB caps Options.SQLMemoryMB (go-sqlite3's 32-bit address space).
const maxSQLMemoryMB = 4095

// openConn opens a connection on an mvcc database with the environment's
// SQLite heap limit.
func (e *Env) openConn(name string, readOnly bool) (*sqlite3.Conn, error) {
	uri := "file:/" + name + "?vfs=mvcc"
	if readOnly {
		uri += "&mode=ro"
	}
	return e.openURI(uri)
}

// openURI opens a connection with the environment's SQLite heap limit.
func (e *Env) openURI(uri string) (*sqlite3.Conn, error) {
	ctx := sqlite3.WithMaxMemory(context.Background(), int64(e.sqlMemoryMB)<<20)
	var conn *sqlite3.Conn
	err := catchOOM(func() (err error) {
		conn, err = sqlite3.OpenContext(ctx, uri)
		return err
	})
	return conn, err
}

// isOOM reports whether a recovered panic is go-sqlite3's out-of-memory panic.
func isOOM(v any) bool {
	err, ok := v.(error)
	return ok && err.Error() == "sqlite3: out of memory"
}

// catchOOM runs f, turning go-sqlite3's out-of-memory panic into
// ErrOutOfMemory. Any other panic goes on.
func catchOOM(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if !isOOM(v) {
				panic(v)
			}
			err = ErrOutOfMemory
		}
	}()
	return f()
}

// guard runs f on the episode's connection. Out of memory is an error; if
// SQLite rolled the episode's transaction back on the way (it does so for
// SQLITE_NOMEM even in a read-only statement), the episode is marked lost
// until Reset, instead of silently going on from its initial state.
func (ep *Episode) guard(f func() error) error {
	if ep.lost {
		return ErrStateLost
	}
	err := catchOOM(f)
	if errors.Is(err, ErrOutOfMemory) || (err != nil && sqliteNoMem(err)) {
		err = fmt.Errorf("%w (limit %d MiB per episode)", ErrOutOfMemory, ep.env.sqlMemoryMB)
		ep.clearStmts()
		if ep.sqlConn != nil && ep.conn.GetAutocommit() {
			ep.lost = true
			return fmt.Errorf("%w: %w", ErrStateLost, err)
		}
	}
	return err
}

// sqliteNoMem reports a SQLITE_NOMEM error returned (not panicked).
func sqliteNoMem(err error) bool {
	var se *sqlite3.Error
	return errors.As(err, &se) && se.Code() == sqlite3.NOMEM
}

// clearStmts drops the cached guest statements, if the episode has a
// connection, and keeps the connection out of the pool.
func (ep *Episode) clearStmts() {
	if ep.sqlConn != nil {
		ep.spoiled = true
		ep.sqlConn.clearStmts()
	}
}

// afterCall ends Call: an out-of-memory panic outside the guest becomes an
// error, and a transaction SQLite rolled back during the call (out of memory
// inside the guest's SQL) marks the episode lost instead of letting it go
// on from its initial state.
func (ep *Episode) afterCall(res *Result, err *error) {
	ep.logged = 0
	if ep.sqlOOM {
		ep.sqlOOM = false
		ep.spoiled = true
		if res.IsError || res.Outcome == OutcomeOK || res.Outcome == OutcomeToolError {
			*res = failed(OutcomeOutOfMemory, "the database ran out of memory (limit %d MiB per episode) and the call was rolled back", ep.env.sqlMemoryMB)
		}
	}
	if v := recover(); v != nil {
		if !isOOM(v) {
			panic(v)
		}
		*err = fmt.Errorf("%w (limit %d MiB per episode)", ErrOutOfMemory, ep.env.sqlMemoryMB)
		ep.clearStmts()
	}
	if ep.sqlConn != nil && ep.conn.GetAutocommit() {
		ep.lost = true
		if *err == nil || !errors.Is(*err, ErrStateLost) {
			*err = ErrStateLost
		}
	}
}

// maxLogPerCall bounds the guest log bytes one call may emit (sdk.Log):
// a library user's log sink, or a server's, must not take 390 MB from one
// call. Past it one line says so and the rest is dropped.
const maxLogPerCall = 64 << 10

// logAllowed counts n log bytes against the running call's budget.
func (inst *instance) logAllowed(n uint32) bool {
	c := inst.cur
	if c == nil {
		return true
	}
	ep := c.ep
	if ep.logged > maxLogPerCall {
		return false
	}
	ep.logged += int(n)
	if ep.logged > maxLogPerCall {
		inst.env.log(inst.env.Name(), fmt.Sprintf("[wasmenv: this call's log is over %d KiB; the rest is dropped]", maxLogPerCall>>10))
		return false
	}
	return true
}

// catchGuestOOM ends a guest SQL request: SQLite running out of memory is
// an SQL error to the guest (instead of a panic through the engine, which
// the agent would see as a crash with a stack trace), and the call's outcome
// becomes out_of_memory (see afterCall).
func (ep *Episode) catchGuestOOM(resp *[]byte, size *int32) {
	if v := recover(); v != nil {
		if !isOOM(v) {
			panic(v)
		}
		ep.sqlOOM = true
		*resp = errorResponse((*resp)[:0], "out of memory")
		*size = int32(len(*resp))
	}
}
