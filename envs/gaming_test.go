package envs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envs"
	"github.com/wasmenv/wasmenv/runtime"
)

// Issue 34 item 5: on every environment synth from-db made, no answer
// task is solved by an answer that games its rule: the numbers 0–20
// followed by the last tool output of the ground truth pasted whole
// (before the fix 152 of sakila's 154 answer tasks scored 1.0 so), or
// that output alone where it holds more than the value asked for. The
// ground truth's own answer still scores 1.0 on each, bare and in a
// sentence.
func TestSprayAndPasteSolveNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every environment synth from-db made")
	}
	ctx := context.Background()
	var spray strings.Builder
	for i := 0; i <= 20; i++ {
		spray.WriteString(strconv.Itoa(i) + " ")
	}
	for _, name := range envs.Names() {
		if _, err := os.Stat(filepath.Join(name, "synth-summary.json")); err != nil {
			continue // not made by synth from-db
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			if err := envs.Extract(name, dir); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, name+".wasm")
			b, err := compiler.BuildFile(ctx, dir, file, compiler.Options{})
			if err != nil {
				t.Fatal(err)
			}
			env, err := runtime.Load(ctx, file, runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			answers, gamed := 0, 0
			withRecord, contextPassed, restatedFailed, restatedSkipped := 0, 0, 0, 0
			refusals, refusalsPassed := 0, 0
			for _, task := range b.Tasks {
				if task.Answer == nil {
					continue
				}
				answers++
				ep, err := env.NewEpisode(task.ID, 1)
				if err != nil {
					t.Fatal(err)
				}
				last := ""
				for _, c := range task.Calls {
					res, err := ep.Call(ctx, c.Name, c.Arguments)
					if err != nil {
						t.Fatal(err)
					}
					last = res.Content
				}
				for _, right := range []string{task.Answer.Reply(), "It is " + task.Answer.Reply() + "."} {
					if s, err := ep.Score(ctx, &right); err != nil || s.Reward != 1 {
						t.Errorf("%s: the right answer %q scores %v (%v)", task.ID, right, s.Reward, err)
					}
				}
				if with, restated, ok := recordAnswers(&task); ok {
					withRecord++
					if s, err := ep.Score(ctx, &with); err != nil || s.Reward != 1 {
						t.Errorf("%s: the right answer with context %q scores %v (%v)", task.ID, with, s.Reward, err)
					} else {
						contextPassed++
					}
					if restated == "" {
						restatedSkipped++ // the user said most of it: nothing restated
					} else if s, err := ep.Score(ctx, &restated); err != nil || s.Reward == 1 {
						t.Errorf("%s: the answer with its record restated %q scores %v (%v)", task.ID, restated, s.Reward, err)
					} else {
						restatedFailed++
					}
				}
				if cond := expectedState(task.Instruction); cond != "" && strings.Contains(task.ID, "refuse-if") {
					// A refusal in the user's words: the state they expected,
					// then the one found.
					refusals++
					why := "It is not " + cond + ": it is " + task.Answer.Reply() + ". I changed nothing."
					if s, err := ep.Score(ctx, &why); err != nil || s.Reward != 1 {
						t.Errorf("%s: the refusal %q scores %v (%v)", task.ID, why, s.Reward, err)
					} else {
						refusalsPassed++
					}
				}
				if s, err := ep.Score(ctx, &last); err != nil || s.Reward == 1 && !onlyValue(last, task.Answer.Reply()) {
					t.Errorf("%s: %q (rule %s %q) is solved by the last tool output pasted (%v)", task.ID, task.Instruction, task.Answer.Match, task.Answer.Value, err)
				}
				for _, game := range issueAnswers[name] {
					if s, err := ep.Score(ctx, &game); err != nil || s.Reward == 1 {
						t.Errorf("%s: %q (rule %s %q) is solved by %q (%v)", task.ID, task.Instruction, task.Answer.Match, task.Answer.Value, game, err)
					}
				}
				game := spray.String() + last
				s, err := ep.Score(ctx, &game)
				if err != nil {
					t.Fatal(err)
				}
				if s.Reward == 1 {
					gamed++
					if gamed <= 3 {
						t.Errorf("%s: %q (rule %s %q) is solved by the numbers 0-20 and the last tool output pasted", task.ID, task.Instruction, task.Answer.Match, task.Answer.Value)
					}
				}
				ep.Close()
			}
			t.Logf("%s: %d of %d answer tasks solved by the spray and the pasted output", name, gamed, answers)
			t.Logf("%s: of %d answer tasks with their record, %d pass the right answer with context; %d fail it with the record restated (%d: the user said most of the record)", name, withRecord, contextPassed, restatedFailed, restatedSkipped)
			t.Logf("%s: %d of %d refusals pass said in the user's words", name, refusalsPassed, refusals)
			if gamed > 0 {
				t.Errorf("%d of %d answer tasks are solved by the spray and the pasted output", gamed, answers)
			}
		})
	}
}

