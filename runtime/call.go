package runtime

import (
	"context"
	"time"
)

// toolCall is one tool call in flight: the episode it runs in, the instance
// running it, the caller's context and the SQL response the guest takes
// next. It lives from the call's start to its end; the host functions
// (host.go) reach the episode through the instance's current call, and
// SQLite's interrupt checks it (it is the connection's interrupt context
// during the call).
type toolCall struct {
	ep        *Episode
	inst      *instance
	ctx       context.Context
	resp      []byte // the last SQL response, until the guest takes it
	refused   bool   // the sandbox refused some of the call's SQL
	savepoint bool   // the call has written: its savepoint is open
	sqlLeft   int64  // SQLite polls left before the call's work is spent (work.go)
}

// begin makes c the call running on its instance and episode.
func (c *toolCall) begin() {
	c.resp = c.ep.resp[:0]
	c.inst.cur = c
	c.sqlLeft = c.ep.env.callSQLWork()
	c.inst.yieldsLeft = c.ep.env.callYields()
	c.ep.callWrote.start(c.ep.env)
	c.ep.conn.SetInterrupt(c)
}

// end detaches c; the response buffer goes back to the episode for the
// next call unless one huge query result made it too big to keep.
func (c *toolCall) end() {
	c.inst.cur = nil
	c.ep.callWrote.active = false // counts nothing between calls
	c.ep.conn.SetInterrupt(context.Background())
	if cap(c.resp) > maxKeptResponse {
		c.resp = nil
	}
	c.ep.resp = c.resp
}

// beforeWrite opens the call's savepoint before its first write.
func (c *toolCall) beforeWrite() error {
	if c.savepoint {
		return nil
	}
	if err := c.ep.spBegin.Exec(); err != nil {
		return err
	}
	c.savepoint = true
	return nil
}

// commit keeps the call's writes.
func (c *toolCall) commit() error {
	if !c.savepoint {
		return nil
	}
	c.savepoint = false
	return c.ep.spCommit.Exec()
}

// undo rolls back the call's writes.
func (c *toolCall) undo() {
	if !c.savepoint {
		return
	}
	c.savepoint = false
	c.ep.spUndo.Exec()
	c.ep.spCommit.Exec()
}

// As SQLite's interrupt context, a call is done once the watchdog stopped
// it or its work is spent: each Err is a poll of SQLite's progress handler
// (1000 VM steps) or a statement's start.
func (c *toolCall) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *toolCall) Done() <-chan struct{}       { return nil }
func (c *toolCall) Value(any) any               { return nil }

func (c *toolCall) Err() error {
	if c.sqlLeft--; c.sqlLeft < 0 {
		c.inst.stopForWork()
	}
	switch c.inst.stop.Load() {
	case stopWork:
		return errWorkSpent
	case stopTimeout:
		return context.DeadlineExceeded
	case stopCancel:
		return context.Canceled
	}
	return nil
}
