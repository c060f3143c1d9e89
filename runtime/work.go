package runtime

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Limits counted in work, not time (issue 35). A reward must be a function
// of the trajectory: a limit on wall time makes it a function of the
// machine's load too (a right trajectory scored 0 because its check ran
// past 10 s on a saturated machine). So every limit that can decide an
// outcome counts work, which is the same on a quiet and a busy machine:
//
//   - SQLite statements, bundle SQL and the guest's SQL alike: go-sqlite3
//     asks its interrupt context for Err every 1000 VM steps (the progress
//     handler) and before each row it steps; workCtx and toolCall count
//     those asks.
//   - Guest code: instrumentLoops makes the module call sched_yield every
//     yieldEvery loop passes; the instance counts those calls.
//
// A limit written in milliseconds (env.yaml's call_timeout_ms,
// Options.SQLTimeout) keeps its meaning on a quiet machine: it becomes the
// work one core of the 2-core reference VM does in that time
// (sqlTicksPerMS, yieldsPerMS). Wall time stays only as a last guard
// against a wedged host (Options.WallGuard; by default wallGuardFactor
// times longer, at least minWallGuard); when it fires the
// outcome is the environment's failure, never the agent's.
//
// The guest's count is exact up to one yield: the countdown global between
// yields lives in the instance across calls, and the Go runtime inside the
// guest (its garbage collector) runs loops that depend on the instance's
// heap. A call near its limit could end either side of it; a runaway call
// ends at it.

const (
	// sqlTicksPerMS is interrupt polls per millisecond of a limit. SQLite
	// polls once per 1000 VM steps (26-50 per ms on the reference VM) and
	// go-sqlite3 once per row stepped (about 1,000 per ms when the rows
	// are rendered): 128 is loose for both, so that a limit stops runaway
	// work, not slow honest work (a tool rendering 200,000 rows fits in
	// 2 s's budget).
	sqlTicksPerMS = 128
	// yieldsPerMS is guest sched_yield calls (yieldEvery loop passes each)
	// per millisecond of a limit.
	yieldsPerMS = 16
	// wallGuardFactor is how much longer than a limit the wall-clock guard
	// waits by default, and minWallGuard the least it waits: a saturated
	// machine (a GRPO batch of 256 episodes on 2 cores beside busy loops)
	// can leave a goroutine unscheduled for seconds.
	wallGuardFactor = 10
	minWallGuard    = time.Minute
)

// stopWork: the call ran past its work limit (beside stopTimeout and
// stopCancel, watchdog.go).
const stopWork = 3

// ErrWorkLimit is returned when bundle SQL outside a tool call (a setup, a
// check, a diff's export views) runs past its work limit. It is the
// bundle's failure, and the same however loaded the machine.
var ErrWorkLimit = errors.New("runtime: bundle SQL exceeded its work limit")

// errWorkSpent is the interrupt context's error once its work is spent.
var errWorkSpent = errors.New("work limit reached")

// workCtx is SQLite's interrupt context for bundle SQL: ctx is the
// wall-clock guard and the caller's cancellation; left counts the polls
// still allowed.
type workCtx struct {
	context.Context
	left int64
}

func (w *workCtx) Err() error {
	if w.left--; w.left < 0 {
		return errWorkSpent
	}
	return w.Context.Err()
}

// spent reports whether the work ran out.
func (w *workCtx) spent() bool { return w.left < 0 }

// sqlWork is the work limit of bundle SQL, in polls.
func (e *Env) sqlWork() int64 { return e.sqlTimeout.Milliseconds() * sqlTicksPerMS }

// callSQLWork and callYields are a tool call's work limits.
func (e *Env) callSQLWork() int64 { return e.callTimeout.Milliseconds() * sqlTicksPerMS }
func (e *Env) callYields() int64  { return e.callTimeout.Milliseconds() * yieldsPerMS }

// wallGuard is the wall-clock guard for a limit d: Options.WallGuard, or
// wallGuardFactor × d and at least minWallGuard.
func wallGuard(d, opt time.Duration) time.Duration {
	if opt > 0 {
		return opt
	}
	return max(d*wallGuardFactor, minWallGuard)
}

// yielded counts one of the guest's sched_yield calls against the running
// call's work limit.
func (inst *instance) yielded() {
	if inst.cur == nil {
		return
	}
	if inst.yieldsLeft--; inst.yieldsLeft < 0 {
		inst.stopForWork()
	}
}

// stopForWork stops the running call: its work is spent.
func (inst *instance) stopForWork() {
	if inst.stop.CompareAndSwap(0, stopWork) {
		inst.g.interrupt()
	}
}

// workMessage says what a call stopped for its work limit did.
func (e *Env) workMessage() string {
	return fmt.Sprintf("tool call ran past its work limit (about %s of computing on a quiet machine) and was stopped", e.callTimeout)
}
