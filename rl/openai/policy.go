package openai

import (
	"context"

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
	req := &ChatRequest{Model: p.Model, Messages: t.Messages, Temperature: p.Temperature,
		MaxTokens: p.MaxTokens, Logprobs: true, ReturnTokenIDs: true}
	if !p.NoTools && len(t.Tools) > 0 { // a nil slice in the interface would send "tools": null
		req.Tools = t.Tools
	}
	if t.MaxTokens > 0 && (req.MaxTokens == 0 || t.MaxTokens < req.MaxTokens) {
		req.MaxTokens = t.MaxTokens
	}
	resp, err := p.Client.Chat(ctx, req)
	if err != nil {
		return rl.Reply{}, err
	}
	return toReply(resp), nil
}

// toReply reads the first choice, with its token data when present.
func toReply(resp *ChatResponse) rl.Reply {
	ch := resp.Choices[0]
	msg := ch.Message
	msg.Role = rl.RoleAssistant
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
