package arena

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

func call(id, name, args string) ToolCall {
	var c ToolCall
	c.ID, c.Function.Name, c.Function.Arguments = id, name, args
	return c
}

// Replay runs what the rollout ran: calls the engine never answered (the
// rest of a message past the calls-per-turn limit) are not replayed, and
// arguments go to the runtime as the engine sends them (a JSON string
// holding an object is refused there, so it is refused here).
func TestReplayRunsWhatTheRolloutRan(t *testing.T) {
	env := rltest.Load(t, "store")
	task := env.Bundle.Tasks[0]
	first := task.Calls[0]
	args := string(first.Arguments)
	quoted, _ := json.Marshal(args)
	rec := Record{Env: env.Name(), Task: task.ID, Finish: "max_calls_per_turn", Messages: []Message{
		{Role: "user", Content: task.Instruction},
		{Role: "assistant", ToolCalls: []ToolCall{call("a", first.Name, string(quoted))}},
		{Role: "tool", ToolCallID: "a", Content: "Error: invalid arguments"},
		{Role: "assistant", ToolCalls: []ToolCall{call("b", first.Name, args), call("c", first.Name, args)}},
	}}
	if got := rec.Calls(); len(got) != 1 || got[0].ID != "a" {
		t.Fatalf("calls %+v: want only the answered one", got)
	}
	out, err := replay(context.Background(), env, &rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0] != string(runtime.OutcomeInvalidArgs) {
		t.Fatalf("outcomes %v: a double-encoded argument must be invalid_args, as the engine saw it", out)
	}
}

// Finishes that are not the agent's doing are counted apart; a runaway
// budget is a step limit; a finished chain followed by a read and a wrong
// answer is a wrong answer, not an extra change.
func TestCausesOfFinishes(t *testing.T) {
	b := *rltest.Bundle(t, "store")
	task := envpkg.Task{ID: "answer-after-chain", Instruction: "Which order?", Calls: b.Tasks[0].Calls,
		Answer: &envpkg.Answer{Value: "#W1002", Match: "exact"}}
	b.Tasks = append(append([]envpkg.Task(nil), b.Tasks...), task)
	env, err := runtime.LoadBundle(context.Background(), &b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	gtMsgs := func() []Message {
		var ms []Message
		for i, c := range task.Calls {
			id := string(rune('a' + i))
			ms = append(ms, Message{Role: "assistant", ToolCalls: []ToolCall{call(id, c.Name, string(c.Arguments))}},
				Message{Role: "tool", ToolCallID: id, Content: "..."})
		}
		return ms
	}
	answerFailed := []runtime.CheckResult{{Name: runtime.AnswerCheckPrefix + "(exact)", Passed: false}}
	extraRead := append(gtMsgs(), Message{Role: "assistant", ToolCalls: []ToolCall{call("z", task.Calls[0].Name, `{}`)}},
		Message{Role: "tool", ToolCallID: "z", Content: "..."})
	recs := []Record{
		{Env: env.Name(), Task: task.ID, Seed: 1, Finish: "policy_error", Checks: answerFailed},
		{Env: env.Name(), Task: task.ID, Seed: 2, Finish: "cancelled", Checks: answerFailed},
		{Env: env.Name(), Task: task.ID, Seed: 3, Finish: "max_conversation_bytes", Messages: gtMsgs()[:2], Checks: answerFailed},
		{Env: env.Name(), Task: task.ID, Seed: 4, Finish: "stop", Messages: gtMsgs(), Checks: answerFailed},
	}
	rep, err := BuildReport(context.Background(), map[string]*runtime.Env{env.Name(): env}, nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.PolicyFaults != 2 || rep.Rollouts != 4 {
		t.Fatalf("policy faults %d of %d", rep.PolicyFaults, rep.Rollouts)
	}
	if rep.Causes[CauseStepLimit] != 1 || rep.Causes[CauseWrongAnswer] != 1 || len(rep.Failures) != 2 {
		t.Fatalf("causes %v failures %+v", rep.Causes, rep.Failures)
	}
	// A call off the chain after it ended, and only the answer wrong:
	// wrong_answer (extra_change needs a state check to fail).
	recs = []Record{{Env: env.Name(), Task: task.ID, Seed: 5, Finish: "stop", Messages: extraRead, Checks: answerFailed}}
	if rep, err = BuildReport(context.Background(), map[string]*runtime.Env{env.Name(): env}, nil, recs); err != nil {
		t.Fatal(err)
	}
	if rep.Causes[CauseWrongAnswer] != 1 {
		t.Fatalf("a read after the chain and a wrong answer: causes %v", rep.Causes)
	}
}

// A round hands the LLM diagnoser its rollouts (for the conversations its
// prompt quotes) without changing the configured one.
func TestWithRecords(t *testing.T) {
	l := &LLM{Model: "m"}
	recs := []Record{{Env: "e", Task: "t"}}
	d, ok := withRecords(l, recs).(*LLM)
	if !ok || len(d.Records) != 1 || l.Records != nil {
		t.Fatalf("withRecords: %+v, configured %+v", d, l)
	}
	if _, ok := withRecords(Procedural{}, recs).(Procedural); !ok {
		t.Fatal("procedural diagnoser changed")
	}
}

func TestConfigRefusesNonPositive(t *testing.T) {
	for _, c := range []Config{
		{Arena: []Source{{Name: "x", DB: "/dev/null"}}, Out: "o", Policy: nil},
		{Arena: []Source{{Name: "x", DB: "/dev/null"}}, Out: "o", Policy: testPolicy{}, Targeted: -1},
		{Arena: []Source{{Name: "../x", DB: "/dev/null"}}, Out: "o", Policy: testPolicy{}},
	} {
		if err := c.defaults(); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if Target(nil, Guidelines{}, -1) == nil || len(Untargeted(nil, -5, 1)) != 0 {
		t.Error("negative counts")
	}
}

type testPolicy struct{ faulty }
