package chatapi

import "encoding/json"

// Request is a chat-completions request body.
type Request struct {
	Model    string    `json:"model"`
	Messages []Message `json:"messages"`
	// Tools are the offered functions in OpenAI tool form, any slice that
	// marshals to that; nil leaves them out.
	Tools          any             `json:"tools,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	Stop           []string        `json:"stop,omitempty"`
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
	Logprobs       bool            `json:"logprobs,omitempty"`
	// ReturnTokenIDs is vLLM's extension: prompt and completion token ids
	// in the response.
	ReturnTokenIDs bool `json:"return_token_ids,omitempty"`
}

// ResponseFormat asks for JSON output: type "json_schema" (structured
// outputs, with JSONSchema) or "json_object" (JSON mode).
type ResponseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is the schema of structured outputs.
type JSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Strict bool            `json:"strict"`
}

// Message is one chat message, sent or received.
type Message struct {
	Role string `json:"role"`
	// Content is null in an assistant message that only calls tools.
	Content    *string    `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Name       string     `json:"name,omitempty"`
	// Reasoning comes back from reasoning models; it is never sent.
	Reasoning *string `json:"reasoning_content,omitempty"`
}

// Text is the content, "" when null.
func (m *Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// ToolCall is a function call requested by the model.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
}

// FunctionCall names the function and its arguments.
type FunctionCall struct {
	Name string `json:"name"`
	// Arguments is a JSON string in the OpenAI API; some servers send an
	// object.
	Arguments json.RawMessage `json:"arguments"`
}

// ArgumentString returns the arguments as the JSON string the OpenAI form
// carries, whether the server sent a string (the API) or an object (some
// servers); "" when absent. A string that is not valid JSON is kept as it
// is, for the caller to report.
func (f FunctionCall) ArgumentString() string {
	if len(f.Arguments) == 0 || string(f.Arguments) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(f.Arguments, &s) == nil {
		return s
	}
	return string(f.Arguments)
}

// StringArguments encodes arguments given as a JSON string for the wire.
func StringArguments(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// Response is a chat-completions response body.
type Response struct {
	ID             string   `json:"id"`
	Model          string   `json:"model"`
	Choices        []Choice `json:"choices"`
	Usage          *Usage   `json:"usage"`
	PromptTokenIDs []int    `json:"prompt_token_ids"` // vLLM
}

// Choice is one completion of a response.
type Choice struct {
	Index        int       `json:"index"`
	Message      Message   `json:"message"`
	FinishReason string    `json:"finish_reason"`
	Logprobs     *Logprobs `json:"logprobs"`
	TokenIDs     []int     `json:"token_ids"` // vLLM
}

// Logprobs are the sampled tokens' log probabilities.
type Logprobs struct {
	Content []TokenLogprob `json:"content"`
}

// TokenLogprob is one sampled token and its log probability.
type TokenLogprob struct {
	Token   string  `json:"token"`
	Logprob float64 `json:"logprob"`
}

// Usage is token accounting as the server reports it.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// errorBody is the OpenAI error shape.
type errorBody struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}
