package gates_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/gates"
)

// TestTrivialTasksDropped: issue 25 finding 4. A model's tasks that any
// answer or any change solves were kept: an answer rule "(?s).*", a write
// check EXISTS(main.t EXCEPT init.t) with "SELECT 1 -- main." beside it.
func TestTrivialTasksDropped(t *testing.T) {
	env := load(t)
	g := gates.New(env, 1)
	ctx := context.Background()
	setCup := call("set_color", map[string]string{"name": "cup", "color": "green"})
	setPen := call("set_color", map[string]string{"name": "pen", "color": "pink"})
	good := envpkg.Task{ID: "good", Instruction: "Make the cup green.", Calls: []envpkg.Call{setCup},
		Checks: []envpkg.Check{{Name: "green and nothing else", SQL: "SELECT color = 'green' FROM main.items WHERE name = 'cup' AND NOT EXISTS (SELECT * FROM main.items WHERE name <> 'cup' EXCEPT SELECT * FROM init.items)"}}}
	if _, err := g.Check(ctx, gates.Candidate{Task: good}); err != nil {
		t.Fatalf("good task: %v", err)
	}
	getPen := call("get_item", map[string]string{"name": "pen"})
	for _, c := range []struct {
		gate gates.Gate
		cand gates.Candidate
	}{
		{gates.Wrong, gates.Candidate{Task: envpkg.Task{ID: "regex", Instruction: "What color is the pen?", Calls: []envpkg.Call{getPen},
			Answer: &envpkg.Answer{Value: "(?s).*", Match: "regex"}}}},
		{gates.Wrong, gates.Candidate{Task: envpkg.Task{ID: "short", Instruction: "What color is the pen?", Calls: []envpkg.Call{getPen},
			Answer: &envpkg.Answer{Value: "u", Match: "contains"}}}},
		// The cup's color would be accepted too: the rule does not tell
		// the pen from the cup.
		{gates.Wrong, gates.Candidate{Task: envpkg.Task{ID: "distractor", Instruction: "Which color is the pen?", Calls: []envpkg.Call{getPen},
			Answer: &envpkg.Answer{Value: "blue", Match: "contains"}}, Distractors: []string{"light blue"}}},
		{gates.Nontrivial, gates.Candidate{Task: envpkg.Task{ID: "comment", Instruction: "Make the pen pink.", Calls: []envpkg.Call{setPen},
			Checks: []envpkg.Check{{Name: "changed", SQL: "SELECT EXISTS (SELECT * FROM main.items EXCEPT SELECT * FROM init.items)"}, {Name: "fine", SQL: "SELECT 1 -- main."}}}}},
		{gates.Wrong, gates.Candidate{Task: envpkg.Task{ID: "anychange", Instruction: "Make the pen pink.", Calls: []envpkg.Call{setPen},
			Checks: []envpkg.Check{{Name: "changed", SQL: "SELECT EXISTS (SELECT * FROM main.items EXCEPT SELECT * FROM init.items)"}}}}},
		// The candidate's own wrong trajectory: the pen made red, not pink.
		{gates.Wrong, gates.Candidate{Task: envpkg.Task{ID: "anycolor", Instruction: "Make the pen pink, please.", Calls: []envpkg.Call{setPen},
			Checks: []envpkg.Check{{Name: "pen changed", SQL: "SELECT color <> 'blue' FROM main.items WHERE name = 'pen'"}}},
			WrongCalls: [][]envpkg.Call{{call("set_color", map[string]string{"name": "pen", "color": "red"})}}}},
		{gates.Nontrivial, gates.Candidate{Task: envpkg.Task{ID: "constant", Instruction: "Paint the pen pink.", Calls: []envpkg.Call{setPen},
			Checks: []envpkg.Check{{Name: "pink", SQL: "SELECT color = 'pink' FROM main.items WHERE name = 'pen' AND NOT EXISTS (SELECT * FROM main.items WHERE name <> 'pen' EXCEPT SELECT * FROM init.items)"},
				{Name: "table exists", Guard: true, SQL: "SELECT COUNT(*) >= 0 FROM main.items"}}}}},
	} {
		_, err := g.Check(ctx, c.cand)
		var rej *gates.Rejection
		if !errors.As(err, &rej) || rej.Gate != c.gate {
			t.Errorf("task %s: got %v, want gate %s", c.cand.Task.ID, err, c.gate)
		}
	}
	// A sound answer rule survives its distractors.
	exact := envpkg.Task{ID: "exact", Instruction: "Which color is the pen?", Calls: []envpkg.Call{getPen}, Answer: &envpkg.Answer{Value: "blue", Match: "exact"}}
	if _, err := g.Check(ctx, gates.Candidate{Task: exact, Distractors: []string{"red", "light blue"}}); err != nil {
		t.Errorf("exact answer: %v", err)
	}
}

