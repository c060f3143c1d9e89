package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
)

// The Gymnasium routes as NVIDIA-NeMo/Gym 07d6b0d07b22fcf530b4c211dae2ee23100428e4
// drives them: responses_api_agents/gymnasium_agent/app.py posts the run
// request to /reset (appending a non-null observation to the input as the
// user's message), then, after each model response, the run request plus
// "response" to /step; it appends info.tool_outputs as function_call_output
// items and a non-null observation as the user's next message, sums the
// rewards, stops at terminated or truncated, and calls /close when reset's
// info has supports_explicit_close; cookies of each answer go along.

// gymRun is a run request whose input is what make_dataset.py writes for a
// server with a simulated user: the rules only.
func gymRun(task string) string {
	return `{"responses_create_params":{"input":[{"role":"system","content":"rules"}]},"task":"` + task + `","seed":0}`
}

// gymResponse is the run request plus a Responses API response with the
// given output items.
func gymResponse(t *testing.T, task string, output ...map[string]any) string {
	t.Helper()
	var run map[string]any
	json.Unmarshal([]byte(gymRun(task)), &run)
	run["response"] = map[string]any{"id": "resp_1", "object": "response", "output": output}
	return string(mustJSON(t, run))
}

func gymSay(text string) map[string]any {
	return map[string]any{"type": "message", "role": "assistant",
		"content": []map[string]any{{"type": "output_text", "text": text}}}
}

func gymCall(t *testing.T, id, name string, args any) map[string]any {
	var s string
	if raw, ok := args.(json.RawMessage); ok {
		s = string(raw)
	} else {
		s = string(mustJSON(t, args))
	}
	return map[string]any{"type": "function_call", "name": name, "arguments": s, "call_id": id}
}

