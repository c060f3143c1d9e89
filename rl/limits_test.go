package rl_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/rl/openai"
	"github.com/wasmenv/wasmenv/runtime"
)

// hostile is a real chat-completions server on 127.0.0.1 whose every
// answer is body with status; it records the largest request it read.
func hostile(t *testing.T, status int, body func() []byte) (*openai.Policy, *atomic.Int64) {
	t.Helper()
	var largest atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		if n > largest.Load() {
			largest.Store(n)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body())
	}))
	t.Cleanup(s.Close)
	c := openai.NewClient(s.URL+"/v1", "k", 4)
	c.Retries = 0
	return &openai.Policy{Client: c, Model: "m"}, &largest
}

// completion is a chat-completions answer carrying msg.
func completion(msg map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
	return b
}

func runHostile(t *testing.T, p rl.Policy, cfg rl.Config) rl.Rollout {
	t.Helper()
	env := rltest.Load(t, "store")
	var out rltest.Collect
	cfg.Group, cfg.Tasks = 2, "cancel-pending-order-mistake"
	if _, err := rl.Run(context.Background(), []*runtime.Env{env}, p, cfg, &out); err != nil {
		t.Fatal(err)
	}
	rs := out.All()
	if len(rs) != 2 {
		t.Fatalf("%d rollouts", len(rs))
	}
	for _, r := range rs {
		b, _ := json.Marshal(r)
		if len(b) > 3<<20 {
			t.Errorf("rollout %d is %d bytes in JSON", r.Index, len(b))
		}
	}
	return rs[0]
}

// Issue 25 finding 6: what one rollout holds is bounded whatever the model
// answers, and each limit ends the rollout with a finish the trainer can
// tell from an environment's failure.
func TestLimitsAgainstAHostileModel(t *testing.T) {
	t.Run("100000 calls in one turn", func(t *testing.T) {
		var calls []any
		for i := range 100_000 {
			calls = append(calls, map[string]any{"id": fmt.Sprint(i), "type": "function",
				"function": map[string]any{"name": "get_order", "arguments": "{}"}})
		}
		body := completion(map[string]any{"role": "assistant", "content": "", "tool_calls": calls})
		p, _ := hostile(t, 200, func() []byte { return body })
		r := runHostile(t, p, rl.Config{Limits: rl.Limits{MessageBytes: 64 << 20}})
		if r.Finish != rl.FinishMaxCalls || r.ToolCalls != 0 || !r.FormatError || r.EnvError {
			t.Errorf("finish %s, %d calls run, format error %v, env error %v", r.Finish, r.ToolCalls, r.FormatError, r.EnvError)
		}
		if last := r.Messages[len(r.Messages)-1]; len(last.ToolCalls) != rl.DefaultCallsPerTurn {
			t.Errorf("kept %d calls", len(last.ToolCalls))
		}
	})
	t.Run("10 MB content", func(t *testing.T) {
		big := strings.Repeat("é", 5<<20)
		body := completion(map[string]any{"role": "assistant", "content": big})
		p, largest := hostile(t, 200, func() []byte { return body })
		r := runHostile(t, p, rl.Config{})
		last := r.Messages[len(r.Messages)-1]
		if r.Finish != rl.FinishMaxMessageBytes || !r.FormatError || r.Turns != 1 {
			t.Errorf("finish %s, format error %v, turns %d", r.Finish, r.FormatError, r.Turns)
		}
		if len(last.Content) > rl.DefaultMessageBytes+100 || !strings.Contains(last.Content, "cut:") || !json.Valid(mustJSON(last.Content)) {
			t.Errorf("kept %d bytes: …%q", len(last.Content), last.Content[max(0, len(last.Content)-60):])
		}
		if largest.Load() > 1<<20 {
			t.Errorf("a request of %d bytes", largest.Load())
		}
	})
	t.Run("conversation", func(t *testing.T) {
		// Each answer (600 KB and one call) is under the message limit;
		// together they pass the conversation's.
		body := completion(map[string]any{"role": "assistant", "content": strings.Repeat("x", 600<<10),
			"tool_calls": []any{map[string]any{"id": "c", "type": "function",
				"function": map[string]any{"name": "get_order", "arguments": `{"order_id":"#W1002"}`}}}})
		p, largest := hostile(t, 200, func() []byte { return body })
		lim := rl.Limits{ConversationBytes: 2 << 20}
		r := runHostile(t, p, rl.Config{Limits: lim})
		if r.Finish != rl.FinishMaxConversation || r.FormatError || r.Turns != 4 {
			t.Errorf("finish %s, format error %v, turns %d", r.Finish, r.FormatError, r.Turns)
		}
		if largest.Load() > int64(lim.ConversationBytes)+64<<10 {
			t.Errorf("a request of %d bytes, limit %d", largest.Load(), lim.ConversationBytes)
		}
	})
	t.Run("20 MB error", func(t *testing.T) {
		e, _ := json.Marshal(map[string]any{"error": map[string]any{"message": strings.Repeat("bad ", 5<<20)}})
		p, _ := hostile(t, 400, func() []byte { return e })
		r := runHostile(t, p, rl.Config{})
		if r.Finish != rl.FinishPolicyError || len(r.PolicyError) > rl.DefaultErrorBytes+100 || r.FormatError {
			t.Errorf("finish %s, policy error of %d bytes", r.Finish, len(r.PolicyError))
		}
	})
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
