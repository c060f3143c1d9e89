package rl

import (
	"context"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Policy decides the agent's next turn. Act is called from many goroutines
// at once (one per rollout in flight) and must be safe for that; it must
// return promptly once ctx is done.
type Policy interface {
	Act(ctx context.Context, s *Turn) (Reply, error)
}

// Turn is what a policy sees: the conversation so far and the tools on offer.
type Turn struct {
	Env      string
	Task     *envpkg.Task // for baselines (oracle); a model must not read it
	Seed     int64
	Index    int       // the rollout's index in its group
	Number   int       // this turn's number, from 0
	Messages []Message // the conversation so far; read it, do not modify it
	Tools    []envpkg.OpenAITool
	// MaxTokens is what is left of the rollout's completion-token budget
	// (0: no budget).
	MaxTokens int
}

// Reply is a policy's answer: an assistant message with the token data the
// server returned, if any.
type Reply struct {
	Message Message
	Tokens  *TurnTokens
	Usage   *Usage
}

// TurnTokens is one assistant turn's token data. Lists the server did not
// return stay nil.
type TurnTokens struct {
	Message            int       `json:"message"`
	PromptTokenIDs     []int     `json:"prompt_token_ids,omitempty"`
	CompletionTokenIDs []int     `json:"completion_token_ids,omitempty"`
	Logprobs           []float64 `json:"logprobs,omitempty"`
	Tokens             []string  `json:"tokens,omitempty"`
	FinishReason       string    `json:"finish_reason,omitempty"`
}

// Usage counts tokens as the OpenAI API reports them.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

func (u *Usage) add(v *Usage) {
	if v != nil {
		u.PromptTokens += v.PromptTokens
		u.CompletionTokens += v.CompletionTokens
	}
}
