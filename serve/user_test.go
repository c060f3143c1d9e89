package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/openai"
	"github.com/wasmenv/wasmenv/runtime"
)

const storeTask = "cancel-pending-order-mistake"

// storeGoal is a line of the task's instruction that only the user may
// know: "yes, I'm sure" answers the agent's confirmation question before
// it is asked.
const storeGoal = "yes, I'm sure"

var (
	storeOnce sync.Once
	storeEnvB *runtime.Env
	storeErr  error
)

func storeEnv(t *testing.T) *runtime.Env {
	t.Helper()
	storeOnce.Do(func() {
		b, err := compiler.Build(context.Background(), filepath.Join("..", "envs", "store"), compiler.Options{})
		if err != nil {
			storeErr = err
			return
		}
		storeEnvB, storeErr = runtime.LoadBundle(context.Background(), b, runtime.Options{})
	})
	if storeErr != nil {
		t.Fatalf("build store: %v", storeErr)
	}
	return storeEnvB
}

// recordedUser is a chat model on 127.0.0.1 that answers with the recorded
// customer turns of rl/openai/testdata (the user's n-th line is its reply
// when the request holds n-1 of its own lines), and keeps every request's
// system prompt.
func recordedUser(t *testing.T) (*openai.User, *[]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "rl", "openai", "testdata", "convo_user.json"))
	if err != nil {
		t.Fatal(err)
	}
	var turns []json.RawMessage
	if err := json.Unmarshal(b, &turns); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var prompts []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		own := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				own++
			}
		}
		mu.Lock()
		prompts = append(prompts, req.Messages[0].Content)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(turns[min(own, len(turns)-1)])
	}))
	t.Cleanup(hs.Close)
	return &openai.User{Client: openai.NewClient(hs.URL+"/v1", "", 4), Model: "gpt-4o-mini"}, &prompts
}

