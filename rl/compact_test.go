package rl_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

func ptr[T any](v T) *T { return &v }

// engineLike is a rollout as the engine writes one: engine-named calls,
// tool messages in call order, the base reward components.
func engineLike() rl.Rollout {
	return rl.Rollout{
		Env: "lib", EnvHash: "h1", Task: "t-1", GroupID: "lib/t-1/5", Index: 2, Seed: 7,
		Tools: []envpkg.OpenAITool{{Type: "function"}},
		Messages: []rl.Message{
			{Role: rl.RoleSystem, Content: "Be brief."},
			{Role: rl.RoleUser, Content: "Renew my loan."},
			{Role: rl.RoleAssistant, ToolCalls: []rl.ToolCall{
				{ID: "call_0_0", Type: "function", Function: rl.FunctionCall{Name: "get_loan", Arguments: `{"id":3}`}},
				{ID: "call_0_1", Type: "function", Function: rl.FunctionCall{Name: "get_member", Arguments: `{"id":9}`}}}},
			{Role: rl.RoleTool, ToolCallID: "call_0_0", Content: `{"id":3}`},
			{Role: rl.RoleTool, ToolCallID: "call_0_1", Content: "Error: no member 9"},
			{Role: rl.RoleAssistant, Content: "Done."},
		},
		Reward: 0.5, Advantage: -0.25, Turns: 2, ToolCalls: 2, Finish: rl.FinishStop, Answer: ptr("Done."),
		Checks: []runtime.CheckResult{{Name: "nothing changed", Passed: true, Guard: true}, {Name: "a", Passed: true}, {Name: "b"}},
		RewardComponents: map[string]float64{"checks_passed": 2, "checks_total": 3, "checks_fraction": 0.5,
			"all_passed": 0, "format_errors": 0, "env_errors": 0, "turns": 2},
		StateHash: "s",
	}
}

