package chatapi

// Message is one chat message as wasmenv keeps it: in a rollout's
// trajectory (rl.Message is this type, and its JSON is the trajectory
// format of docs/ROLLOUT.md), in a synthesis conversation, and in a
// Request or a Response. Content is plain text ("" when the model only
// called tools); the Client converts to and from the wire's forms (null
// content, arguments as a string or an object).
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	// Name is the optional participant name of the OpenAI API.
	Name string `json:"name,omitempty"`
	// ReasoningContent is a reasoning model's thinking, when the server
	// returns it apart from the content (vLLM's reasoning parsers). It is
	// kept and never sent back to the server.
	ReasoningContent string `json:"reasoning_content,omitempty"`

	// TextCalls marks an assistant message whose calls were parsed from
	// <tool_call> text in Content: it is sent back as Content alone, since
	// the model's chat template would otherwise render the calls twice.
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