// A τ-bench-style task served with a simulated user: the agent gets the
// rules and the user's words, never the instruction (the user's private
// goal); a message to the user is a step whose observation is the reply;
// the user's stop ends the episode, scored with the agent's last words.
func TestSimulatedUserServed(t *testing.T) {
	env := storeEnv(t)
	user, prompts := recordedUser(t)
	ts := newTestServerFor(t, env, Options{User: user})
	task, _ := env.Bundle.Task(storeTask)
	if !strings.Contains(task.Instruction, storeGoal) {
		t.Fatalf("the test's premise: the instruction holds %q: %q", storeGoal, task.Instruction)
	}
	var seen []string // every body the agent's side received
	do := func(method, path, body string) map[string]any {
		t.Helper()
		code, b := ts.raw(context.Background(), method, path, body)
		seen = append(seen, string(b))
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || code >= 300 {
			t.Fatalf("%s %s: HTTP %d %s", method, path, code, b)
		}
		return m
	}
	do("GET", "/v1/envs/store/tasks", "")
	m := do("POST", "/v1/episodes", `{"task":"`+storeTask+`"}`)
	if _, has := m["instruction"]; has {
		t.Errorf("create handed out the instruction: %v", m)
	}
	if m["rules"] != env.Bundle.Manifest.Rules {
		t.Errorf("rules %q", m["rules"])
	}
	openings := m["openings"].([]any)
	if len(openings) != 1 || !strings.HasPrefix(openings[0].(string), "Hi, I placed an order") {
		t.Fatalf("openings %v", openings)
	}
	id := m["episodes"].([]any)[0].(string)
	say := func(text string) map[string]any {
		t.Helper()
		return do("POST", "/v1/episodes/"+id+"/step", string(mustJSON(t, map[string]any{
			"action": map[string]any{"type": "message", "content": text}})))
	}
	m = say("Happy to help. Could you give me your email address and the order number?")
	if m["observation"] != "Sure, it's olivia.chen@example.com and the order is #W1002." || m["terminated"] != false {
		t.Fatalf("first reply: %v", m)
	}
	for _, c := range task.Calls {
		do("POST", "/v1/episodes/"+id+"/step", string(mustJSON(t, map[string]any{
			"action": map[string]any{"name": c.Name, "arguments": c.Arguments}})))
	}
	m = say("Order #W1002 is pending. I will cancel it with the reason 'ordered by mistake'. Shall I go ahead?")
	if m["observation"] != "Yes, please cancel it." {
		t.Fatalf("confirmation: %v", m)
	}
	m = say("Done: order #W1002 is cancelled and the full amount goes back to your Visa card.")
	info := m["info"].(map[string]any)
	if m["terminated"] != true || m["reward"] != 1.0 || info["step"] != float64(len(task.Calls)+3) {
		t.Fatalf("the user's stop: %v", m)
	}
	code, _ := ts.do("POST", "/v1/episodes/"+id+"/step", `{"action":{"type":"message","content":"Anything else?"}}`)
	if code != http.StatusConflict {
		t.Errorf("a message after the user's stop: HTTP %d, want 409", code)
	}
	// OpenEnv's reset opens with the user's words too.
	m = do("POST", "/reset", `{"task":"`+storeTask+`"}`)
	obs := m["observation"].(map[string]any)
	if !strings.HasPrefix(obs["instruction"].(string), "Hi, I placed an order") {
		t.Errorf("OpenEnv opening %v", obs)
	}
	m = do("POST", "/step", string(mustJSON(t, map[string]any{"episode_id": obs["episode_id"],
		"action": map[string]any{"type": "message", "content": "What is your email?"}})))
	if m["observation"].(map[string]any)["user"] != "Sure, it's olivia.chen@example.com and the order is #W1002." {
		t.Errorf("OpenEnv message step: %v", m)
	}
	// MCP: the agent talks to the user with the message_user tool, calls
	// the bundle's tools, and the user's stop ends the episode with its reward.
	m = do("POST", "/v1/episodes", `{"task":"`+storeTask+`"}`)
	mid := m["episodes"].([]any)[0].(string)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "wasmenv-test", Version: "0"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.url + "/v1/episodes/" + mid + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	mcpText := func(res *mcp.CallToolResult) string {
		var b strings.Builder
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		seen = append(seen, b.String())
		return b.String()
	}
	mcpSay := func(text string) *mcp.CallToolResult {
		t.Helper()
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: MessageUserTool, Arguments: map[string]any{"content": text}})
		if err != nil || res.IsError {
			t.Fatalf("message_user: %v %+v", err, res)
		}
		return res
	}
	if r := mcpSay("How can I help?"); mcpText(r) != "Sure, it's olivia.chen@example.com and the order is #W1002." || r.Meta["terminated"] != false {
		t.Fatalf("MCP first reply: %+v", r)
	}
	for _, c := range task.Calls {
		var args map[string]any
		json.Unmarshal(c.Arguments, &args)
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: c.Name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("MCP %s: %v %+v", c.Name, err, res)
		}
		mcpText(res)
	}
	mcpSay("Shall I cancel it?")
	if r := mcpSay("Done: order #W1002 is cancelled."); r.Meta["terminated"] != true || r.Meta["reward"] != 1.0 {
		t.Fatalf("MCP: the user's stop: %+v", r.Meta)
	}
	for i, b := range seen {
		if strings.Contains(b, storeGoal) || strings.Contains(b, "night by mistake. Please") {
			t.Errorf("answer %d shows the agent the user's goal: %s", i, b)
		}
	}
	// The user, and only the user, held the goal.
	for _, p := range *prompts {
		if !strings.Contains(p, storeGoal) {
			t.Errorf("the user model's prompt lacks the goal: %q", p)
		}
	}
}

type failingUser struct{}

func (failingUser) Reply(context.Context, *envpkg.Task, []rl.Message) (string, error) {
	return "", fmt.Errorf("model down")
}

// A user that cannot answer: the create is refused (502, typed), nothing
// is left behind; without a user a message step is a client's mistake.
func TestSimulatedUserFailsCleanly(t *testing.T) {
	ts := newTestServer(t, Options{User: failingUser{}})
	code, m := ts.do("POST", "/v1/episodes", `{"task":"put-d","n":4}`)
	if code != http.StatusBadGateway || m["error"].(map[string]any)["code"] != "user_failed" {
		t.Fatalf("create with a failing user: %d %v", code, m)
	}
	if n := ts.srv.Stats().Episodes; n != 0 {
		t.Errorf("%d episodes left behind", n)
	}
	plain := newTestServer(t, Options{})
	id := plain.create(`{"task":"put-d"}`)[0]
	code, m = plain.do("POST", "/v1/episodes/"+id+"/step", `{"action":{"type":"message","content":"hi"}}`)
	if code != http.StatusConflict || m["error"].(map[string]any)["code"] != "no_user" {
		t.Fatalf("message without a user: %d %v", code, m)
	}
	code, m = plain.do("POST", "/v1/episodes/"+id+"/step", `{"action":{"type":"message"}}`)
	if code != http.StatusBadRequest {
		t.Fatalf("message without content: %d %v", code, m)
	}
	// Without a user, the listing and create hand out the instruction.
	_, m = plain.do("GET", "/v1/envs/mini/tasks", "")
	if m["tasks"].([]any)[0].(map[string]any)["instruction"] == "" {
		t.Error("instruction hidden without a user")
	}
}