// Issue 34 item 5: every answer rule is tried against answers that game
// it: the numbers 0–20 with the expected answer, the last tool output
// pasted whole, the expected answer among other rows' values. A rule one
// of them passes drops the task, with the reason; a rule that asks for
// the value alone survives them.
func TestGamingAnswersDropped(t *testing.T) {
	env := load(t)
	ctx := context.Background()
	getPen := []envpkg.Call{call("get_item", map[string]string{"name": "pen"})} // {"color":"blue","id":2,"name":"pen"}
	colors := "SELECT color FROM main.items"
	for _, c := range []struct {
		id     string
		answer envpkg.Answer
		peers  []string
		reason string // "" : kept
	}{
		{"contains", envpkg.Answer{Value: "blue", Match: "contains"}, nil, "a spray of numbers"},
		{"alone-no-others", envpkg.Answer{Value: "blue", Match: "contains", Alone: &envpkg.Alone{Value: "blue"}}, []string{"red"}, "a list of candidates"},
		{"alone", envpkg.Answer{Value: "blue", Match: "contains", Alone: &envpkg.Alone{Value: "blue", Others: colors}}, []string{"red"}, ""},
		{"regex-alone", envpkg.Answer{Value: `(?i)\bblue\b`, Match: "regex", Alone: &envpkg.Alone{Value: "blue", Others: colors}}, []string{"red"}, ""},
		// The row pasted holds no other number than its id.
		{"number", envpkg.Answer{Value: "2", Match: "number"}, []string{"1"}, "the last tool output pasted whole"},
		// Its record: the pasted row and the record restated fail, so
		// the rule is kept (a right answer may name the pen by its id).
		{"record", envpkg.Answer{Value: "blue", Match: "contains", Alone: &envpkg.Alone{Value: "blue", Others: colors,
			Record: []envpkg.RecordValue{{Column: "id", Value: "2"}, {Column: "name", Value: "pen"}}}}, []string{"red"}, ""},
		// A record value that holds the expected one: said alone, it is
		// another value (the rule is kept: it rejects it).
		{"longer", envpkg.Answer{Value: "blue", Match: "contains", Alone: &envpkg.Alone{Value: "blue", Others: colors,
			Record: []envpkg.RecordValue{{Column: "id", Value: "2"}, {Column: "shade", Value: "navy blue"}}}}, []string{"red"}, ""},
		// A refusal: the colors the user named are no candidates (they
		// may be said back), so the rule is kept.
		{"refusal", envpkg.Answer{Value: "blue", Match: "contains", Alone: &envpkg.Alone{Value: "blue", Others: colors}}, []string{"red", "green"}, ""},
	} {
		instr := "Which color is the pen?"
		if c.id == "refusal" {
			instr = "If the pen is still red, make it green; otherwise tell me its color."
		}
		task := envpkg.Task{ID: c.id, Instruction: instr, Calls: getPen, Answer: &c.answer}
		_, err := gates.New(env, 1).Check(ctx, gates.Candidate{Task: task, Peers: c.peers})
		var rej *gates.Rejection
		switch {
		case c.reason == "" && err != nil:
			t.Errorf("%s: %v, want it kept", c.id, err)
		case c.reason != "" && (!errors.As(err, &rej) || rej.Gate != gates.Wrong || !strings.Contains(rej.Reason, c.reason)):
			t.Errorf("%s: %v, want gate wrong: %s", c.id, err, c.reason)
		}
	}
}
