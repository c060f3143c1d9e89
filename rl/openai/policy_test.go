package openai_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/rl/openai"
	"github.com/wasmenv/wasmenv/runtime"
)

const task = "cancel-pending-order-mistake"

// A run against a server replaying recorded vLLM responses: parallel tool
// calls, malformed JSON arguments, an unknown tool, a call embedded in text
// and a final answer. Format errors are recorded and the rollout goes on
// to solve the task; tokens, logprobs and usage reach the trajectory; the
// key comes from OPENAI_API_KEY and the URL from OPENAI_BASE_URL.
func TestPolicyReplay(t *testing.T) {
	env := rltest.Load(t, "store")
	turns := recorded(t, "agent_turns.json")
	var mu sync.Mutex
	var problems []string
	srv := server(t, func(w http.ResponseWriter, r *http.Request, req *request) {
		n := req.count("assistant")
		mu.Lock()
		if !req.Logprobs || !req.ReturnTokenIDs || len(req.Tools) != len(env.Tools()) || req.auth != "Bearer sk-test" || req.Model != "Qwen/Qwen3-8B" {
			problems = append(problems, fmt.Sprintf("request %d: logprobs %v token ids %v tools %d auth %q model %q", n, req.Logprobs, req.ReturnTokenIDs, len(req.Tools), req.auth, req.Model))
		}
		for _, m := range req.Messages {
			if m.Reasoning != nil {
				problems = append(problems, "reasoning_content sent back to the server")
			}
		}
		if n == 4 { // the text-call turn goes back as its text, not as tool_calls
			m := req.Messages[len(req.Messages)-2]
			if m.Role != "assistant" || len(m.ToolCalls) > 0 || m.Content == nil || !strings.Contains(*m.Content, "<tool_call>") {
				problems = append(problems, fmt.Sprintf("text-call turn sent back as %+v", m))
			}
		}
		mu.Unlock()
		writeJSON(w, turns[min(n, len(turns)-1)])
	})
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	p := &openai.Policy{Client: openai.NewClient("", "", 4), Model: "Qwen/Qwen3-8B"}
	var out rltest.Collect
	sum, err := rl.Run(context.Background(), []*runtime.Env{env}, p, rl.Config{Group: 3, Tasks: task}, &out)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	for _, p := range problems {
		t.Error(p)
	}
	mu.Unlock()
	if len(out.All()) != 3 {
		t.Fatalf("%d rollouts", len(out.All()))
	}
	for _, r := range out.All() {
		if r.Reward != 1 || r.FormatErrors != 2 || r.Turns != 5 || r.Finish != rl.FinishStop || r.EnvError {
			t.Errorf("rollout %d: reward %g format errors %d turns %d finish %s env error %v", r.Index, r.Reward, r.FormatErrors, r.Turns, r.Finish, r.EnvError)
		}
		if r.ToolCalls != 5 {
			t.Errorf("%d tool calls, want 5 (2 parallel, malformed, unknown, text)", r.ToolCalls)
		}
		var results []string
		for _, m := range r.Messages {
			if m.Role == rl.RoleTool {
				results = append(results, m.Content)
			}
		}
		if len(results) != 5 || !strings.Contains(results[2], "not valid JSON") || !strings.Contains(results[3], `unknown tool "refund_everything"`) {
			t.Errorf("tool results: %q", results)
		}
		if !strings.HasPrefix(r.Messages[2].ReasoningContent, "The customer gave") {
			t.Errorf("reasoning content not kept: %+v", r.Messages[2])
		}
		if len(r.TurnTokens) != 5 {
			t.Fatalf("%d turn token entries", len(r.TurnTokens))
		}
		for _, tt := range r.TurnTokens {
			m := r.Messages[tt.Message]
			if m.Role != rl.RoleAssistant || len(tt.CompletionTokenIDs) == 0 || len(tt.Logprobs) != len(tt.CompletionTokenIDs) ||
				len(tt.Tokens) != len(tt.Logprobs) || len(tt.PromptTokenIDs) < 1000 {
				t.Errorf("turn tokens %d: %d ids, %d logprobs, %d prompt ids, role %s", tt.Message, len(tt.CompletionTokenIDs), len(tt.Logprobs), len(tt.PromptTokenIDs), m.Role)
			}
		}
		if r.Usage == nil || r.Usage.PromptTokens != 1480+1702+1790+1850+1990 {
			t.Errorf("usage %+v", r.Usage)
		}
	}
	if sum.FormatErrors != 6 || sum.SuccessRate() != 1 {
		t.Errorf("summary: %d format errors, success %.2f", sum.FormatErrors, sum.SuccessRate())
	}
}

