package envtest

import (
	"context"
	"errors"
	"fmt"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Options configure Run.
type Options struct {
	Seed int64 // the episodes' seed
}

// Run runs Static, then, for every task, replays its ground truth on a
// fresh episode and scores it, and scores the task's empty episode. The
// error return is for a failure of the environment itself (a closed Env,
// a cancelled ctx); everything wrong with a task is in the report.
func Run(ctx context.Context, env *runtime.Env, opts Options) (*Report, error) {
	b := env.Bundle
	r := Static(b)
	for i := range b.Tasks {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		if err := runTask(ctx, env, &b.Tasks[i], opts.Seed, &r.Tasks[i]); err != nil {
			return r, fmt.Errorf("task %s: %w", b.Tasks[i].ID, err)
		}
	}
	return r, nil
}

func runTask(ctx context.Context, env *runtime.Env, t *envpkg.Task, seed int64, tr *TaskResult) error {
	ep, err := env.NewEpisode(t.ID, seed)
	if err != nil {
		tr.fail("cannot start an episode: %v", err)
		return nil
	}
	defer ep.Close()

	// The empty episode first: nothing called, no answer.
	empty, err := ep.Score(ctx, nil)
	if checkFailed(tr, err, "the empty episode") {
		return nil
	}
	if err != nil {
		return err
	}
	tr.Empty = empty.Reward

	for j, c := range t.Calls {
		res, err := ep.Call(ctx, c.Name, c.Arguments)
		if err != nil {
			return err
		}
		switch {
		case res.Outcome.EnvFault() || res.Outcome.AgentFault():
			tr.failCall(j+1, "call %d (%s) of the ground truth failed (%s): %s", j+1, c.Name, res.Outcome, oneLine(res.Content))
		case res.IsError:
			// τ-bench's ground truths include calls that fail on purpose
			// (a lookup that finds nothing): a note, not a failure. A
			// ground truth that depends on the call still fails its checks.
			tr.note("call %d (%s) of the ground truth returned an error: %s", j+1, c.Name, oneLine(res.Content))
		}
	}
	diff, err := ep.Diff()
	if err != nil {
		return err
	}
	tr.ChangesState = len(diff) > 0
	var answer *string
	if t.Answer != nil {
		reply := t.Answer.Reply()
		answer = &reply
	}
	gt, err := ep.Score(ctx, answer)
	if checkFailed(tr, err, "the ground truth") {
		return nil
	}
	if err != nil {
		return err
	}
	tr.GroundTruth = gt.Reward
	checkErrors(tr, gt, empty)
	regexAnswer := t.Answer != nil && t.Answer.Reply() == ""
	for k, c := range gt.Checks {
		if c.Passed || c.Error != "" {
			continue
		}
		if regexAnswer && k == len(gt.Checks)-1 {
			// The expected value is a pattern, not an answer an agent
			// gives: there is no ground-truth answer to test it with.
			tr.note("answer rule is a regex: not replayed")
			continue
		}
		tr.fail("check %q fails after the ground truth (reward %.2f, must be 1.00)", c.Name, gt.Reward)
	}
	if tr.ChangesState && !empty.AllPassed {
		for _, c := range empty.Checks {
			if c.Passed && !c.Guard {
				tr.note("check %q passes when doing nothing: it adds to the reward of an agent that does nothing (mark it guard: true if it says \"nothing else changed\")", c.Name)
			}
		}
	}
	switch {
	case tr.ChangesState && empty.AllPassed:
		tr.fail("the empty episode already scores %.2f: no check tests the change the ground truth makes", empty.Reward)
	case !tr.ChangesState && t.Answer == nil && empty.AllPassed:
		tr.note("the ground truth changes nothing and there is no answer: doing nothing scores %.2f", empty.Reward)
	}
	return nil
}

// checkErrors reports checks that could not be evaluated (a check that is
// not read-only, a SQL error at run time) as problems, once per check.
// checkFailed records a check that could not be evaluated (its SQL fails,
// or runs past its work limit) as the task's problem.
func checkFailed(tr *TaskResult, err error, when string) bool {
	var ce *runtime.CheckError
	if !errors.As(err, &ce) {
		return false
	}
	tr.fail("check %q errs on %s: %v", ce.Check, when, ce.Err)
	return true
}

func checkErrors(tr *TaskResult, gt, empty runtime.Score) {
	seen := map[string]bool{}
	for _, run := range []struct {
		when string
		s    runtime.Score
	}{{"the ground truth", gt}, {"the empty episode", empty}} {
		for _, c := range run.s.Checks {
			if c.Error != "" && c.Error != "no answer given" && !seen[c.Name] {
				seen[c.Name] = true
				tr.fail("check %q errs on %s: %s", c.Name, run.when, c.Error)
			}
		}
	}
}

func oneLine(s string) string {
	const max = 200
	for i, r := range s {
		if r == '\n' {
			s = s[:i] + " …"
			break
		}
	}
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