// A τ-bench task through NeMo Gym with a simulated user (a recorded chat
// model on 127.0.0.1): reset opens with the user's words, never the
// instruction; a reply without calls is said to the user and the reply
// comes back as the observation; the user's stop terminates the episode
// with the task's reward; simple_agent's seed_session is refused.
func TestNeMoGymGymnasiumSimulatedUser(t *testing.T) {
	env := storeEnv(t)
	user, prompts := recordedUser(t)
	ts := newTestServerFor(t, env, Options{User: user})
	task, _ := env.Bundle.Task(storeTask)
	c := newNGClient(t, ts, "")
	c.base = ts.url + "/nemo-gym/store/"
	var seen []string // every body the agent's side received
	post := func(path, body string) map[string]any {
		t.Helper()
		code, _, b := c.post(path, body)
		seen = append(seen, b)
		var m map[string]any
		if err := json.Unmarshal([]byte(b), &m); err != nil || code != http.StatusOK {
			t.Fatalf("POST %s: HTTP %d %s", path, code, b)
		}
		return m
	}

	code, m := c.postJSON("seed_session", gymRun(storeTask))
	if code != http.StatusConflict || !strings.Contains(m["detail"].(string), "gymnasium_agent") {
		t.Fatalf("seed_session with a simulated user: HTTP %d %v", code, m)
	}
	m = post("reset", gymRun(storeTask))
	if obs, _ := m["observation"].(string); !strings.HasPrefix(obs, "Hi, I placed an order") ||
		m["info"].(map[string]any)["supports_explicit_close"] != true {
		t.Fatalf("reset: %v", m)
	}
	step := func(output ...map[string]any) map[string]any {
		t.Helper()
		return post("step", gymResponse(t, storeTask, output...))
	}
	m = step(gymSay("Happy to help. Could you give me your email address and the order number?"))
	if m["observation"] != "Sure, it's olivia.chen@example.com and the order is #W1002." || m["terminated"] != false || m["reward"] != 0.0 {
		t.Fatalf("first reply: %v", m)
	}
	// One response with all the calls (and words, which are not said:
	// a reply with calls is a tool turn).
	var calls []map[string]any
	for i, tc := range task.Calls {
		calls = append(calls, gymCall(t, "call_"+string(rune('a'+i)), tc.Name, tc.Arguments))
	}
	m = step(append([]map[string]any{gymSay("Let me look.")}, calls...)...)
	outs := m["info"].(map[string]any)["tool_outputs"].([]any)
	if m["observation"] != nil || m["terminated"] != false || len(outs) != len(task.Calls) {
		t.Fatalf("tool turn: %v", m)
	}
	for i, o := range outs {
		o := o.(map[string]any)
		if o["call_id"] != "call_"+string(rune('a'+i)) || o["outcome"] != "ok" || o["output"] == "" {
			t.Errorf("tool output %d: %v", i, o)
		}
	}
	if m = step(gymSay("Order #W1002 is pending. I will cancel it with the reason 'ordered by mistake'. Shall I go ahead?")); m["observation"] != "Yes, please cancel it." {
		t.Fatalf("confirmation: %v", m)
	}
	m = step(gymSay("Done: order #W1002 is cancelled and the full amount goes back to your Visa card."))
	info := m["info"].(map[string]any)
	if m["terminated"] != true || m["reward"] != 1.0 || info["step"] != float64(len(task.Calls)+3) || info["score"] == nil {
		t.Fatalf("the user's stop: %v", m)
	}
	if n := ts.srv.Episodes(); n != 0 {
		t.Errorf("%d episodes after the user's stop", n)
	}
	if code, m := c.postJSON("step", gymResponse(t, storeTask, gymSay("Anything else?"))); code != http.StatusBadRequest {
		t.Errorf("a step after the end: HTTP %d %v", code, m)
	}
	if m := post("close", `{}`); len(m) != 0 {
		t.Errorf("close after the end: %v", m)
	}

	// An agent that does nothing but talk: the user stops, the task pays
	// less than 1.0.
	post("reset", gymRun(storeTask))
	for i := 0; ; i++ {
		m = step(gymSay("How can I help?"))
		if m["terminated"] == true {
			break
		}
		if i > 8 {
			t.Fatal("the user never stopped")
		}
	}
	if m["reward"].(float64) >= 1.0 {
		t.Errorf("a do-nothing conversation paid %v", m["reward"])
	}
	// close ends a rollout cut short, as gymnasium_agent does after a failure.
	post("reset", gymRun(storeTask))
	post("close", `{}`)
	if n := ts.srv.Episodes(); n != 0 {
		t.Errorf("%d episodes after close", n)
	}

	for i, b := range seen {
		if strings.Contains(b, storeGoal) || strings.Contains(b, "night by mistake. Please") {
			t.Errorf("answer %d shows the agent the user's goal: %s", i, b)
		}
	}
	for _, p := range *prompts {
		if !strings.Contains(p, storeGoal) {
			t.Errorf("the user model's prompt lacks the goal: %q", p)
		}
	}
}

// `serve --user scripted` (rl.ScriptedUser: says the instruction, then
// stops) through the Gymnasium routes at a NeMo Gym root: the opening is
// the user's line, the agent's words are a step answered by the stop,
// which ends the episode scored with those words; OpenEnv's /reset and
// /step stay at the root for bodies that are not NeMo Gym's.
func TestNeMoGymGymnasiumScriptedUserAtRoot(t *testing.T) {
	ts := newTestServer(t, Options{User: rl.ScriptedUser{}, NeMoGymRoot: "mini"})
	c := newNGClient(t, ts, "")
	c.base = ts.url + "/"
	code, m := c.postJSON("reset", gymRun("put-d"))
	if code != http.StatusOK || m["observation"] != `Store "date" under key d with counter 4.` {
		t.Fatalf("root reset: HTTP %d %v", code, m)
	}
	code, m = c.postJSON("step", gymResponse(t, "put-d", gymCall(t, "c1", "put", map[string]any{"key": "d", "value": "date", "n": 4})))
	if code != http.StatusOK || m["terminated"] != false || m["info"].(map[string]any)["tool_outputs"].([]any)[0].(map[string]any)["output"] != "ok" {
		t.Fatalf("root step, a call: HTTP %d %v", code, m)
	}
	code, m = c.postJSON("step", gymResponse(t, "put-d", gymSay("Stored.")))
	if code != http.StatusOK || m["terminated"] != true || m["reward"] != 1.0 || m["observation"] != rl.DefaultStopToken {
		t.Fatalf("root step, the user's stop: HTTP %d %v", code, m)
	}
	if code, m = c.postJSON("close", `{}`); code != http.StatusOK {
		t.Fatalf("root close: HTTP %d %v", code, m)
	}
	if code, m := ts.do("POST", "/reset", `{"task":"put-d"}`); code != http.StatusOK || m["observation"].(map[string]any)["episode_id"] == nil {
		t.Errorf("OpenEnv /reset under a NeMo Gym root: HTTP %d %v", code, m)
	}
	if code, m := ts.do("POST", "/step", `{"action":{"type":"list_tools"}}`); code != http.StatusOK || m["observation"].(map[string]any)["tools"] == nil {
		t.Errorf("OpenEnv /step under a NeMo Gym root: HTTP %d %v", code, m)
	}
}

