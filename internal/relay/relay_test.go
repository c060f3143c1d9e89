package relay

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
)

// TestRelayAnswersFromFilesAndRecordsForReplay: a request waits for its
// answer file, the answer (content or tool calls) comes back as a chat
// completion, and the recording replays through llmreplay by request key.
func TestRelayAnswersFromFilesAndRecordsForReplay(t *testing.T) {
	dir := t.TempDir()
	r := &Relay{Dir: dir, Model: "claude (via relay)", Poll: 10 * time.Millisecond}
	if err := r.Open(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r)
	defer srv.Close()
	client := chatapi.New(srv.URL+"/v1", "", 1)
	client.Retries = chatapi.NoRetries

	ask := func(msgs []chatapi.Message) <-chan *chatapi.Response {
		out := make(chan *chatapi.Response, 1)
		go func() {
			resp, err := client.Chat(context.Background(), &chatapi.Request{Model: "m", Messages: msgs})
			if err != nil {
				t.Error(err)
			}
			out <- resp
		}()
		return out
	}
	answer := func(n int, name, body string) {
		t.Helper()
		prompt := filepath.Join(dir, "pending", "00000"+string(rune('0'+n))+".prompt.md")
		for i := 0; ; i++ {
			if _, err := os.Stat(prompt); err == nil {
				break
			}
			if i > 2000 {
				t.Fatalf("no %s", prompt)
			}
			time.Sleep(5 * time.Millisecond)
		}
		tmp := filepath.Join(dir, "tmp")
		os.WriteFile(tmp, []byte(body), 0o644)
		os.Rename(tmp, filepath.Join(dir, "pending", "00000"+string(rune('0'+n))+name))
	}

	first := []chatapi.Message{{Role: "system", Content: "be brief"}, {Role: "user", Content: "book it"}}
	got := ask(first)
	answer(1, ".answer.json", `{"content":"","tool_calls":[{"name":"book","arguments":{"id":"b1"}}]}`)
	resp := <-got
	if resp == nil || len(resp.Choices[0].Message.ToolCalls) != 1 || resp.Choices[0].Message.ToolCalls[0].Function.Name != "book" ||
		resp.Model != "claude (via relay)" || resp.Usage == nil || resp.Usage.PromptTokens == 0 {
		t.Fatalf("tool-call answer: %+v", resp)
	}
	second := append(first, resp.Choices[0].Message, chatapi.Message{Role: "tool", Content: "booked", ToolCallID: resp.Choices[0].Message.ToolCalls[0].ID})
	got = ask(second)
	answer(2, ".answer.txt", "Done: booked.")
	if resp := <-got; resp == nil || resp.Choices[0].Message.Content != "Done: booked." {
		t.Fatalf("text answer: %+v", resp)
	}

	// Replay: the same conversation (call ids differ) gets the same answers.
	rs := llmreplay.New(t, filepath.Join(dir, "record"))
	rc := chatapi.New(rs.URL+"/v1", llmreplay.Key, 1)
	rc.Backoff = time.Millisecond
	r1, err := rc.Chat(context.Background(), &chatapi.Request{Model: "x", Messages: first})
	if err != nil || r1.Choices[0].Message.ToolCalls[0].Function.Name != "book" {
		t.Fatalf("replay 1: %v %+v", err, r1)
	}
	m := r1.Choices[0].Message
	m.ToolCalls[0].ID = "another-id"
	r2, err := rc.Chat(context.Background(), &chatapi.Request{Model: "x", Messages: append(first, m, chatapi.Message{Role: "tool", Content: "booked", ToolCallID: "another-id"})})
	if err != nil || r2.Choices[0].Message.Content != "Done: booked." {
		t.Fatalf("replay 2: %v %+v", err, r2)
	}
}
