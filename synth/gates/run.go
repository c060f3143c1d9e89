package gates

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// check applies the gates in order: what can be seen in the task first,
// then what running it shows.
func (c *Checker) check(ctx context.Context, cand *Candidate) (Verdict, error) {
	t := cand.Task
	var v Verdict
	if err := c.static(cand); err != nil {
		return v, err
	}
	rc := c.env.Candidate(t)
	defer rc.Close()
	ep, err := rc.NewEpisode(c.seed)
	if err != nil {
		return v, reject(Invalid, "cannot start an episode: %v", err)
	}
	defer ep.Close()

	// replay
	last := "" // the last tool output, which an agent could paste as its answer
	for i, call := range t.Calls {
		res, err := ep.Call(ctx, call.Name, call.Arguments)
		if err != nil {
			return v, err
		}
		if res.IsError {
			return v, reject(Replay, "ground-truth call %d (%s) failed: %s", i+1, call.Name, clip(res.Content))
		}
		last = res.Content
	}
	var answer *string
	if t.Answer != nil {
		reply := t.Answer.Reply()
		if reply == "" {
			reply = t.Answer.Value // a pattern without Alone: its own text
		}
		answer = &reply
	}
	s, err := ep.Score(ctx, answer)
	if ce := (*runtime.CheckError)(nil); errors.As(err, &ce) {
		return v, reject(Replay, "check %q cannot be evaluated after the ground truth: %v", ce.Check, ce.Err)
	}
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
	if ce := (*runtime.CheckError)(nil); errors.As(err, &ce) {
		return v, reject(Initial, "check %q cannot be evaluated on the initial state: %v", ce.Check, ce.Err)
	}
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
		for i, r := range s0.Checks {
			if !r.Passed && r.Name != "" && !strings.HasPrefix(r.Name, "answer matches") {
				failing++
			}
			if c.opts.NothingEarnsNothing && r.Passed && i < len(t.Checks) && !t.Checks[i].Guard {
				return v, reject(Initial, "check %q passes when doing nothing: doing nothing would earn reward for it", r.Name)
			}
		}
		if failing == 0 {
			return v, reject(Nontrivial, "the task writes but every check already holds on the initial state")
		}
	}
	if err := c.wrongAnswers(ctx, ep, cand, last); err != nil {
		return v, err
	}
	if v.Writes || len(cand.WrongCalls) > 0 {
		return v, c.wrongStates(ctx, ep, cand, s.StateHash, answer, s0)
	}
	return v, nil
}

// static applies the gates that need only the task's text.
func (c *Checker) static(cand *Candidate) error {
	t := cand.Task
	if len(t.Checks) == 0 && t.Answer == nil {
		return reject(Invalid, "no checks and no expected answer")
	}
	if strings.TrimSpace(t.Instruction) == "" {
		return reject(Invalid, "empty instruction")
	}
	if c.calls[callsKey(t)] {
		return reject(Duplicate, "same ground-truth calls as a kept task")
	}
	if k := checksKey(t); k != "" && c.checks[k] {
		return reject(Duplicate, "same checks and answer as a kept task")
	}
	if c.instrs[normInstr(t.Instruction)] {
		return reject(Duplicate, "same instruction as a kept task")
	}
	for _, id := range cand.InternalIDs {
		if id != "" && containsToken(t.Instruction, id) {
			return reject(Leak, "instruction names internal id %q", id)
		}
	}
	for i, ch := range t.Checks {
		// "main." inside a comment ("SELECT 1 -- main.") reads nothing.
		if !strings.Contains(strings.ToLower(stripComments(ch.SQL)), "main.") {
			return reject(Nontrivial, "check %d (%s) does not read the final state (main.)", i+1, ch.Name)
		}
	}
	if t.Answer != nil {
		if strings.TrimSpace(t.Answer.Value) == "" {
			return reject(Nontrivial, "empty expected answer")
		}
		if t.Answer.Match != "number" && strings.Contains(strings.ToLower(t.Instruction), strings.ToLower(t.Answer.Value)) {
			return reject(Nontrivial, "the instruction contains the expected answer %q", t.Answer.Value)
		}
	}
	return nil
}

// play resets ep and makes calls (a call that fails is part of the
// trial).
func play(ctx context.Context, ep *runtime.Episode, calls []envpkg.Call) error {
	if err := ep.Reset(); err != nil {
		return err
	}
	for _, call := range calls {
		if _, err := ep.Call(ctx, call.Name, call.Arguments); err != nil {
			return err
		}
	}
	return nil
}

// describeCalls renders calls for a rejection reason.
func describeCalls(calls []envpkg.Call) string {
	var b strings.Builder
	for i, c := range calls {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %s", c.Name, c.Arguments)
	}
	return clip(b.String())
}
