package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The model responses the tests replay are written by hand as the content
// a model would return, in testdata/replay/src/SCENARIO/NN-name.txt: a
// header of "match: TEXT" lines (every TEXT must occur in the request's
// messages; the entry matching the most lines wins) and "prompt_tokens: N",
// then "---", then the content. Content made of "=== file NAME.go ==="
// sections becomes the code stage's {"files": [...]} JSON. The files under
// testdata/replay/SCENARIO/ are those contents wrapped into vLLM-style
// chat-completion responses (ids, usage, finish_reason); regenerate them
// with: go test ./synth/llm -run TestReplayFiles -update
var update = flag.Bool("update", false, "regenerate testdata/replay from testdata/replay/src")

const replayDir = "testdata/replay"

type replayEntry struct {
	File  string   `json:"file"`
	Match []string `json:"match"`
}

// renderReplay turns the sources into the response files and the index.
func renderReplay(t *testing.T) map[string][]byte {
	t.Helper()
	srcs, err := filepath.Glob(filepath.Join(replayDir, "src", "*", "*.txt"))
	if err != nil || len(srcs) == 0 {
		t.Fatalf("no replay sources: %v", err)
	}
	sort.Strings(srcs)
	out := map[string][]byte{}
	var index []replayEntry
	for i, src := range srcs {
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		head, content, ok := strings.Cut(string(raw), "\n---\n")
		if !ok {
			t.Fatalf("%s: no --- line", src)
		}
		var e replayEntry
		promptTokens := 1000
		for _, l := range strings.Split(head, "\n") {
			switch k, v, _ := strings.Cut(l, ": "); k {
			case "match":
				e.Match = append(e.Match, v)
			case "prompt_tokens":
				promptTokens, _ = strconv.Atoi(v)
			}
		}
		if strings.HasPrefix(content, "=== file ") {
			content = filesJSON(t, src, content)
		} else if !json.Valid([]byte(content)) {
			t.Fatalf("%s: content is not JSON", src)
		}
		rel, _ := filepath.Rel(filepath.Join(replayDir, "src"), src)
		e.File = strings.TrimSuffix(filepath.ToSlash(rel), ".txt") + ".json"
		sum := sha256.Sum256([]byte(e.File))
		completion := len(content)/4 + 1 // about four bytes per token
		resp := map[string]any{
			"id":      fmt.Sprintf("chatcmpl-%x", sum[:16]),
			"object":  "chat.completion",
			"created": 1732380000 + 7*i,
			"model":   "Qwen/Qwen2.5-Coder-32B-Instruct",
			"choices": []any{map[string]any{
				"index":         0,
				"message":       map[string]any{"role": "assistant", "content": content, "tool_calls": []any{}},
				"logprobs":      nil,
				"finish_reason": "stop",
				"stop_reason":   nil,
			}},
			"usage":           map[string]any{"prompt_tokens": promptTokens, "total_tokens": promptTokens + completion, "completion_tokens": completion, "prompt_tokens_details": nil},
			"prompt_logprobs": nil,
		}
		b, _ := json.MarshalIndent(resp, "", "  ")
		out[e.File] = append(b, '\n')
		index = append(index, e)
	}
	b, _ := json.MarshalIndent(index, "", "  ")
	out["index.json"] = append(b, '\n')
	return out
}

func filesJSON(t *testing.T, src, content string) string {
	var files []map[string]string
	for _, part := range strings.Split(content, "=== file ")[1:] {
		name, body, ok := strings.Cut(part, " ===\n")
		if !ok {
			t.Fatalf("%s: bad file header", src)
		}
		files = append(files, map[string]string{"name": name, "content": body})
	}
	b, _ := json.MarshalIndent(map[string]any{"files": files}, "", "  ")
	return string(b)
}

// TestReplayFiles keeps the recorded responses in step with their sources.
func TestReplayFiles(t *testing.T) {
	want := renderReplay(t)
	for name, b := range want {
		p := filepath.Join(replayDir, filepath.FromSlash(name))
		if *update {
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, b) {
			t.Errorf("%s is out of date with its source: run go test ./synth/llm -run TestReplayFiles -update", p)
		}
	}
}

// replayServer is an OpenAI-compatible endpoint on 127.0.0.1 that answers
// each chat completion with the recorded response whose match lines all
// occur in the request's messages (the most specific wins). Like some
// servers, it refuses response_format json_schema, and it answers the
// first request with 429 to exercise the retry.
type replayServer struct {
	*httptest.Server
	t       *testing.T
	index   []replayEntry
	refuse  bool // answer every chat request with 400 (a resumed run must not ask)
	mu      sync.Mutex
	used    map[string]int
	formats []string // response_format type of each answered request
	got429  bool
	refused int // requests refused
	// onAnswer, when set, runs after each answered request with the count
	// so far (a test cancels its run from here to simulate Ctrl-C).
	onAnswer func(n int)
	answered int
}

func newReplayServer(t *testing.T) *replayServer {
	s := &replayServer{t: t, used: map[string]int{}}
	b, err := os.ReadFile(filepath.Join(replayDir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s.index); err != nil {
		t.Fatal(err)
	}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// count is how many requests were answered so far.
func (s *replayServer) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.answered
}

func (s *replayServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
		http.Error(w, `{"error":{"message":"not found or unauthorized"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model          string    `json:"model"`
		Messages       []Message `json:"messages"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
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
	best, bestN, tie := -1, 0, false
	for i, e := range s.index {
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
		s.t.Errorf("replay: no single recorded response for request (tie %v); last message:\n%s", tie, truncate(req.Messages[len(req.Messages)-1].Content, 1500))
		http.Error(w, `{"error":{"message":"no recorded response"}}`, http.StatusBadRequest)
		return
	}
	e := s.index[best]
	resp, err := os.ReadFile(filepath.Join(replayDir, filepath.FromSlash(e.File)))
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