// Without a user the Gymnasium routes are simple_agent's loop with the
// server's rules: reset's observation is null (the dataset's input has the
// instruction), a reply without calls is the final answer, the step limit
// truncates, and bad input gets FastAPI's answers without losing the session.
func TestNeMoGymGymnasiumNoUser(t *testing.T) {
	ts := newTestServer(t, Options{MaxSteps: 3})
	c := newNGClient(t, ts, "")
	if code, m := c.postJSON("step", gymResponse(t, "put-d", gymSay("hi"))); code != http.StatusBadRequest || !strings.Contains(m["detail"].(string), "reset") {
		t.Fatalf("step before reset: HTTP %d %v", code, m)
	}
	code, m := c.postJSON("reset", gymRun("put-d"))
	if code != http.StatusOK || m["observation"] != nil {
		t.Fatalf("reset: HTTP %d %v", code, m)
	}
	if code, m := c.postJSON("step", gymRun("put-d")); code != http.StatusUnprocessableEntity {
		t.Errorf("step without a response: HTTP %d %v", code, m)
	}
	// Arguments that are not JSON, and a tool that does not exist: the
	// model reads why, the episode goes on.
	code, m = c.postJSON("step", gymResponse(t, "put-d", gymCall(t, "c1", "put", json.RawMessage(`{"key": "d",`)),
		gymCall(t, "c2", "nope", map[string]any{})))
	outs, _ := m["info"].(map[string]any)["tool_outputs"].([]any)
	if code != http.StatusOK || len(outs) != 2 || outs[0].(map[string]any)["outcome"] != "invalid_args" ||
		outs[1].(map[string]any)["outcome"] != "unknown_tool" || m["terminated"] != false {
		t.Fatalf("bad calls: HTTP %d %v", code, m)
	}
	code, m = c.postJSON("step", gymResponse(t, "put-d", gymCall(t, "c3", "put", map[string]any{"key": "d", "value": "date", "n": 4})))
	if code != http.StatusOK || m["truncated"] != true || m["reward"].(float64) != 1.0 {
		t.Fatalf("the step limit: HTTP %d %v", code, m)
	}
	// An environment failure in a call (a trap) fails the step, as the
	// tool route's 500 does for simple_agent: gymnasium_agent then drops
	// the rollout (no reward) instead of training on what follows.
	c.postJSON("reset", gymRun("put-d"))
	code, m = c.postJSON("step", gymResponse(t, "put-d", gymCall(t, "c1", "abuse", map[string]any{"mode": "panic"})))
	if d, _ := m["detail"].(string); code != http.StatusInternalServerError || !strings.Contains(d, "trap") {
		t.Fatalf("a trap: HTTP %d %v", code, m)
	}
	c.postJSON("close", `{}`)
	// A final answer ends a fresh episode.
	c.postJSON("reset", gymRun("put-d"))
	c.postJSON("step", gymResponse(t, "put-d", gymCall(t, "c1", "put", map[string]any{"key": "d", "value": "date", "n": 4})))
	code, m = c.postJSON("step", gymResponse(t, "put-d", gymSay("Stored.")))
	if code != http.StatusOK || m["terminated"] != true || m["reward"] != 1.0 || m["observation"] != nil {
		t.Fatalf("final answer: HTTP %d %v", code, m)
	}
	if n := ts.srv.Episodes(); n != 0 {
		t.Errorf("%d episodes left", n)
	}
}
