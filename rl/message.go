package rl

import "github.com/wasmenv/wasmenv/internal/chatapi"

// Message is one chat message in OpenAI chat-completions form, as the
// trajectory keeps it (docs/ROLLOUT.md). It is the one chat message type of
// wasmenv (internal/chatapi), shared with rl/openai and synth/llm.
type Message = chatapi.Message

// ToolCall is one call requested by the assistant.
type ToolCall = chatapi.ToolCall

// FunctionCall names a tool and carries its arguments as a JSON string, as
// the OpenAI API does.
type FunctionCall = chatapi.FunctionCall

// Message roles.
const (
	RoleSystem    = chatapi.RoleSystem
	RoleUser      = chatapi.RoleUser
	RoleAssistant = chatapi.RoleAssistant
	RoleTool      = chatapi.RoleTool
)
