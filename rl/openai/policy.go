package openai

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/wasmenv/wasmenv/rl"
)

// Policy asks a chat-completions server for each turn.
type Policy struct {
	Client      *Client
	Model       string
	Temperature *float64
	// MaxTokens caps one turn's completion (0: the server's default); the
	// rollout's remaining token budget caps it further.
	MaxTokens int
	// NoTools leaves the tools out of the request: for raw servers whose
	// chat template lists them in the system prompt instead.
	NoTools bool
}

// Act implements rl.Policy.
func (p *Policy) Act(ctx context.Context, t *rl.Turn) (rl.Reply, error) {
	req := &ChatRequest{Model: p.Model, Messages: toWire(t.Messages), Temperature: p.Temperature,
		MaxTokens: p.MaxTokens, Logprobs: true, ReturnTokenIDs: true}
	if !p.NoTools {
		req.Tools = t.Tools
	}
	if t.MaxTokens > 0 && (req.MaxTokens == 0 || t.MaxTokens < req.MaxTokens) {
		req.MaxTokens = t.MaxTokens
	}
	resp, err := p.Client.Chat(ctx, req)
	if err != nil {
		return rl.Reply{}, err
	}
	return fromWire(resp), nil
}

// toWire converts the conversation. An assistant message whose calls were
// parsed from its text is sent as that text alone.
func toWire(msgs []rl.Message) []wireMessage {
	out := make([]wireMessage, len(msgs))
	for i, m := range msgs {
		content := m.Content
		w := wireMessage{Role: m.Role, Content: &content, ToolCallID: m.ToolCallID}
		if !m.TextCalls {
			for _, tc := range m.ToolCalls {
				var c wireToolCall
				c.ID, c.Type, c.Function.Name = tc.ID, tc.Type, tc.Function.Name
				c.Function.Arguments, _ = json.Marshal(tc.Function.Arguments)
				w.ToolCalls = append(w.ToolCalls, c)
			}
			if len(w.ToolCalls) > 0 && content == "" {
				w.Content = nil
			}
		}
		out[i] = w
	}
	return out
}

// fromWire reads the first choice, with its token data when present.
func fromWire(resp *ChatResponse) rl.Reply {
	ch := resp.Choices[0]
	msg := rl.Message{Role: rl.RoleAssistant}
	if ch.Message.Content != nil {
		msg.Content = *ch.Message.Content
	}
	if ch.Message.Reasoning != nil {
		msg.ReasoningContent = *ch.Message.Reasoning
	}
	for i, tc := range ch.Message.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		msg.ToolCalls = append(msg.ToolCalls, rl.ToolCall{ID: id, Type: "function",
			Function: rl.FunctionCall{Name: tc.Function.Name, Arguments: argString(tc.Function.Arguments)}})
	}
	reply := rl.Reply{Message: msg}
	tt := &rl.TurnTokens{PromptTokenIDs: resp.PromptTokenIDs, CompletionTokenIDs: ch.TokenIDs, FinishReason: ch.FinishReason}
	if ch.Logprobs != nil {
		for _, c := range ch.Logprobs.Content {
			tt.Logprobs = append(tt.Logprobs, c.Logprob)
			tt.Tokens = append(tt.Tokens, c.Token)
		}
	}
	if tt.PromptTokenIDs != nil || tt.CompletionTokenIDs != nil || tt.Logprobs != nil {
		reply.Tokens = tt
	}
	if resp.Usage != nil {
		reply.Usage = &rl.Usage{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens}
	}
	return reply
}

// argString returns arguments as the JSON string the OpenAI form carries,
// whether the server sent a string (the API) or an object (some servers).
// A string that is not valid JSON is kept as it is: the engine reports it
// to the agent as a format error.
func argString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
