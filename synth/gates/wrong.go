package gates

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// maxStrays bounds the kept write tasks remembered per tool; strayTrials
// the kept tasks whose writes are tried per candidate (each trial costs a
// state hash of the tables written: the gates' main cost on big data).
const (
	maxStrays   = 3
	strayTrials = 1
)

// wrongAnswers tries the answer rule against answers that are wrong: empty,
// a refusal, random text, a number, and the candidate's distractors (the
// same attribute of other rows). A rule that accepts one of them ("(?s).*",
// "contains" a token every row has) drops the task.
func (c *Checker) wrongAnswers(ctx context.Context, ep *runtime.Episode, cand *Candidate) error {
	a := cand.Task.Answer
	if a == nil {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(c.seed), uint64(len(a.Value))))
	generic := []string{"", "I don't know.", "none", randomText(rng), strconv.Itoa(rng.IntN(1000000) + 1000),
		"abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ .,;:-_/@#"} // every letter: "contains" a short token
	try := func(w string, distractor bool) error {
		if !distractor && sameAnswer(a, w) {
			return nil // by chance the right answer
		}
		s, err := ep.ScoreChecks(ctx, &w)
		if err != nil {
			return err
		}
		if last := s.Checks[len(s.Checks)-1]; last.Passed {
			what := "the wrong answer"
			if distractor {
				what = "the answer for another row"
			}
			return reject(Wrong, "answer rule %s %q accepts %s %q", a.Match, a.Value, what, clip(w))
		}
		return nil
	}
	for _, w := range generic {
		if err := try(w, false); err != nil {
			return err
		}
	}
	for _, w := range cand.Distractors {
		if err := try(w, true); err != nil {
			return err
		}
	}
	return nil
}

// sameAnswer: w is the expected answer itself (as text or as a number).
func sameAnswer(a *envpkg.Answer, w string) bool {
	if strings.EqualFold(strings.TrimSpace(w), strings.TrimSpace(a.Value)) {
		return true
	}
	x, err1 := strconv.ParseFloat(strings.TrimSpace(w), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(a.Value), 64)
	return err1 == nil && err2 == nil && x == y
}

func randomText(rng *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 24)
	for i := range b {
		b[i] = letters[rng.IntN(len(letters))]
	}
	return string(b)
}

// wrongStates runs trajectories that must not solve a write task: the
// candidate's own wrong calls, the ground truth with its last call made
// twice, the ground truth plus the last call of a kept task that ends with
// the same tool (a stray write to another row), and that kept task alone
// (the change made to another row). Each trial whose final state differs
// from the ground truth's must fail a check; and, when such a trial ran,
// every check must fail on some state tried (the initial one included), or
// it tests nothing ("SELECT 1 FROM main.t").
func (c *Checker) wrongStates(ctx context.Context, ep *runtime.Episode, cand *Candidate, want string, answer *string, initial runtime.Score) error {
	gt := cand.Task.Calls
	trials := append([][]envpkg.Call{}, cand.WrongCalls...)
	twice := -1 // the trial most likely to end in the ground truth's state (an update made twice)
	if n := len(gt); n > 0 && want != initial.StateHash {
		last := gt[n-1]
		twice = len(trials)
		trials = append(trials, append(append([]envpkg.Call{}, gt...), last))
		strays := c.writes[last.Name]
		for i, other := range strays {
			if i == strayTrials {
				break
			}
			other = strays[(i+len(gt)+len(cand.Task.Checks))%len(strays)] // not always the first kept
			stray := other[len(other)-1]
			trials = append(trials, append(append([]envpkg.Call{}, gt...), stray), other)
		}
	}
	failedOnce := make([]bool, len(cand.Task.Checks))
	for i, r := range initial.Checks {
		if i < len(failedOnce) && !r.Passed {
			failedOnce[i] = true
		}
	}
	differing := 0
	for i, calls := range trials {
		if err := play(ctx, ep, calls); err != nil {
			return err
		}
		if i == twice {
			// The hash alone first: scoring a state equal to the ground
			// truth's would evaluate every check in full for nothing.
			if h, err := ep.StateHash(); err != nil {
				return err
			} else if h == want {
				continue
			}
		}
		// The checks alone: a state they fail differs from the ground
		// truth's (which passes them all); only a state they pass needs
		// its hash, to tell the ground truth's from a wrong one.
		s, err := ep.ScoreChecks(ctx, answer)
		if err != nil {
			return err
		}
		if s.AllPassed {
			h, err := ep.StateHash()
			if err != nil {
				return err
			}
			if h == want {
				continue // the same final state: not a wrong solution
			}
			return reject(Wrong, "the checks accept a final state that is not the ground truth's, after %s", describeCalls(calls))
		}
		differing++
		for i, r := range s.Checks {
			if i < len(failedOnce) && !r.Passed {
				failedOnce[i] = true
			}
		}
	}
	for i, f := range failedOnce {
		if !f && differing > 0 {
			name := cand.Task.Checks[i].Name
			if name == "" {
				name = fmt.Sprintf("check %d", i+1)
			}
			return reject(Nontrivial, "check %q holds on every state tried (the initial one and %d wrong ones): it tests nothing", name, differing)
		}
	}
	return nil
}