// 429 and 500 are retried with backoff and a hung request is cut at the
// per-request timeout and retried; a 400 is not retried and becomes that
// rollout's policy error while the others go on.
func TestRetries(t *testing.T) {
	env := rltest.Load(t, "store")
	final := recorded(t, "agent_turns.json")[4]
	var calls atomic.Int64
	srv := server(t, func(w http.ResponseWriter, r *http.Request, req *request) {
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprint(w, `{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}`)
		case 2:
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"error":{"message":"EngineCore encountered an issue","type":"InternalServerError"}}`)
		case 3:
			<-r.Context().Done() // hung until the client gives up on it
		default:
			writeJSON(w, final)
		}
	})
	c := openai.NewClient(srv.URL+"/v1", "", 1)
	c.Backoff, c.Timeout = time.Millisecond, 300*time.Millisecond
	var out rltest.Collect
	_, err := rl.Run(context.Background(), []*runtime.Env{env}, &openai.Policy{Client: c, Model: "m"},
		rl.Config{Group: 1, Tasks: task, Concurrency: 1}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if n := calls.Load(); n != 4 || len(out.All()) != 1 || out.All()[0].PolicyError != "" || out.All()[0].Turns != 1 {
		t.Fatalf("%d requests; rollouts %+v", n, out.All())
	}

	// Too many failures, then a client error: policy errors, not a failed run.
	var bad atomic.Int64
	srv = server(t, func(w http.ResponseWriter, r *http.Request, req *request) {
		if bad.Add(1)%2 == 0 {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":{"message":"This model's maximum context length is 32768 tokens","type":"BadRequestError"}}`)
			return
		}
		writeJSON(w, final)
	})
	c = openai.NewClient(srv.URL+"/v1", "", 1)
	c.Backoff = time.Millisecond
	out = rltest.Collect{}
	sum, err := rl.Run(context.Background(), []*runtime.Env{env}, &openai.Policy{Client: c, Model: "m"},
		rl.Config{Group: 4, Tasks: task, Concurrency: 1}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if sum.WithPolicyError != 2 || bad.Load() != 4 {
		t.Fatalf("%d policy errors over %d requests", sum.WithPolicyError, bad.Load())
	}
	for _, r := range out.All() {
		if r.PolicyError != "" && (r.Finish != rl.FinishPolicyError || !strings.Contains(r.PolicyError, "maximum context length")) {
			t.Errorf("rollout %d: finish %s, error %q", r.Index, r.Finish, r.PolicyError)
		}
	}
}

// The concurrency limit holds however many rollouts are in flight.
func TestConcurrencyLimit(t *testing.T) {
	env := rltest.Load(t, "store")
	final := recorded(t, "agent_turns.json")[4]
	var inFlight, peak atomic.Int64
	srv := server(t, func(w http.ResponseWriter, r *http.Request, req *request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(20 * time.Millisecond)
		inFlight.Add(-1)
		writeJSON(w, final)
	})
	c := openai.NewClient(srv.URL+"/v1", "", 3)
	var out rltest.Collect
	if _, err := rl.Run(context.Background(), []*runtime.Env{env}, &openai.Policy{Client: c, Model: "m"},
		rl.Config{Group: 12, Tasks: task, Concurrency: 12}, &out); err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p != 3 {
		t.Errorf("peak %d requests in flight, limit 3", p)
	}
}

// The rollout's token budget caps each request's max_tokens and ends the
// rollout once the completions have used it.
func TestTokenBudget(t *testing.T) {
	env := rltest.Load(t, "store")
	turns := recorded(t, "agent_turns.json")
	var mu sync.Mutex
	var asked []int
	srv := server(t, func(w http.ResponseWriter, r *http.Request, req *request) {
		mu.Lock()
		asked = append(asked, req.MaxTokens)
		mu.Unlock()
		writeJSON(w, turns[min(req.count("assistant"), len(turns)-1)])
	})
	p := &openai.Policy{Client: openai.NewClient(srv.URL+"/v1", "", 1), Model: "m", MaxTokens: 4096}
	var out rltest.Collect
	if _, err := rl.Run(context.Background(), []*runtime.Env{env}, p, rl.Config{Group: 1, Tasks: task, MaxTokens: 120}, &out); err != nil {
		t.Fatal(err)
	}
	r := out.All()[0]
	if r.Finish != rl.FinishMaxTokens || r.Usage == nil || r.Usage.CompletionTokens < 120 || r.Turns != 3 {
		t.Fatalf("finish %s, usage %+v", r.Finish, r.Usage)
	}
	if len(asked) < 2 || asked[0] != 120 || asked[1] != 120-turnsUsed(r, 0) {
		t.Fatalf("max_tokens asked: %v", asked)
	}
}

func turnsUsed(r rl.Rollout, i int) int { return len(r.TurnTokens[i].CompletionTokenIDs) }
