package openai

import (
	"encoding/json"

	"github.com/wasmenv/wasmenv/envpkg"
)

// ChatRequest is a chat-completions request body.
type ChatRequest struct {
	Model       string              `json:"model"`
	Messages    []wireMessage       `json:"messages"`
	Tools       []envpkg.OpenAITool `json:"tools,omitempty"`
	MaxTokens   int                 `json:"max_tokens,omitempty"`
	Temperature *float64            `json:"temperature,omitempty"`
	Stop        []string            `json:"stop,omitempty"`
	Logprobs    bool                `json:"logprobs,omitempty"`
	// ReturnTokenIDs is vLLM's extension: prompt and completion token ids
	// in the response.
	ReturnTokenIDs bool `json:"return_token_ids,omitempty"`
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    *string        `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	// Reasoning comes back from reasoning models; it is never sent.
	Reasoning *string `json:"reasoning_content,omitempty"`
}

type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a JSON string in the OpenAI API; some servers send
		// an object.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// ChatResponse is a chat-completions response body.
type ChatResponse struct {
	ID             string       `json:"id"`
	Model          string       `json:"model"`
	Choices        []wireChoice `json:"choices"`
	Usage          *wireUsage   `json:"usage"`
	PromptTokenIDs []int        `json:"prompt_token_ids"` // vLLM
}

type wireChoice struct {
	Index        int         `json:"index"`
	Message      wireMessage `json:"message"`
	FinishReason string      `json:"finish_reason"`
	Logprobs     *struct {
		Content []struct {
			Token   string  `json:"token"`
			Logprob float64 `json:"logprob"`
		} `json:"content"`
	} `json:"logprobs"`
	TokenIDs []int `json:"token_ids"` // vLLM
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

type wireError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}
