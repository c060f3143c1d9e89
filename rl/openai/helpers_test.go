package openai_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmenv/wasmenv/internal/testcache"
)

func TestMain(m *testing.M) { testcache.Main(m) }

// recorded reads a file of replayed chat-completion responses.
func recorded(t *testing.T, name string) []json.RawMessage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out []json.RawMessage
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// request is a chat-completions request as the server reads it.
type request struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    *string         `json:"content"`
		ToolCalls  json.RawMessage `json:"tool_calls"`
		ToolCallID string          `json:"tool_call_id"`
		Reasoning  *string         `json:"reasoning_content"`
	} `json:"messages"`
	Tools          []json.RawMessage `json:"tools"`
	Logprobs       bool              `json:"logprobs"`
	ReturnTokenIDs bool              `json:"return_token_ids"`
	MaxTokens      int               `json:"max_tokens"`
	auth           string
}

func (r *request) count(role string) int {
	n := 0
	for _, m := range r.Messages {
		if m.Role == role {
			n++
		}
	}
	return n
}

// server is a real HTTP server on 127.0.0.1 that answers each request
// with respond, which may write its own status.
func server(t *testing.T, respond func(w http.ResponseWriter, r *http.Request, req *request)) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var req request
		if err := json.Unmarshal(b, &req); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"bad json","type":"BadRequestError"}}`)
			return
		}
		req.auth = r.Header.Get("Authorization")
		respond(w, r, &req)
	}))
	t.Cleanup(s.Close)
	return s
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(body)
}