func roundTrip(t *testing.T, rs ...rl.Rollout) (string, []rl.Rollout) {
	t.Helper()
	var buf bytes.Buffer
	j := rl.NewJSONL(&buf)
	if err := j.Write(rs); err != nil {
		t.Fatal(err)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	var got []rl.Rollout
	if err := rl.ReadRollouts(bytes.NewReader(buf.Bytes()), func(r *rl.Rollout) error {
		got = append(got, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return buf.String(), got
}

// Issue 26: a compact line leaves out what the reader derives (the
// calls' type and engine-given ids, the tool messages' ids, empty content,
// the toolset's env hash, the group, the base reward components), and
// reads back exactly.
func TestCompactLinesLeaveOutDerivedValues(t *testing.T) {
	r := engineLike()
	file, got := roundTrip(t, r)
	_, line, _ := strings.Cut(strings.TrimSpace(file), "\n")
	for _, s := range []string{`"type"`, `"id"`, `"tool_call_id"`, `"content":""`, `"env_hash"`, `"group"`, `"reward_components"`, `"tools"`, `"system"`} {
		if strings.Contains(line, s) {
			t.Errorf("the line still has %s: %s", s, line)
		}
	}
	if want, g := asJSON(t, []rl.Rollout{r}), asJSON(t, got); g != want {
		t.Errorf("read back\n%s\nwant\n%s", g, want)
	}
}

// Values that differ from the derived ones are kept as they are: the
// file reads back to exactly what was written, whatever the rollout.
func TestCompactLinesKeepWhatIsNotDerived(t *testing.T) {
	for name, r := range edgeCases() {
		plain := engineLike()
		_, got := roundTrip(t, plain, r)
		if want, g := asJSON(t, []rl.Rollout{plain, r}), asJSON(t, got); g != want {
			t.Errorf("%s: read back\n%s\nwant\n%s", name, g, want)
		}
	}
}

var updateEdges = flag.Bool("update-edges", false, "rewrite "+edgeFixture)

// edgeFixture holds the edge cases in compact and whole form for the
// Python reader's test (clients/python/tests/test_rollouts.py), so both
// readers are held to the same lines.
const edgeFixture = "../clients/python/tests/testdata/compact-edges"

func TestCompactEdgeFixtureIsCurrent(t *testing.T) {
	cases := edgeCases()
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	sort.Strings(names)
	rs := []rl.Rollout{engineLike()}
	for _, name := range names {
		r := cases[name]
		r.Task = strings.ReplaceAll(name, " ", "-") // one line per case, named
		r.GroupID = strings.Replace(r.GroupID, "t-1", r.Task, 1)
		rs = append(rs, r)
	}
	for _, inline := range []bool{false, true} {
		var buf bytes.Buffer
		j := rl.NewJSONL(&buf)
		j.Inline = inline
		if err := j.Write(rs); err != nil {
			t.Fatal(err)
		}
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		path := edgeFixture + ".jsonl"
		if inline {
			path = edgeFixture + ".whole.jsonl"
		}
		if *updateEdges {
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if b, err := os.ReadFile(path); err != nil || !bytes.Equal(b, buf.Bytes()) {
			t.Errorf("%s is not what this writer writes (%v): go test ./rl -run EdgeFixture -update-edges", path, err)
		}
	}
}

func edgeCases() map[string]rl.Rollout {
	cases := map[string]func(r *rl.Rollout){
		"server call ids": func(r *rl.Rollout) {
			r.Messages[2].ToolCalls[0].ID, r.Messages[3].ToolCallID = "chatcmpl-tool-9f", "chatcmpl-tool-9f"
		},
		"empty call id and type": func(r *rl.Rollout) {
			r.Messages[2].ToolCalls[1].ID, r.Messages[2].ToolCalls[1].Type, r.Messages[4].ToolCallID = "", "", ""
		},
		"tool messages out of order": func(r *rl.Rollout) {
			r.Messages[3].ToolCallID, r.Messages[4].ToolCallID = "call_0_1", "call_0_0"
		},
		"a tool message with no call": func(r *rl.Rollout) {
			r.Messages = append(r.Messages, rl.Message{Role: rl.RoleTool, Content: "stray"})
		},
		"group of another seed":                    func(r *rl.Rollout) { r.GroupID = "lib/t-1/0" },
		"another env hash":                         func(r *rl.Rollout) { r.EnvHash = "h2" },
		"score counted more":                       func(r *rl.Rollout) { r.RewardComponents["checks_total"] = 4 },
		"two env errors":                           func(r *rl.Rollout) { r.EnvError, r.RewardComponents["env_errors"] = true, 2 },
		"negative zero":                            func(r *rl.Rollout) { r.RewardComponents["checks_fraction"] = -1 * 0.0 },
		"a reward's own parts":                     func(r *rl.Rollout) { r.RewardComponents["length_penalty"] = -0.1 },
		"no base components":                       func(r *rl.Rollout) { r.RewardComponents = map[string]float64{"x": 1} },
		"named system message":                     func(r *rl.Rollout) { r.Messages[0].Name = "rules" },
		"no system message":                        func(r *rl.Rollout) { r.Messages = r.Messages[1:] },
		"reasoning and names":                      func(r *rl.Rollout) { r.Messages[2].ReasoningContent, r.Messages[1].Name = "hm", "u" },
		"calls on a user message":                  func(r *rl.Rollout) { r.Messages[1].ToolCalls = []rl.ToolCall{{ID: "call_0_0", Type: "function"}} },
		"no checks":                                func(r *rl.Rollout) { r.Checks = nil },
		"no messages":                              func(r *rl.Rollout) { r.Messages = nil },
		"no tools":                                 func(r *rl.Rollout) { r.Tools = nil },
		"an assistant message with a tool_call_id": func(r *rl.Rollout) { r.Messages[2].ToolCallID = "x" },
		"a seed that wraps": func(r *rl.Rollout) {
			r.Seed, r.Index, r.GroupID = math.MinInt64, 1, fmt.Sprintf("lib/t-1/%d", int64(math.MaxInt64))
		},
		"window and tokens": func(r *rl.Rollout) {
			r.Window = &rl.Window{Turn: 1, Size: 1}
			r.TurnTokens = []rl.TurnTokens{{Message: 5, CompletionTokenIDs: []int{1, 2}}}
		},
	}
	out := map[string]rl.Rollout{}
	for name, edit := range cases {
		r := engineLike()
		edit(&r)
		out[name] = r
	}
	return out
}

// A file written before compact lines ("toolset" records, lines that leave
// out only the tools and the system message) is read as it was: an empty
// tool_call_id stays empty.
func TestReadsCompactFilesOfTheFirstFormat(t *testing.T) {
	file := `{"record":"toolset","toolset":"t1","env":"lib","env_hash":"h","tools":[],"system":"Be brief."}
{"env":"lib","env_hash":"h","task":"t","group":"g","index":0,"seed":0,"messages":[{"role":"assistant","content":"","tool_calls":[{"id":"call_0_0","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","content":"x"}],"reward":0,"reward_components":{},"advantage":0,"turns":1,"tool_calls":1,"format_error":false,"format_errors":0,"env_error":false,"finish":"stop","checks":[],"state_hash":"","toolset":"t1"}
`
	var got []rl.Rollout
	if err := rl.ReadRollouts(strings.NewReader(file), func(r *rl.Rollout) error {
		got = append(got, *r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Messages) != 3 || got[0].Messages[2].ToolCallID != "" || got[0].GroupID != "g" || len(got[0].RewardComponents) != 0 {
		t.Errorf("read %+v", got)
	}
}
