package arena

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

func TestMain(m *testing.M) { testcache.Main(m) }

// faulty replays the ground truth with one known fault, so that each
// failed rollout's cause is known before the report classifies it.
type faulty struct {
	fault Cause
	tools []envpkg.OpenAITool
}

func (p faulty) plan(t *envpkg.Task, tools []envpkg.OpenAITool) []envpkg.Call {
	gt := t.Calls
	switch p.fault {
	case CausePrematureFinish:
		return gt[:len(gt)/2]
	case CauseMissingLookup:
		// Without the lookup the agent has to guess the next step's
		// arguments (skipping a read alone changes nothing, and a
		// rollout that succeeds is never classified).
		return []envpkg.Call{{Name: gt[1].Name, Arguments: json.RawMessage(`{"guessed": 1}`)}}
	case CauseBadArguments:
		return []envpkg.Call{{Name: gt[0].Name, Arguments: json.RawMessage(`{"no_such_argument": 1}`)}}
	case CauseWrongTool:
		for _, tl := range tools {
			if !slices.ContainsFunc(gt, func(c envpkg.Call) bool { return c.Name == tl.Function.Name }) {
				return []envpkg.Call{{Name: tl.Function.Name, Arguments: json.RawMessage(`{}`)}}
			}
		}
	}
	return gt
}

func (p faulty) Act(_ context.Context, t *rl.Turn) (rl.Reply, error) {
	plan := p.plan(t.Task, t.Tools)
	made := 0
	for _, m := range t.Messages {
		if m.Role == rl.RoleAssistant {
			made += len(m.ToolCalls)
		}
	}
	if made < len(plan) {
		c := plan[made]
		return rl.Reply{Message: rl.Message{Role: rl.RoleAssistant, ToolCalls: []rl.ToolCall{{
			ID: fmt.Sprintf("call_%d", made), Type: "function",
			Function: rl.FunctionCall{Name: c.Name, Arguments: string(c.Arguments)}}}}}, nil
	}
	return rl.Reply{Message: rl.Message{Role: rl.RoleAssistant, Content: "Done."}}, nil
}

// records runs the policy on env's tasks and reads the rollouts back from
// their JSONL form, as the arena reads a rollout file.
func records(t *testing.T, env *runtime.Env, p rl.Policy, cfg rl.Config) []Record {
	t.Helper()
	var buf bytes.Buffer
	out := rl.NewJSONL(&buf)
	if _, err := rl.Run(context.Background(), []*runtime.Env{env}, p, cfg, out); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadRecords(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// eligible says whether a task can show the fault: the fault must leave
// the ground truth at a point the walk can see.
func eligible(fault Cause, task *envpkg.Task) bool {
	gt := task.Calls
	switch fault {
	case CausePrematureFinish, CauseStepLimit:
		return len(gt) >= 2
	case CauseMissingLookup:
		return len(gt) >= 2 && gt[0].Name != gt[1].Name
	}
	return len(gt) >= 1
}

// Each known fault, injected into ground-truth trajectories of the store
// environment, is the cause the report gives every failed rollout it can
// show in; the plain oracle fails nothing.
func TestReportClassifiesKnownFaults(t *testing.T) {
	env := rltest.Load(t, "store")
	envs := map[string]*runtime.Env{env.Name(): env}
	ctx := context.Background()

	oracle := records(t, env, rl.Oracle{}, rl.Config{Group: 1, MaxTurns: 40})
	rep, err := BuildReport(ctx, envs, nil, oracle)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Succeeded != rep.Rollouts || len(rep.Failures) != 0 || rep.Outcomes["ok"] == 0 {
		t.Fatalf("oracle: %d of %d succeeded, failures %+v, outcomes %v", rep.Succeeded, rep.Rollouts, rep.Failures, rep.Outcomes)
	}

	cases := []struct {
		fault  Cause
		policy rl.Policy
		cfg    rl.Config
	}{
		{CausePrematureFinish, faulty{fault: CausePrematureFinish}, rl.Config{Group: 1, MaxTurns: 40}},
		{CauseMissingLookup, faulty{fault: CauseMissingLookup}, rl.Config{Group: 1, MaxTurns: 40}},
		{CauseBadArguments, faulty{fault: CauseBadArguments}, rl.Config{Group: 1, MaxTurns: 40}},
		{CauseWrongTool, faulty{fault: CauseWrongTool}, rl.Config{Group: 1, MaxTurns: 40}},
		{CauseStepLimit, rl.Oracle{}, rl.Config{Group: 1, MaxTurns: 1}},
	}
	for _, c := range cases {
		t.Run(string(c.fault), func(t *testing.T) {
			recs := records(t, env, c.policy, c.cfg)
			rep, err := BuildReport(ctx, envs, map[string]string{env.Name(): "retail"}, recs)
			if err != nil {
				t.Fatal(err)
			}
			shown := 0
			for _, f := range rep.Failures {
				if !eligible(c.fault, findTask(env, f.Task)) {
					continue
				}
				shown++
				if f.Cause != c.fault {
					t.Errorf("%s: cause %s, want %s (%+v)", f.Task, f.Cause, c.fault, f)
				}
			}
			if shown < 3 {
				t.Fatalf("only %d failed rollouts could show %s: the test shows nothing", shown, c.fault)
			}
			if rep.Causes[c.fault] < shown {
				t.Errorf("report counts %d %s, %d shown", rep.Causes[c.fault], c.fault, shown)
			}
			if len(rep.Categories) != 1 || rep.Categories[0].Category != "retail" {
				t.Errorf("categories %+v", rep.Categories)
			}
			if c.fault == CauseBadArguments && rep.Outcomes[string(runtime.OutcomeInvalidArgs)] == 0 {
				t.Errorf("bad arguments gave no invalid_args outcome: %v", rep.Outcomes)
			}
			if c.fault == CauseWrongTool && rep.Envs[0].Tools[rep.Failures[0].Expected].Missed == 0 {
				t.Errorf("expected tool not counted as missed: %+v", rep.Envs[0].Tools)
			}
		})
	}
}

func TestReadRecordsRefusesGarbage(t *testing.T) {
	for _, in := range []string{"{not json}\n", `{"foo": 1}` + "\n"} {
		if _, err := ReadRecords(bytes.NewBufferString(in)); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
