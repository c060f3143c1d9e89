package chatapi

import (
	"encoding/json"
	"fmt"
)

// Request is a chat-completions request. Its JSON is the wire form:
// messages are converted as Message describes.
type Request struct {
	Model    string
	Messages []Message
	// Tools are the offered functions in OpenAI tool form, any slice that
	// marshals to that; nil leaves them out.
	Tools          any
	MaxTokens      int
	Temperature    *float64
	Stop           []string
	ResponseFormat *ResponseFormat
	Logprobs       bool
	// ReturnTokenIDs is vLLM's extension: prompt and completion token ids
	// in the response.
	ReturnTokenIDs bool
}

// MarshalJSON writes the request's wire form.
func (r *Request) MarshalJSON() ([]byte, error) {
	return json.Marshal(wireRequest{Model: r.Model, Messages: toWire(r.Messages), Tools: r.Tools,
		MaxTokens: r.MaxTokens, Temperature: r.Temperature, Stop: r.Stop, ResponseFormat: r.ResponseFormat,
		Logprobs: r.Logprobs, ReturnTokenIDs: r.ReturnTokenIDs})
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

// Response is a chat-completions response, its messages converted as
// Message describes.
type Response struct {
	ID             string
	Model          string
	Choices        []Choice
	Usage          *Usage
	PromptTokenIDs []int // vLLM
}

// Choice is one completion of a response.
type Choice struct {
	Index        int
	Message      Message
	FinishReason string
	Logprobs     *Logprobs
	TokenIDs     []int // vLLM
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

// The wire forms.

type wireRequest struct {
	Model          string          `json:"model"`
	Messages       []wireMessage   `json:"messages"`
	Tools          any             `json:"tools,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	Stop           []string        `json:"stop,omitempty"`
	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`
	Logprobs       bool            `json:"logprobs,omitempty"`
	ReturnTokenIDs bool            `json:"return_token_ids,omitempty"`
}

type wireMessage struct {
	Role string `json:"role"`
	// Content is null in an assistant message that only calls tools.
	Content    *string        `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
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

type wireResponse struct {
	ID      string `json:"id"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int         `json:"index"`
		Message      wireMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
		Logprobs     *Logprobs   `json:"logprobs"`
		TokenIDs     []int       `json:"token_ids"`
	} `json:"choices"`
	Usage          *Usage `json:"usage"`
	PromptTokenIDs []int  `json:"prompt_token_ids"`
}

// errorBody is the OpenAI error shape.
type errorBody struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

// toWire converts messages for a request. Content is always sent, ""
// included, except that an assistant message that calls tools and says
// nothing sends null (as the OpenAI API writes it); a message whose calls
// were parsed from its text sends the text alone.
func toWire(msgs []Message) []wireMessage {
	out := make([]wireMessage, len(msgs))
	for i, m := range msgs {
		content := m.Content
		w := wireMessage{Role: m.Role, Content: &content, ToolCallID: m.ToolCallID, Name: m.Name}
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

// fromWire converts a response. A call without an id gets call_<i>, so
// the tool's answer can refer to it; its type is always "function", the
// only kind of chat-completions tool.
func fromWire(w *wireResponse) *Response {
	out := &Response{ID: w.ID, Model: w.Model, Usage: w.Usage, PromptTokenIDs: w.PromptTokenIDs}
	for _, ch := range w.Choices {
		m := Message{Role: ch.Message.Role, ToolCallID: ch.Message.ToolCallID, Name: ch.Message.Name}
		if ch.Message.Content != nil {
			m.Content = *ch.Message.Content
		}
		if ch.Message.Reasoning != nil {
			m.ReasoningContent = *ch.Message.Reasoning
		}
		for i, tc := range ch.Message.ToolCalls {
			id := tc.ID
			if id == "" {
				id = fmt.Sprintf("call_%d", i)
			}
			m.ToolCalls = append(m.ToolCalls, ToolCall{ID: id, Type: "function",
				Function: FunctionCall{Name: tc.Function.Name, Arguments: argumentString(tc.Function.Arguments)}})
		}
		out.Choices = append(out.Choices, Choice{Index: ch.Index, Message: m, FinishReason: ch.FinishReason,
			Logprobs: ch.Logprobs, TokenIDs: ch.TokenIDs})
	}
	return out
}

// argumentString returns arguments as the JSON string the OpenAI form
// carries, whether the server sent a string (the API) or an object (some
// servers); "" when absent. A string that is not valid JSON is kept as it
// is, for the caller to report.
func argumentString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