// recordAnswers are the right answer said with context, the first values
// of its record, as many as stay fewer than half of them ("It is 18
// (587, 2)."), and the right answer with its record restated whole ("" if
// the user's words hold over half of it, which they may say back); ok is
// false for a rule without a record of three values or more.
func recordAnswers(task *envpkg.Task) (with, restated string, ok bool) {
	a := task.Answer
	if a.Alone == nil || len(a.Alone.Record) < 3 {
		return "", "", false
	}
	var rec []string
	for _, v := range a.Alone.Record {
		rec = append(rec, v.Column+" "+v.Value) // "plot_id 2": a number with its column
	}
	k := (len(rec) - 1) / 2
	with = "It is " + a.Reply() + " (" + strings.Join(rec[:k], ", ") + ")."
	unsaid := 0
	user := strings.ToLower(task.Instruction + " " + task.Persona)
	for _, v := range a.Alone.Record {
		if !strings.Contains(user, strings.ToLower(v.Value)) {
			unsaid++
		}
	}
	if 2*unsaid >= len(rec) {
		restated = a.Reply() + " (" + strings.Join(rec, ", ") + ")"
	}
	return with, restated, true
}

// expectedStateRE finds the state a conditional request expects, in the
// two ways synth words it ("If X is still S, please …", "I think X is S;
// if so").
var expectedStateRE = regexp.MustCompile(`is still (.+?), please|I think .+? is (.+?); if so`)

// expectedState is the state the instruction expects, "" for none.
func expectedState(instruction string) string {
	m := expectedStateRE.FindStringSubmatch(instruction)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(m[1] + m[2])
}

// issueAnswers are the answers issue 34 found gaming the rules, by
// environment ("1 2 … 326 6.99" scored 1.0 on three of sakila's tasks;
// Park, Peacock and Johnson are three of chinook's employees).
var issueAnswers = map[string][]string{
	"sakila":  {"1 2 3 4 5 6 7 8 9 10 11 12 326 6.99", "Either 17 or 21 films.", "The postal code is 378150"},
	"chinook": {"Park, Peacock or Johnson", "Either 17 or 21 films."},
}

// onlyValue: a tool output holds nothing but want ({"iata":"DEN"}).
func onlyValue(out, want string) bool {
	var v any
	if json.Unmarshal([]byte(out), &v) != nil {
		return strings.EqualFold(strings.TrimSpace(out), want)
	}
	leaves := 0
	var same func(any) bool
	same = func(x any) bool {
		switch x := x.(type) {
		case map[string]any:
			for _, y := range x {
				if !same(y) {
					return false
				}
			}
		case []any:
			for _, y := range x {
				if !same(y) {
					return false
				}
			}
		case nil:
		default:
			leaves++
			return strings.EqualFold(fmt.Sprint(x), want)
		}
		return true
	}
	return same(v) && leaves > 0
}
