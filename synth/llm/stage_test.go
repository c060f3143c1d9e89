package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	replay "github.com/wasmenv/wasmenv/internal/llmreplay"
)

// TestStageGivesUpWithTheLastProblems: a model that never answers valid
// JSON uses up the attempts; each repair request carries the prompt and
// at most the last two answers with their feedback; the error names the
// stage and the problem.
func TestStageGivesUpWithTheLastProblems(t *testing.T) {
	var lens []int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []Message `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		lens = append(lens, len(req.Messages))
		w.Write([]byte(replay.Completion(`{"tasks": [{"id": "a b", "instruction": "x", "kind": "write"}]}`)))
	}))
	defer srv.Close()
	prompts, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeline{cfg: Config{Client: &Client{BaseURL: srv.URL, Model: "m"}, MaxAttempts: 5}, prompts: prompts}
	p.cfg.defaults()
	r := &envRun{p: p, sc: Scenario{Name: "s", Title: "S"}, ledger: newLedger(), rep: &EnvReport{}}
	err = r.runTasks(context.Background())
	var se *StageError
	if !errors.As(err, &se) || !errors.Is(err, ErrStageFailed) || se.Stage != StageTasks || se.Attempts != 5 ||
		!strings.Contains(err.Error(), `id "a b" must match`) {
		t.Fatalf("err = %v", err)
	}
	want := []int{2, 4, 6, 6, 6}
	if len(lens) != len(want) {
		t.Fatalf("message counts %v, want %v", lens, want)
	}
	for i := range want {
		if lens[i] != want[i] {
			t.Fatalf("message counts %v, want %v", lens, want)
		}
	}
	if s := r.ledger.snapshot()[StageTasks]; s.Runs != 1 || s.Passed != 0 || s.Trials != 5 || s.PromptTokens != 50 {
		t.Errorf("ledger %+v", s)
	}
	if len(r.rep.Repairs) != 5 {
		t.Errorf("%d repairs recorded, want 5", len(r.rep.Repairs))
	}
}
