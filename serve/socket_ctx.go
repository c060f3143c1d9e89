package serve

import (
	"context"
	"sync"
	"time"
)

// callContext is the context of a /v1/ws connection's calls, which run one
// at a time: each call ends CallTimeout after it starts, or when the
// session's context ends (the server's Close). It is made once per
// connection and re-armed per call: context.WithTimeout cost a call five
// allocations, a timer and its registration as a child of the session's
// context, about a twentieth of the server's CPU per call in the
// profile (issue 35).
//
// A call's context must not be kept past the call; the call's code (the
// episode's lock, the call slots, the runtime's watchdog) keeps none.
type callContext struct {
	parent context.Context // values (the client's name); its end ends every call
	timer  *time.Timer     // the deadline; fires expire
	stop   func() bool     // unregisters from parent

	mu       sync.Mutex
	done     chan struct{}
	err      error
	deadline time.Time
}

func newCallContext(parent context.Context) *callContext {
	c := &callContext{parent: parent, done: make(chan struct{})}
	c.timer = time.AfterFunc(time.Hour, c.expire)
	c.timer.Stop()
	c.stop = context.AfterFunc(parent, func() { c.end(parent.Err()) })
	return c
}

// start arms the context for a call that may run for d.
func (c *callContext) start(d time.Duration) context.Context {
	c.mu.Lock()
	if c.err != nil && c.parent.Err() == nil {
		// The last call ran past its deadline: a fresh channel.
		c.done, c.err = make(chan struct{}), nil
	}
	c.deadline = time.Now().Add(d)
	c.mu.Unlock()
	c.timer.Reset(d)
	return c
}

// finish disarms it after the call.
func (c *callContext) finish() { c.timer.Stop() }

// close releases the timer and the parent's hook.
func (c *callContext) close() {
	c.timer.Stop()
	c.stop()
}

// expire ends the call when its deadline has come. A timer that fired for
// an earlier call may run late, after the next call's start: the current
// deadline, not yet reached, tells it apart (timers never fire early).
func (c *callContext) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil && !time.Now().Before(c.deadline) {
		c.err = context.DeadlineExceeded
		close(c.done)
	}
}

// end ends the current call and every later one: the session is over.
func (c *callContext) end(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		close(c.done)
	}
	c.err = err
}

func (c *callContext) Deadline() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.deadline, true
}

func (c *callContext) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done
}

func (c *callContext) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *callContext) Value(key any) any { return c.parent.Value(key) }
