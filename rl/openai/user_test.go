package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/rl/openai"
	"github.com/wasmenv/wasmenv/runtime"
)

// A conversational run: the simulated user, on its own endpoint and model,
// holds the instruction, opens the conversation, answers the agent's
// questions and ends with the stop token; the env's rules are the agent's
// system prompt, and the user never sees the tool traffic.
func TestSimulatedUser(t *testing.T) {
	env := rltest.Load(t, "store")
	agentTurns, userTurns := recorded(t, "convo_agent.json"), recorded(t, "convo_user.json")
	var mu sync.Mutex
	var problems []string
	agent := server(t, func(w http.ResponseWriter, r *http.Request, req *request) {
		if c := req.Messages[0].Content; req.Messages[0].Role != "system" || c == nil || *c != env.Bundle.Manifest.Rules {
			mu.Lock()
			problems = append(problems, "agent's system prompt is not the rules")
			mu.Unlock()
		}
		writeJSON(w, agentTurns[min(req.count("assistant"), len(agentTurns)-1)])
	})
	user := server(t, func(w http.ResponseWriter, r *http.Request, req *request) {
		mu.Lock()
		sys := req.Messages[0].Content
		if sys == nil || !strings.Contains(*sys, "#W1002") || !strings.Contains(*sys, rl.DefaultStopToken) || req.Model != "gpt-4o-mini" || len(req.Tools) != 0 {
			problems = append(problems, fmt.Sprintf("user request: model %q, %d tools, system %v", req.Model, len(req.Tools), sys))
		}
		for _, m := range req.Messages {
			if m.Role == "tool" || len(m.ToolCalls) > 0 {
				problems = append(problems, "the user saw tool traffic")
			}
		}
		mu.Unlock()
		writeJSON(w, userTurns[min(req.count("assistant"), len(userTurns)-1)])
	})
	u := &openai.User{Client: openai.NewClient(user.URL+"/v1", "", 4), Model: "gpt-4o-mini"}
	p := &openai.Policy{Client: openai.NewClient(agent.URL+"/v1", "", 4), Model: "Qwen/Qwen3-8B"}
	var out rltest.Collect
	_, err := rl.Run(context.Background(), []*runtime.Env{env}, p, rl.Config{Group: 2, Tasks: task, User: u}, &out)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, p := range problems {
		t.Error(p)
	}
	mu.Unlock()
	for _, r := range out.All() {
		var roles []string
		for _, m := range r.Messages {
			roles = append(roles, m.Role)
		}
		want := "system user assistant user assistant tool assistant tool assistant user assistant tool assistant user"
		if strings.Join(roles, " ") != want {
			t.Fatalf("conversation:\n%s\nwant\n%s", strings.Join(roles, " "), want)
		}
		if r.Finish != rl.FinishUserStop || r.Reward != 1 || r.Turns != 6 {
			t.Errorf("finish %s reward %g turns %d checks %+v", r.Finish, r.Reward, r.Turns, r.Checks)
		}
		if !strings.HasPrefix(r.Messages[1].Content, "Hi, I placed an order") {
			t.Errorf("the user did not open: %q", r.Messages[1].Content)
		}
	}
}
