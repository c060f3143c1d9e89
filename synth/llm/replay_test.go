package llm

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	replay "github.com/wasmenv/wasmenv/internal/llmreplay"
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

type replayEntry = replay.Entry

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
