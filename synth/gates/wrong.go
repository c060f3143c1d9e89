package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
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
// same attribute of other rows); and against answers that hold the right
// one but are not it (gaming): the numbers 0–20 and the expected answer,
// the last tool output pasted whole (with those numbers too), the
// expected answer among other rows' values. A rule that accepts one of
// them ("(?s).*", "contains" a token every row has, a number found
// anywhere) drops the task.
func (c *Checker) wrongAnswers(ctx context.Context, ep *runtime.Episode, cand *Candidate, last string) error {
	a := cand.Task.Answer
	if a == nil {
		return nil
	}
	rng := rand.New(rand.NewPCG(uint64(c.seed), uint64(len(a.Value))))
	generic := []string{"", "I don't know.", "none", randomText(rng), strconv.Itoa(rng.IntN(1000000) + 1000),
		"abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ .,;:-_/@#"} // every letter: "contains" a short token
	try := func(w string, what string) error {
		if what != "the answer for another row" && sameAnswer(a, w) {
			return nil // by chance the right answer
		}
		s, err := ep.ScoreChecks(ctx, &w)
		if err != nil {
			return err
		}
		if last := s.Checks[len(s.Checks)-1]; last.Passed {
			return reject(Wrong, "answer rule %s %q accepts %s %q", a.Match, a.Value, what, clip(w))
		}
		return nil
	}
	for _, w := range generic {
		if err := try(w, "the wrong answer"); err != nil {
			return err
		}
	}
	for _, w := range cand.Distractors {
		if err := try(w, "the answer for another row"); err != nil {
			return err
		}
	}
	for _, g := range gaming(a, cand, last) {
		if err := try(g.answer, g.what); err != nil {
			return err
		}
	}
	return nil
}

// onlyValue: the tool output holds nothing but the expected answer
// ({"iata":"DEN"}): pasting it says the value asked for and nothing else,
// no gaming.
func onlyValue(a *envpkg.Answer, out string) bool {
	var v any
	if json.Unmarshal([]byte(out), &v) != nil {
		return sameAnswer(a, out)
	}
	var leaves []string
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		case nil:
		default:
			leaves = append(leaves, fmt.Sprint(x))
		}
	}
	walk(v)
	for _, l := range leaves {
		if !sameAnswer(a, l) {
			return false
		}
	}
	return len(leaves) > 0
}

// gamed is an answer that holds the right one without being it.
type gamed struct{ answer, what string }

// gaming lists the answers that game a rule: a spray of the numbers 0–20
// with the expected answer, the last tool output pasted whole (alone and
// after the spray), the expected answer with its record restated whole,
// a value of its record that holds it ("Северная Африка" for "Африка"),
// and the expected answer among up to three other rows' values (peers,
// then distractors) the user did not name.
func gaming(a *envpkg.Answer, cand *Candidate, last string) []gamed {
	reply := a.Reply()
	var spray strings.Builder
	for i := 0; i <= 20; i++ {
		spray.WriteString(strconv.Itoa(i) + " ")
	}
	var out []gamed
	if reply != "" {
		out = append(out, gamed{spray.String() + reply, "a spray of numbers"})
	}
	if last != "" && !onlyValue(a, last) {
		out = append(out, gamed{last, "the last tool output pasted whole"},
			gamed{spray.String() + last, "a spray of numbers and the last tool output"})
	}
	if reply == "" {
		return out
	}
	if a.Alone != nil {
		// The answered record restated: its values the user did not say,
		// where the runtime reads them as a restatement (runtime.Restated:
		// a right answer may name the record by two, and say the user's
		// words back).
		var rec []string
		for _, v := range a.Alone.Record {
			if !userSays(&cand.Task, v.Value) {
				rec = append(rec, v.Column+": "+v.Value)
			}
		}
		if runtime.Restated(len(rec), len(rec), len(a.Alone.Record)) {
			out = append(out, gamed{reply + " (" + strings.Join(rec, ", ") + ")", "the answered record restated whole"})
		}
		// Another value of the record that holds the expected one (the
		// sub-region "Северная Африка" for the region "Африка", judged).
		for _, v := range a.Alone.Record {
			if !sameAnswer(a, v.Value) && runtime.UserSays([]string{v.Value}, reply) {
				out = append(out, gamed{v.Value, "a longer value of the record that holds it"})
			}
		}
	}
	var others []string
	for _, o := range append(append([]string{}, cand.Peers...), cand.Distractors...) {
		// Values the user named may be said back (the state they
		// expected): the candidates are those they did not.
		if o = strings.TrimSpace(o); o != "" && !sameAnswer(a, o) && !userSays(&cand.Task, o) && !slices.Contains(others, o) && len(others) < 3 {
			others = append(others, o)
		}
	}
	if len(others) > 0 {
		// The right one in the middle: "Park, Peacock or Johnson".
		list := append(append(append([]string{}, others[:1]...), reply), others[1:]...)
		out = append(out, gamed{strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1], "a list of candidates"})
	}
	return out
}

// userSays: the task's instruction or persona says v (as the answer
// rules read it, runtime.UserSays).
func userSays(t *envpkg.Task, v string) bool {
	return runtime.UserSays([]string{t.Instruction, t.Persona}, v)
}

// sameAnswer: w is the expected answer itself (as text or as a number).
func sameAnswer(a *envpkg.Answer, w string) bool {
	want := a.Reply()
	if want == "" {
		want = a.Value
	}
	if strings.EqualFold(strings.TrimSpace(w), strings.TrimSpace(want)) {
		return true
	}
	x, err1 := strconv.ParseFloat(strings.TrimSpace(w), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(want), 64)
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
