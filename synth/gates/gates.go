package gates

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Gate names one quality gate.
type Gate string

// The gates, in the order they are applied.
const (
	Invalid    Gate = "invalid" // malformed task (no checks and no answer, bad answer rule)
	Duplicate  Gate = "duplicate"
	Leak       Gate = "leak"
	Replay     Gate = "replay"
	Initial    Gate = "initial"
	Nontrivial Gate = "nontrivial"
	Wrong      Gate = "wrong" // a check or answer rule accepts a wrong solution
)

// All lists the gates in the order they are applied.
var All = []Gate{Invalid, Duplicate, Leak, Replay, Initial, Nontrivial, Wrong}

// Rejection is the error for a task a gate dropped.
type Rejection struct {
	Gate   Gate
	Reason string
}

func (r *Rejection) Error() string { return fmt.Sprintf("gate %s: %s", r.Gate, r.Reason) }

// ErrRejected matches every *Rejection with errors.Is.
var ErrRejected = errors.New("gates: task rejected")

// Is makes errors.Is(err, ErrRejected) true for rejections.
func (r *Rejection) Is(target error) bool { return target == ErrRejected }

// Candidate is a task with what the gates need to know beyond it.
type Candidate struct {
	Task envpkg.Task
	// InternalIDs are values (ids) a user would not know; the instruction
	// must not contain them.
	InternalIDs []string
	// Distractors are answers an agent could give by picking the wrong row
	// (the same attribute of the rows the task could be confused with).
	// An answer rule that accepts one does not tell the right row from the
	// others, and the task is dropped.
	Distractors []string
	// Peers are other values of the column the answer is read from (other
	// rows'): the gates hide the expected answer among them ("Park,
	// Peacock or Johnson"), which the rule must reject.
	Peers []string
	// WrongCalls are trajectories that must not solve the task (the same
	// change to another row, the change plus one more): the checks must
	// fail on each whose final state differs from the ground truth's.
	WrongCalls [][]envpkg.Call
}

// Verdict is what Check learned about a kept task.
type Verdict struct {
	Writes       bool    // the ground truth changes the state
	InitialScore float64 // reward of the untouched state, no answer
}

// Counts is the tally of a Checker.
type Counts struct {
	Checked int          `json:"checked"`
	Kept    int          `json:"kept"`
	Dropped map[Gate]int `json:"dropped"`
	// Examples holds the first reason each gate gave, for reports.
	Examples map[Gate]string `json:"examples,omitempty"`
}

// Checker runs the gates against one loaded environment, whose bundle it
// leaves as it is (candidates run through runtime.Candidate). It is safe
// for concurrent use; checks run one at a time, as each reads and extends
// what the Checker has kept.
type Checker struct {
	env  *runtime.Env
	seed int64
	opts Options

	mu     sync.Mutex
	writes map[string][][]envpkg.Call // kept write tasks' calls, by last tool (for stray-write trials)
	calls  map[string]bool
	checks map[string]bool
	instrs map[string]bool
	counts Counts
}

// Options tune a Checker.
type Options struct {
	// NothingEarnsNothing drops a write task with a check (not a guard)
	// that already holds on the untouched state: under a reward that
	// counts checks (fraction, awm, envfactory) doing nothing would earn
	// something for it. `wasmenv test` notes such checks; procedural
	// synthesis makes none.
	NothingEarnsNothing bool
}

// New returns a Checker for env; episodes use seed.
func New(env *runtime.Env, seed int64) *Checker { return NewWith(env, seed, Options{}) }

// NewWith returns a Checker for env with options; episodes use seed.
func NewWith(env *runtime.Env, seed int64, opts Options) *Checker {
	return &Checker{env: env, seed: seed, opts: opts, writes: map[string][][]envpkg.Call{}, calls: map[string]bool{}, checks: map[string]bool{}, instrs: map[string]bool{},
		counts: Counts{Dropped: map[Gate]int{}, Examples: map[Gate]string{}}}
}

// Counts returns the tally so far.
func (c *Checker) Counts() Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.counts
	out.Dropped = map[Gate]int{}
	for g, n := range c.counts.Dropped {
		out.Dropped[g] = n
	}
	out.Examples = map[Gate]string{}
	for g, e := range c.counts.Examples {
		out.Examples[g] = e
	}
	return out
}

// Check runs every gate on a candidate. It returns nil error when the task
// is kept (and remembers it for the duplicate gate), a *Rejection when a
// gate drops it, or another error when the environment itself failed.
func (c *Checker) Check(ctx context.Context, cand Candidate) (Verdict, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.counts.Checked++
	v, err := c.check(ctx, &cand)
	var rej *Rejection
	switch {
	case errors.As(err, &rej):
		c.counts.Dropped[rej.Gate]++
		if _, ok := c.counts.Examples[rej.Gate]; !ok {
			c.counts.Examples[rej.Gate] = cand.Task.ID + ": " + rej.Reason
		}
	case err == nil:
		c.counts.Kept++
		c.calls[callsKey(cand.Task)] = true
		if k := checksKey(cand.Task); k != "" {
			c.checks[k] = true
		}
		c.instrs[normInstr(cand.Task.Instruction)] = true
		if n := len(cand.Task.Calls); v.Writes && n > 0 {
			last := cand.Task.Calls[n-1].Name
			if len(c.writes[last]) < maxStrays {
				c.writes[last] = append(c.writes[last], cand.Task.Calls)
			}
		}
	}
	return v, err
}

func reject(g Gate, format string, args ...any) error {
	return &Rejection{Gate: g, Reason: fmt.Sprintf(format, args...)}
}
