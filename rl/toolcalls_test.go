package rl_test

import (
	"context"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// script is a test policy that says the same replies in order on every
// rollout.
type script []rl.Message

func (s script) Act(_ context.Context, t *rl.Turn) (rl.Reply, error) {
	if t.Number < len(s) {
		return rl.Reply{Message: s[t.Number]}, nil
	}
	return rl.Reply{Message: rl.Message{Content: "bye"}}, nil
}

func runScript(t *testing.T, env *runtime.Env, cfg rl.Config, s script) rl.Rollout {
	t.Helper()
	var out rltest.Collect
	cfg.Group, cfg.Tasks = 1, "cancel-pending-order-mistake"
	if _, err := rl.Run(context.Background(), []*runtime.Env{env}, s, cfg, &out); err != nil {
		t.Fatal(err)
	}
	all := out.All()
	if len(all) != 1 {
		t.Fatalf("%d rollouts", len(all))
	}
	return all[0]
}

func toolResults(r rl.Rollout) []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role == rl.RoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

// Hermes/Qwen <tool_call> text is parsed into calls; a malformed block and
// an unknown tool are format errors the agent sees, and the rollout goes on.
func TestTextToolCalls(t *testing.T) {
	env := rltest.Load(t, "store")
	r := runScript(t, env, rl.Config{}, script{
		{Content: "Let me look.\n<tool_call>\n{\"name\": \"find_customer_by_email\", \"arguments\": {\"email\": \"olivia.chen@example.com\"}}\n</tool_call>\n" +
			"<tool_call>{\"name\": \"get_order\", \"arguments\": \"{\\\"order_id\\\": \\\"#W1002\\\"}\"}</tool_call>"},
		{Content: "<tool_call>{\"name\": \"cancel_order\", \"arguments\": {\"order_id\": \"#W1002\", </tool_call>"},
		{Content: "<tool_call>{\"name\": \"teleport\", \"arguments\": {}}</tool_call>"},
		{Content: "<tool_call>{\"name\": \"cancel_order\", \"arguments\": {\"order_id\": \"#W1002\", \"reason\": \"ordered by mistake\"}}"},
		{Content: "Your order is cancelled."},
	})
	res := toolResults(r)
	if len(res) != 5 {
		t.Fatalf("%d tool results: %q", len(res), res)
	}
	if !strings.Contains(res[0], "C1001") && !strings.Contains(res[0], "Olivia") || !strings.Contains(res[1], "#W1002") {
		t.Errorf("parsed calls did not run: %q", res[:2])
	}
	if !strings.HasPrefix(res[2], "Error: the <tool_call> block is not valid JSON") {
		t.Errorf("malformed block: %q", res[2])
	}
	if !strings.Contains(res[3], `unknown tool "teleport"`) {
		t.Errorf("unknown tool: %q", res[3])
	}
	if r.FormatErrors != 2 || !r.FormatError || r.Finish != rl.FinishStop {
		t.Errorf("format errors %d, finish %s", r.FormatErrors, r.Finish)
	}
	if a := r.Messages[2]; len(a.ToolCalls) != 2 || a.ToolCalls[1].Function.Arguments != `{"order_id": "#W1002"}` || !strings.HasPrefix(a.Content, "Let me look.") {
		t.Errorf("assistant message: %+v", a)
	}
	// The unclosed last block (the model stopped at its stop token) ran.
	if r.Reward != 1 {
		t.Errorf("reward %g, checks %+v", r.Reward, r.Checks)
	}
	// FormatOpenAI ignores text calls: the first text reply ends the rollout.
	r = runScript(t, env, rl.Config{Format: rl.FormatOpenAI}, script{{Content: "<tool_call>{\"name\": \"get_order\", \"arguments\": {}}</tool_call>"}})
	if r.ToolCalls != 0 || r.Finish != rl.FinishStop {
		t.Errorf("openai format ran text calls: %d calls, finish %s", r.ToolCalls, r.Finish)
	}
}

func call(id, name, args string) rl.ToolCall {
	return rl.ToolCall{ID: id, Type: "function", Function: rl.FunctionCall{Name: name, Arguments: args}}
}

// With AWM's meta-tools the agent lists the tools and calls them through
// call_tool; direct calls are then unknown tools.
func TestMetaTools(t *testing.T) {
	env := rltest.Load(t, "store")
	r := runScript(t, env, rl.Config{MetaTools: true}, script{
		{ToolCalls: []rl.ToolCall{call("1", "list_tools", "{}")}},
		{ToolCalls: []rl.ToolCall{call("2", "call_tool", `{"tool_name":"get_order","arguments":{"order_id":"#W1002"}}`)}},
		{ToolCalls: []rl.ToolCall{call("3", "get_order", `{"order_id":"#W1002"}`)}},
		{ToolCalls: []rl.ToolCall{call("3b", "call_tool", `{"tool_name":"get_order","arguments":{"order_id":1002}}`)}},
		{ToolCalls: []rl.ToolCall{call("4", "call_tool", `{"tool_name":"cancel_order","arguments":"{\"order_id\":\"#W1002\",\"reason\":\"ordered by mistake\"}"}`)}},
	})
	if len(r.Tools) != 2 || r.Tools[0].Function.Name != "list_tools" || r.Tools[1].Function.Name != "call_tool" {
		t.Fatalf("tools offered: %+v", r.Tools)
	}
	res := toolResults(r)
	if !strings.Contains(res[0], `"inputSchema"`) || !strings.Contains(res[0], "cancel_order") {
		t.Errorf("list_tools: %.200s", res[0])
	}
	if !strings.Contains(res[1], "#W1002") || !strings.HasPrefix(res[2], "Error: unknown tool") {
		t.Errorf("call_tool / direct call: %q / %q", res[1], res[2])
	}
	if !strings.HasPrefix(res[3], "Error: invalid arguments") {
		t.Errorf("schema failure: %q", res[3])
	}
	if r.FormatErrors != 2 || r.Reward != 1 {
		t.Errorf("format errors %d, reward %g", r.FormatErrors, r.Reward)
	}
	// The oracle and random policies work through the meta-tools too.
	var out rltest.Collect
	if _, err := rl.Run(context.Background(), []*runtime.Env{env}, rl.Oracle{}, rl.Config{Group: 1, MetaTools: true}, &out); err != nil {
		t.Fatal(err)
	}
	for _, r := range out.All() {
		if r.Reward != 1 {
			t.Errorf("oracle via call_tool: %s scores %g", r.Task, r.Reward)
		}
	}
	out = rltest.Collect{}
	sum, err := rl.Run(context.Background(), []*runtime.Env{env}, &rl.Random{}, rl.Config{Group: 1, MetaTools: true, MaxTurns: 4}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.EnvSteps == 0 {
		t.Error("random made no call through call_tool")
	}
}

// Conversational mode: the user opens, the agent's text goes to the user,
// and the user's stop token ends the rollout; the rules are the system
// prompt.
func TestScriptedUser(t *testing.T) {
	env := rltest.Load(t, "store")
	user := rl.ScriptedUser{Lines: []string{"Hi, I need help with an order.", "It's olivia.chen@example.com, order #W1002, cancel it, ordered by mistake."}}
	r := runScript(t, env, rl.Config{User: user}, script{
		{Content: "Sure, what is your email and order number?"},
		{ToolCalls: []rl.ToolCall{call("1", "cancel_order", `{"order_id":"#W1002","reason":"ordered by mistake"}`)}},
		{Content: "Done, it is cancelled."},
	})
	roles := ""
	for _, m := range r.Messages {
		roles += m.Role[:1]
	}
	if roles != "suauatau" {
		t.Fatalf("conversation shape %q: %+v", roles, r.Messages)
	}
	if r.Messages[0].Content != env.Bundle.Manifest.Rules {
		t.Error("the rules are not the system prompt")
	}
	if r.Finish != rl.FinishUserStop || !strings.Contains(r.Messages[len(r.Messages)-1].Content, rl.DefaultStopToken) {
		t.Errorf("finish %s", r.Finish)
	}
	if r.Reward != 1 || r.Turns != 3 {
		t.Errorf("reward %g turns %d", r.Reward, r.Turns)
	}
}
