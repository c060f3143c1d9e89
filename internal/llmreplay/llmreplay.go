// Package llmreplay is an OpenAI-compatible chat-completions server for tests:
// it answers each request with a recorded response chosen by the request's
// content, so a pipeline that talks to a model can be tested end to end
// over real HTTP without one.
//
// The recordings are an index.json of {"file", "match"} entries beside the
// response files: a response is chosen when every match string occurs in
// the request's messages, the entry with the most match strings winning; a
// request no single entry answers fails the test. Like some servers, it
// refuses response_format json_schema (clients must fall back to JSON
// mode), and it answers the first request with 429 (clients must retry).
package llmreplay

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Key is the API key the server accepts.
const Key = "test-key"

// Entry is one recorded response and what selects it.
type Entry struct {
	File  string   `json:"file"`
	Match []string `json:"match"`
	// Key, when set, selects the response by the whole request (see RequestKey):
	// a recorded conversation replays exactly. Entries with the same key
	// are served in turn, the least used first.
	Key string `json:"key,omitempty"`
}

// Server replays recorded chat completions on 127.0.0.1.
type Server struct {
	*httptest.Server
	t     testing.TB
	dir   string
	Index []Entry

	mu       sync.Mutex
	refuse   bool
	used     map[string]int
	formats  []string
	got429   bool
	refused  int
	answered int
	onAnswer func(n int)
}

// New starts a server over the recordings in dir; it stops with the test.
func New(t testing.TB, dir string) *Server {
	s := &Server{t: t, dir: dir, used: map[string]int{}}
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s.Index); err != nil {
		t.Fatal(err)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Refuse makes every later chat request fail with 400 (a resumed run must
// not ask).
func (s *Server) Refuse() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = true
}

// OnAnswer sets a function run after each answered request with the count
// so far (a test cancels its run from there, as Ctrl-C would).
func (s *Server) OnAnswer(f func(n int)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onAnswer = f
}

// Stats is what the server saw.
type Stats struct {
	Answered int
	Refused  int            // requests refused after Refuse
	Used     map[string]int // answers per recorded file
	Formats  []string       // response_format type of each answered request
	Got429   bool           // the rate-limited request was made
}

// Stats returns what the server saw so far.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	used := map[string]int{}
	for k, v := range s.used {
		used[k] = v
	}
	return Stats{Answered: s.answered, Refused: s.refused, Used: used, Formats: append([]string(nil), s.formats...), Got429: s.got429}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+Key {
		http.Error(w, `{"error":{"message":"not found or unauthorized"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuse {
		s.refused++
		http.Error(w, `{"error":{"message":"this server is closed"}}`, http.StatusBadRequest)
		return
	}
	if !s.got429 {
		s.got429 = true
		w.Header().Set("Retry-After", "0")
		http.Error(w, `{"error":{"message":"rate limit exceeded","type":"rate_limit_error"}}`, http.StatusTooManyRequests)
		return
	}
	if req.ResponseFormat != nil && req.ResponseFormat.Type == "json_schema" {
		http.Error(w, `{"object":"error","message":"response_format type 'json_schema' is not supported by this server","type":"BadRequestError","code":400}`, http.StatusBadRequest)
		return
	}
	var text strings.Builder
	for _, m := range req.Messages {
		text.WriteString(m.Content)
		text.WriteString("\n")
	}
	best, bestN, tie := Keyed(s.Index, RequestKey(body), s.used), 0, false
	keyed := best >= 0
	for i, e := range s.Index {
		if keyed {
			break
		}
		ok := true
		for _, m := range e.Match {
			if !strings.Contains(text.String(), m) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		if len(e.Match) > bestN {
			best, bestN, tie = i, len(e.Match), false
		} else if len(e.Match) == bestN {
			tie = true
		}
	}
	if best < 0 || tie {
		last := req.Messages[len(req.Messages)-1].Content
		if len(last) > 1500 {
			last = last[:1500] + "…"
		}
		s.t.Errorf("replay: no single recorded response for a request (tie %v); last message:\n%s", tie, last)
		http.Error(w, `{"error":{"message":"no recorded response"}}`, http.StatusBadRequest)
		return
	}
	e := s.Index[best]
	resp, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(e.File)))
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	s.used[e.File]++
	format := ""
	if req.ResponseFormat != nil {
		format = req.ResponseFormat.Type
	}
	s.formats = append(s.formats, format)
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
	s.answered++
	if s.onAnswer != nil {
		s.onAnswer(s.answered)
	}
}

// Completion is a chat-completions response body with one assistant
// message, content, and a usage of 10 prompt and 5 completion tokens: the
// answer of a hand-written test server.
func Completion(content string) string {
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
	return string(b)
}
