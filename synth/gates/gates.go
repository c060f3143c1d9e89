package gates

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
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
)

// All lists the gates in the order they are applied.
var All = []Gate{Invalid, Duplicate, Leak, Replay, Initial, Nontrivial}

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

// Checker runs the gates against one loaded environment. It is safe for
// concurrent use; checks are serialized because each registers its task in
// the environment's bundle for the time of the check.
type Checker struct {
	env  *runtime.Env
	seed int64

	mu     sync.Mutex
	n      int
	calls  map[string]bool
	checks map[string]bool
	instrs map[string]bool
	counts Counts
}

// New returns a Checker for env; episodes use seed.
func New(env *runtime.Env, seed int64) *Checker {
	return &Checker{env: env, seed: seed, calls: map[string]bool{}, checks: map[string]bool{}, instrs: map[string]bool{},
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
	}
	return v, err
}

func reject(g Gate, format string, args ...any) error {
	return &Rejection{Gate: g, Reason: fmt.Sprintf(format, args...)}
}

func (c *Checker) check(ctx context.Context, cand *Candidate) (Verdict, error) {
	t := cand.Task
	var v Verdict
	if len(t.Checks) == 0 && t.Answer == nil {
		return v, reject(Invalid, "no checks and no expected answer")
	}
	if strings.TrimSpace(t.Instruction) == "" {
		return v, reject(Invalid, "empty instruction")
	}
	if c.calls[callsKey(t)] {
		return v, reject(Duplicate, "same ground-truth calls as a kept task")
	}
	if k := checksKey(t); k != "" && c.checks[k] {
		return v, reject(Duplicate, "same checks and answer as a kept task")
	}
	if c.instrs[normInstr(t.Instruction)] {
		return v, reject(Duplicate, "same instruction as a kept task")
	}
	for _, id := range cand.InternalIDs {
		if id != "" && containsToken(t.Instruction, id) {
			return v, reject(Leak, "instruction names internal id %q", id)
		}
	}
	for i, ch := range t.Checks {
		if !strings.Contains(strings.ToLower(ch.SQL), "main.") {
			return v, reject(Nontrivial, "check %d (%s) does not read the final state (main.)", i+1, ch.Name)
		}
	}
	if t.Answer != nil {
		if strings.TrimSpace(t.Answer.Value) == "" {
			return v, reject(Nontrivial, "empty expected answer")
		}
		if t.Answer.Match != "number" && strings.Contains(strings.ToLower(t.Instruction), strings.ToLower(t.Answer.Value)) {
			return v, reject(Nontrivial, "the instruction contains the expected answer %q", t.Answer.Value)
		}
	}

	c.n++
	t.ID = fmt.Sprintf("%s~gate%d", t.ID, c.n) // unique: the runtime caches ground-truth hashes by id
	undo := c.register(t)
	defer undo()

	// replay
	ep, err := c.env.NewEpisode(t.ID, c.seed)
	if err != nil {
		return v, reject(Invalid, "cannot start an episode: %v", err)
	}
	defer ep.Close()
	for i, call := range t.Calls {
		res, err := ep.Call(ctx, call.Name, call.Arguments)
		if err != nil {
			return v, err
		}
		if res.IsError {
			return v, reject(Replay, "ground-truth call %d (%s) failed: %s", i+1, call.Name, clip(res.Content))
		}
	}
	var answer *string
	if t.Answer != nil {
		answer = &t.Answer.Value
	}
	s, err := ep.Score(ctx, answer)
	if err != nil {
		return v, err
	}
	if !s.AllPassed {
		return v, reject(Replay, "ground truth scores %.2f: %s", s.Reward, failed(s))
	}

	// initial
	if err := ep.Reset(); err != nil {
		return v, err
	}
	s0, err := ep.Score(ctx, nil)
	if err != nil {
		return v, err
	}
	v.InitialScore = s0.Reward
	v.Writes = s.StateHash != s0.StateHash
	if s0.AllPassed {
		return v, reject(Initial, "the initial state already scores 1.0")
	}
	if v.Writes {
		failing := 0
		for _, r := range s0.Checks {
			if !r.Passed && r.Name != "" && !strings.HasPrefix(r.Name, "answer matches") {
				failing++
			}
		}
		if failing == 0 {
			return v, reject(Nontrivial, "the task writes but every check already holds on the initial state")
		}
	}
	return v, nil
}

// register adds t to the environment's bundle so that episodes can run it,
// and returns the function that takes it out again.
func (c *Checker) register(t envpkg.Task) func() {
	b := c.env.Bundle
	n := len(b.Tasks)
	b.Tasks = append(b.Tasks, t)
	return func() { b.Tasks = b.Tasks[:n] }
}

func failed(s runtime.Score) string {
	var names []string
	for _, r := range s.Checks {
		if !r.Passed {
			n := r.Name
			if r.Error != "" {
				n += " (" + clip(r.Error) + ")"
			}
			names = append(names, n)
		}
	}
	return strings.Join(names, "; ")
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func callsKey(t envpkg.Task) string {
	var b bytes.Buffer
	for _, c := range t.Calls {
		b.WriteString(c.Name)
		b.WriteByte('(')
		b.Write(canonJSON(c.Arguments))
		b.WriteString(")\n")
	}
	return b.String()
}

// checksKey identifies a task's checks and answer; "" for a task with no
// checks, whose answer alone says nothing about sameness (two different
// questions may both have the answer 1).
func checksKey(t envpkg.Task) string {
	if len(t.Checks) == 0 {
		return ""
	}
	sqls := make([]string, 0, len(t.Checks)+1)
	for _, c := range t.Checks {
		sqls = append(sqls, strings.Join(strings.Fields(c.SQL), " "))
	}
	sort.Strings(sqls)
	if t.Answer != nil {
		sqls = append(sqls, "answer:"+t.Answer.Match+":"+t.Answer.Value)
	}
	return strings.Join(sqls, "\n")
}

func normInstr(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// canonJSON re-encodes JSON with sorted keys so equal arguments compare equal.
func canonJSON(raw json.RawMessage) []byte {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return raw
	}
	b, _ := json.Marshal(v) // encoding/json sorts map keys
	return b
}

// containsToken reports whether id occurs in s as a whole token: not
// inside a longer run of letters, digits, '-' and '_' ("1479" is not in
// "14790", "978" is not in the ISBN "978-0009061").
func containsToken(s, id string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], id)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(id)
		if (start == 0 || !isAlnum(s[start-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		i = start + 1
	}
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80 || b == '-' || b == '_'
}
