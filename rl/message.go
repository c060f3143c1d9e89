package rl

// Message is one chat message in OpenAI chat-completions form.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// ReasoningContent is a reasoning model's thinking, when the server
	// returns it apart from the content (vLLM's reasoning parsers). It is
	// kept in the trajectory and not sent back to the server.
	ReasoningContent string `json:"reasoning_content,omitempty"`

	// TextCalls marks an assistant message whose calls were parsed from
	// <tool_call> text in Content: a policy sending the conversation back
	// should send Content alone, since the model's chat template would
	// otherwise render the calls twice.
	TextCalls bool `json:"-"`
}

// ToolCall is one call requested by the assistant.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names a tool and carries its arguments as a JSON string, as
// the OpenAI API does.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message roles.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)
