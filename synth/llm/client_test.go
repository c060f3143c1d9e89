package llm

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/internal/llmreplay"
)

func TestClientFallsBackFromStructuredOutputs(t *testing.T) {
	var formats []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ResponseFormat *struct{ Type string } `json:"response_format"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		f := ""
		if req.ResponseFormat != nil {
			f = req.ResponseFormat.Type
		}
		formats = append(formats, f)
		if f != "" {
			http.Error(w, `{"message":"unknown field response_format"}`, http.StatusBadRequest)
			return
		}
		w.Write([]byte(llmreplay.Completion("{}")))
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Model: "m"}
	req := Request{Messages: []Message{{Role: "user", Content: "hi"}}, Schema: json.RawMessage(`{"type":"object"}`)}
	for range 2 {
		if _, err := c.Chat(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"json_schema", "json_object", "", ""}
	if len(formats) != len(want) {
		t.Fatalf("formats %q, want %q", formats, want)
	}
	for i := range want {
		if formats[i] != want[i] {
			t.Fatalf("formats %q, want %q", formats, want)
		}
	}
}

func TestClientConcurrencyLimit(t *testing.T) {
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(5 * time.Millisecond)
		inFlight.Add(-1)
		w.Write([]byte(llmreplay.Completion("{}")))
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Model: "m"}
	c.SetConcurrency(2)
	done := make(chan error)
	for range 8 {
		go func() {
			_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}})
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if peak.Load() > 2 {
		t.Errorf("%d requests in flight at once, limit 2", peak.Load())
	}
}

func TestDedupByEmbeddings(t *testing.T) {
	vecs := map[string][]float64{
		"Library lending":     {1, 0, 0},
		"Book loans":          {0.95, 0.1, 0}, // cosine 0.99 with the first
		"Clinic appointments": {0, 1, 0.2},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/embeddings" {
			http.NotFound(w, r)
			return
		}
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		var data []map[string]any
		for i, in := range req.Input {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vecs[in]})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model})
	}))
	defer srv.Close()
	c := &Client{BaseURL: srv.URL, Model: "m", EmbeddingModel: "e"}
	keep, dupOf, method, err := dedup(context.Background(), c, []string{"Library lending", "Book loans", "Clinic appointments"})
	if err != nil {
		t.Fatal(err)
	}
	if len(keep) != 2 || keep[0] != 0 || keep[1] != 2 || dupOf[1] != 0 || method != "embedding cosine ≥ 0.85" {
		t.Errorf("keep %v dupOf %v method %q", keep, dupOf, method)
	}
}

func TestDedupLexicalFallback(t *testing.T) {
	keep, _, method, err := dedup(context.Background(), &Client{}, []string{
		"Library book lending: members borrow and return books",
		"Library lending of books: members borrow books and return them",
		"Clinic appointment booking for patients and doctors",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(keep) != 2 || keep[1] != 2 || method != "word Jaccard ≥ 0.5" {
		t.Errorf("keep %v method %q", keep, method)
	}
}
