package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
)

// Relay serves /v1/chat/completions and /v1/models from files.
type Relay struct {
	Dir   string
	Model string        // reported in every response, such as "claude (via relay)"
	Poll  time.Duration // how often to look for an answer (default 500 ms)
	Log   func(string)  // a line per request and answer (nil: none)

	mu    sync.Mutex
	seq   int
	index []llmreplay.Entry
}

// Open prepares Dir and resumes a recording found there.
func (r *Relay) Open() error {
	for _, d := range []string{"pending", "record"} {
		if err := os.MkdirAll(filepath.Join(r.Dir, d), 0o755); err != nil {
			return err
		}
	}
	b, err := os.ReadFile(filepath.Join(r.Dir, "record", "index.json"))
	if err == nil {
		if err := json.Unmarshal(b, &r.index); err != nil {
			return fmt.Errorf("relay: %s: %v", filepath.Join(r.Dir, "record", "index.json"), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	ents, err := os.ReadDir(filepath.Join(r.Dir, "pending"))
	if err != nil {
		return err
	}
	for _, e := range ents {
		var n int
		if _, err := fmt.Sscanf(e.Name(), "%06d.", &n); err == nil && n > r.seq {
			r.seq = n
		}
	}
	return nil
}

func (r *Relay) logf(format string, args ...any) {
	if r.Log != nil {
		r.Log(fmt.Sprintf(format, args...))
	}
}

// ServeHTTP implements http.Handler.
func (r *Relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	switch {
	case strings.HasSuffix(req.URL.Path, "/models"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model"}]}`, r.Model)
		return
	case !strings.HasSuffix(req.URL.Path, "/chat/completions") || req.Method != http.MethodPost:
		httpError(w, http.StatusNotFound, "not found")
		return
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	var cr chatRequest
	if err := json.Unmarshal(body, &cr); err != nil || len(cr.Messages) == 0 {
		httpError(w, http.StatusBadRequest, "not a chat-completions request")
		return
	}
	r.mu.Lock()
	r.seq++
	n := r.seq
	r.mu.Unlock()
	base := filepath.Join(r.Dir, "pending", fmt.Sprintf("%06d", n))
	if err := atomicfile.WriteFile(base+".request.json", body); err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	if err := atomicfile.WriteFile(base+".prompt.md", []byte(cr.render())); err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	r.logf("request %06d: %s", n, cr.summary())
	msg, err := r.wait(req.Context(), base)
	if err != nil {
		httpError(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	resp := r.response(n, cr, msg)
	if err := r.record(n, body, resp); err != nil {
		httpError(w, http.StatusInternalServerError, err.Error())
		return
	}
	r.logf("answer %06d", n)
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

// wait polls for the answer file until it appears or the client leaves.
func (r *Relay) wait(ctx context.Context, base string) (answer, error) {
	poll := r.Poll
	if poll == 0 {
		poll = 500 * time.Millisecond
	}
	for {
		if b, err := os.ReadFile(base + ".answer.json"); err == nil {
			var a answer
			if err := json.Unmarshal(b, &a); err != nil {
				// A half-written or malformed answer: say so and keep waiting.
				r.logf("%s.answer.json: %v", base, err)
			} else {
				return a, nil
			}
		} else if b, err := os.ReadFile(base + ".answer.txt"); err == nil && settled(base+".answer.txt") {
			return answer{Content: string(b)}, nil
		}
		select {
		case <-ctx.Done():
			return answer{}, ctx.Err()
		case <-time.After(poll):
		}
	}
}

// settled reports whether a file has not been written to for a second: a
// text answer has no end marker, and an editor may still be writing it
// (write it elsewhere and rename it in to be safe).
func settled(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && time.Since(fi.ModTime()) > time.Second
}

// answer is what the answerer writes.
type answer struct {
	Content   string `json:"content"`
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
}

// response builds the chat-completion body of an answer.
func (r *Relay) response(n int, cr chatRequest, a answer) []byte {
	msg := map[string]any{"role": "assistant", "content": a.Content}
	finish := "stop"
	if len(a.ToolCalls) > 0 {
		var calls []any
		for i, c := range a.ToolCalls {
			args := string(c.Arguments)
			if args == "" {
				args = "{}"
			}
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%06d_%d", n, i), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": args}})
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	}
	prompt := cr.promptBytes() / 4
	completion := (len(a.Content)+len(mustJSON(a.ToolCalls)))/4 + 1
	b, _ := json.MarshalIndent(map[string]any{
		"id": fmt.Sprintf("chatcmpl-relay-%06d", n), "object": "chat.completion", "model": r.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
			"estimated": "bytes/4: the relay has no tokenizer"},
	}, "", " ")
	return append(b, '\n')
}

// record adds the exchange to the recording, index last, each file whole.
func (r *Relay) record(n int, body, resp []byte) error {
	name := fmt.Sprintf("%06d.json", n)
	if err := atomicfile.WriteFile(filepath.Join(r.Dir, "record", name), resp); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.index = append(r.index, llmreplay.Entry{File: name, Key: llmreplay.RequestKey(body), Match: []string{}})
	b, _ := json.MarshalIndent(r.index, "", " ")
	return atomicfile.WriteFile(filepath.Join(r.Dir, "record", "index.json"), append(b, '\n'))
}

func httpError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"error":{"message":%q}}`, msg)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
