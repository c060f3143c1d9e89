package runtime

import (
	"context"
	"fmt"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Score is a task's reward for an episode, with per-check detail.
type Score struct {
	Reward    float64       `json:"reward"`
	Passed    int           `json:"passed"`
	Total     int           `json:"total"`
	AllPassed bool          `json:"all_passed"`
	Checks    []CheckResult `json:"checks"`
	StateHash string        `json:"state_hash"`
}

// CheckResult is one check's outcome.
type CheckResult struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	Guard  bool   `json:"guard,omitempty"` // gates the reward (envpkg.Check.Guard)
	Error  string `json:"error,omitempty"`
}

// AnswerCheckPrefix starts the name of the check of a task's expected
// answer ("answer matches (exact)").
const AnswerCheckPrefix = "answer matches "

// StateCheckName names the check added by reward: state.
const StateCheckName = "final state equals ground truth"

// CheckError is returned by Score when a check could not be evaluated: its
// SQL failed, ran past its work limit or the wall-clock guard, or the
// ground-truth replay behind a state reward failed. The environment could
// not score the episode; that is never the agent's failed check (a trainer
// leaves such an episode out of its advantages).
type CheckError struct {
	Check string // the check's name
	Err   error
}

func (e *CheckError) Error() string {
	return fmt.Sprintf("runtime: check %q could not be evaluated: %v", e.Check, e.Err)
}

func (e *CheckError) Unwrap() error { return e.Err }

// Score evaluates the episode's task. answer is the agent's final answer,
// or nil when there is none; a task with an expected answer then fails that
// check. A check that cannot be evaluated is a *CheckError, with the
// checks evaluated so far.
func (ep *Episode) Score(ctx context.Context, answer *string) (Score, error) {
	return ep.score(ctx, answer, true)
}

// score evaluates the task; without hash the state hash is left out
// (StateHash "") unless the task's reward needs it.
func (ep *Episode) score(ctx context.Context, answer *string, hash bool) (Score, error) {
	if ep.closed {
		return Score{}, ErrClosed
	}
	if ep.task == nil {
		return Score{}, fmt.Errorf("episode has no task to score")
	}
	defer ep.enter()()
	t := ep.task
	var s Score
	for i, c := range t.Checks {
		name := c.Name
		if name == "" {
			name = fmt.Sprintf("check %d", i+1)
		}
		var ok bool
		err := ep.bundleSQL(ctx, func() (err error) { ok, err = ep.evalCheck(c.SQL); return err })
		if err != nil {
			return s, &CheckError{Check: name, Err: err}
		}
		s.Checks = append(s.Checks, CheckResult{Name: name, Passed: ok, Guard: c.Guard})
	}
	var err error
	if hash || t.Reward == envpkg.RewardState {
		if s.StateHash = ep.stateHash; s.StateHash == "" {
			if s.StateHash, err = ep.StateHash(); err != nil {
				return Score{}, err
			}
		}
	}
	if t.Reward == envpkg.RewardState {
		want, err := ep.env.groundTruthHash(ctx, t, ep.seed)
		if err != nil {
			return s, &CheckError{Check: StateCheckName, Err: err}
		}
		s.Checks = append(s.Checks, CheckResult{Name: StateCheckName, Passed: want == s.StateHash})
	}
	if t.Answer != nil {
		r := CheckResult{Name: AnswerCheckPrefix + "(" + t.Answer.Match + ")"}
		if answer == nil {
			r.Error = "no answer given"
		} else {
			r.Passed, err = ep.answerPasses(ctx, t, *answer)
			if err != nil {
				r.Error = err.Error()
			}
		}
		s.Checks = append(s.Checks, r)
	}
	s.Reward = reward(&s)
	if ep.env.allOrNothing && s.Reward < 1 {
		s.Reward = 0 // the origin's reward (τ-bench): 1 only when every check passes
	}
	return s, nil
}

// reward is the fraction of the checks passed that are not guards, or 0
// when a guard fails; it fills in Passed, Total and AllPassed (which count
// every check).
func reward(s *Score) float64 {
	scored, passed, gated := 0, 0, false
	for _, c := range s.Checks {
		if c.Passed {
			s.Passed++
		}
		switch {
		case c.Guard:
			gated = gated || !c.Passed
		default:
			scored++
			if c.Passed {
				passed++
			}
		}
	}
	s.Total = len(s.Checks)
	s.AllPassed = s.Passed == s.Total
	switch {
	case gated || s.Total == 0:
		return 0
	case scored == 0:
		return 1 // only guards, all passed
	}
	return float64(passed) / float64(scored)
}

// evalCheck runs a read-only predicate: true when the first column of the
// first row is a non-zero number.
func (ep *Episode) evalCheck(sql string) (bool, error) {
	gs, err := ep.prepareGuest(sql)
	if err != nil {
		return false, err
	}
	stmt := gs.stmt
	defer stmt.Reset()
	if !stmt.ReadOnly() {
		return false, fmt.Errorf("a check must be read-only")
	}
	if !stmt.Step() {
		return false, stmt.Err()
	}
	switch stmt.ColumnType(0) {
	case sqlite3.INTEGER:
		return stmt.ColumnInt64(0) != 0, nil
	case sqlite3.FLOAT:
		return stmt.ColumnFloat(0) != 0, nil
	}
	return false, nil
}

// maxGroundTruthHashes bounds the cache of ground-truth state hashes.
const maxGroundTruthHashes = 1 << 14

// groundTruthHash replays a task's ground-truth calls on a fresh episode
// with the same seed, once, and remembers the resulting state hash.
func (e *Env) groundTruthHash(ctx context.Context, t *envpkg.Task, seed int64) (string, error) {
	key := gtKey{t.ID, seed}
	e.mu.Lock()
	h, ok := e.gtHashes[key]
	e.mu.Unlock()
	if ok {
		return h, nil
	}
	ep, err := e.newEpisode(t, seed) // t may be a Candidate's
	if err != nil {
		return "", err
	}
	defer ep.Close()
	// The replay must not inherit the caller's cancellation: a cancelled
	// replay would yield (and cache) the hash of a partial state.
	ctx = context.WithoutCancel(ctx)
	for _, c := range t.Calls {
		if _, err := ep.Call(ctx, c.Name, c.Arguments); err != nil {
			return "", err
		}
	}
	if ep.traps > 0 {
		return "", fmt.Errorf("the ground-truth replay of task %s was interrupted (a call timed out or crashed); not scored", t.ID)
	}
	h, err = ep.StateHash()
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	if len(e.gtHashes) >= maxGroundTruthHashes { // seeds chosen by clients: keep it bounded
		clear(e.gtHashes)
	}
	e.gtHashes[key] = h
	e.mu.Unlock()
	return h, nil
}
