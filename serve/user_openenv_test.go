package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/wasmenv/wasmenv/rl"
)

// The simulated user through OpenEnv's routes other than HTTP /reset and
// /step (which TestSimulatedUserServed covers): the served schema, the
// MCP routes, the WebSocket.

// OpenEnv's GET /schema describes the message step a server with a user
// answers: the action ("type": "message", "content") and the observation
// ({"user": reply}), so a client that validates against it accepts both.
func TestSimulatedUserOpenEnvSchema(t *testing.T) {
	ts := newTestServer(t, Options{User: rl.ScriptedUser{Lines: []string{"Hello.", "Store it, please."}}})
	act, obs := oeSchema(t, ts, "action"), oeSchema(t, ts, "observation")
	_, m := ts.do("POST", "/reset", `{"task":"put-d"}`)
	step := map[string]any{"type": "message", "content": "How can I help?"}
	conforms(t, act, "a message action", step)
	_, m = ts.do("POST", "/step", string(mustJSON(t, map[string]any{
		"episode_id": m["observation"].(map[string]any)["episode_id"], "action": step})))
	if m["observation"].(map[string]any)["user"] != "Store it, please." {
		t.Fatalf("message step: %v", m)
	}
	conforms(t, obs, "a message step's observation", m["observation"])
}

// OpenEnv's MCP route (POST /mcp, RFC 003) with a simulated user: the
// session opens with the user's words, tools/list offers message_user,
// whose result is the user's reply, and the user's stop ends the episode
// with its reward; the goal is never in an answer.
func TestSimulatedUserOpenEnvMCP(t *testing.T) {
	env := storeEnv(t)
	user, _ := recordedUser(t)
	ts := newTestServerFor(t, env, Options{User: user})
	task, _ := env.Bundle.Task(storeTask)
	var seen []string
	rpc := func(method string, params map[string]any) map[string]any {
		t.Helper()
		code, b := ts.raw(context.Background(), "POST", "/mcp", string(mustJSON(t, map[string]any{
			"jsonrpc": "2.0", "id": 1, "method": method, "params": params})))
		seen = append(seen, string(b))
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || code != http.StatusOK || m["error"] != nil {
			t.Fatalf("%s: HTTP %d %s", method, code, b)
		}
		return m["result"].(map[string]any)
	}
	res := rpc("openenv/session/create", map[string]any{"task": storeTask})
	sid := res["session_id"].(string)
	if o, _ := res["opening"].(string); !strings.HasPrefix(o, "Hi, I placed an order") {
		t.Fatalf("session/create: %v", res)
	}
	var names []string
	for _, tool := range rpc("tools/list", map[string]any{"session_id": sid})["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if len(names) != len(env.Tools())+1 || names[len(names)-1] != MessageUserTool {
		t.Fatalf("tools/list: %v", names)
	}
	say := func(text string) map[string]any {
		t.Helper()
		return rpc("tools/call", map[string]any{"session_id": sid, "name": MessageUserTool, "arguments": map[string]any{"content": text}})
	}
	text := func(res map[string]any) string {
		return res["content"].([]any)[0].(map[string]any)["text"].(string)
	}
	if r := say("How can I help?"); text(r) != "Sure, it's olivia.chen@example.com and the order is #W1002." || r["_meta"].(map[string]any)["terminated"] != false {
		t.Fatalf("first reply: %v", r)
	}
	for _, c := range task.Calls {
		if r := rpc("tools/call", map[string]any{"session_id": sid, "name": c.Name, "arguments": c.Arguments}); r["isError"] != false {
			t.Fatalf("%s: %v", c.Name, r)
		}
	}
	say("Shall I cancel it?")
	if r := say("Done: order #W1002 is cancelled."); r["_meta"].(map[string]any)["terminated"] != true || r["_meta"].(map[string]any)["reward"] != 1.0 {
		t.Fatalf("the user's stop: %v", r)
	}
	if r := rpc("tools/call", map[string]any{"session_id": sid, "name": MessageUserTool, "arguments": map[string]any{}}); r["isError"] != true {
		t.Errorf("message_user without content: %v", r)
	}
	for i, b := range seen {
		if strings.Contains(b, storeGoal) {
			t.Errorf("answer %d shows the agent the user's goal: %s", i, b)
		}
	}
}

// OpenEnv's /ws with a simulated user: the reset observation opens with
// the user's words, a message step's observation is the user's reply, the
// user's stop ends the episode with its reward; no frame holds the goal.
func TestSimulatedUserOpenEnvWebSocket(t *testing.T) {
	env := storeEnv(t)
	user, _ := recordedUser(t)
	ts := newTestServerFor(t, env, Options{User: user})
	task, _ := env.Bundle.Task(storeTask)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, _, err := websocket.Dial(ctx, strings.Replace(ts.url, "http", "ws", 1)+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	var seen []string
	send := func(msg map[string]any) map[string]any {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageText, mustJSON(t, msg)); err != nil {
			t.Fatal(err)
		}
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, string(b))
		var m map[string]any
		if json.Unmarshal(b, &m) != nil || m["type"] != "observation" {
			t.Fatalf("answer %s", b)
		}
		return m["data"].(map[string]any)
	}
	m := send(map[string]any{"type": "reset", "data": map[string]any{"task": storeTask}})
	if o, _ := m["observation"].(map[string]any)["instruction"].(string); !strings.HasPrefix(o, "Hi, I placed an order") {
		t.Fatalf("reset: %v", m)
	}
	say := func(text string) map[string]any {
		t.Helper()
		return send(map[string]any{"type": "step", "data": map[string]any{"type": "message", "content": text}})
	}
	if m = say("How can I help?"); m["observation"].(map[string]any)["user"] != "Sure, it's olivia.chen@example.com and the order is #W1002." || m["done"] != false {
		t.Fatalf("first reply: %v", m)
	}
	for _, tc := range task.Calls {
		send(map[string]any{"type": "step", "data": map[string]any{"type": "call_tool", "tool_name": tc.Name, "arguments": tc.Arguments}})
	}
	say("Shall I cancel it?")
	if m = say("Done: order #W1002 is cancelled."); m["done"] != true || m["reward"] != 1.0 {
		t.Fatalf("the user's stop: %v", m)
	}
	for i, b := range seen {
		if strings.Contains(b, storeGoal) {
			t.Errorf("frame %d shows the agent the user's goal: %s", i, b)
		}
	}
}
