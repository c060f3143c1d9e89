package tasks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/tasks"
)

// recorded serves recorded chat-completions responses, in turn (the last
// one again when they run out), and keeps the request bodies.
type recorded struct {
	mu       sync.Mutex
	files    []string
	requests []string
}

func (r *recorded) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	i := min(len(r.requests), len(r.files)-1)
	r.requests = append(r.requests, string(body))
	r.mu.Unlock()
	data, err := os.ReadFile(filepath.Join("testdata", "rewrite", r.files[i]))
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(data)
}

// TestRewriteKeepsValues: a model's rewrite is kept only when it keeps
// every value the task needs and does not give the answer away (recorded
// responses through a real HTTP server).
func TestRewriteKeepsValues(t *testing.T) {
	rec := &recorded{files: []string{"kept.json", "dropped.json", "answered.json"}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	r := &tasks.Rewriter{Client: chatapi.New(srv.URL, "test", 1), Model: "recorded"}
	ctx := context.Background()
	orig := "Could you tell me when order ORD-10037 was placed? I need it for my records."
	for _, c := range []struct {
		file string
		kept bool
	}{{"kept.json", true}, {"dropped.json", false}, {"answered.json", false}} {
		out, ok, err := r.Rewrite(ctx, orig, []string{"ORD-10037"}, "2024-02-02")
		if err != nil {
			t.Fatal(err)
		}
		if ok != c.kept || ok && out == orig || !ok && out != orig {
			t.Errorf("%s: kept %v, instruction %q", c.file, ok, out)
		}
	}
	if len(rec.requests) != 3 || !strings.Contains(rec.requests[0], `\"ORD-10037\"`) {
		t.Errorf("requests %d; the prompt does not list the values to keep: %s", len(rec.requests), rec.requests[0])
	}
}

// TestRewriteInPipeline: with a model that drops values, every
// instruction stays the grammar's and every task still passes the gates.
func TestRewriteInPipeline(t *testing.T) {
	rec := &recorded{files: []string{"dropped.json"}}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	res := fromDB(t, shopDB(t), synth.Options{Tasks: 10, Rewriter: &tasks.Rewriter{Client: chatapi.New(srv.URL, "test", 2), Model: "recorded"}})
	if len(res.Tasks) != 10 || len(rec.requests) < 10 {
		t.Fatalf("kept %d tasks after %d requests", len(res.Tasks), len(rec.requests))
	}
	for _, task := range res.Tasks {
		if strings.Contains(task.Instruction, "my most recent order was placed") {
			t.Errorf("task %s took a rewrite that dropped its values: %q", task.ID, task.Instruction)
		}
	}
}
