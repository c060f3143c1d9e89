package chatapi

import (
	"encoding/json"
	"testing"
)

// The wire form: null content for an assistant message that only calls
// tools, arguments as a JSON string, text calls sent as text alone, no
// reasoning sent back.
func TestRequestWireForm(t *testing.T) {
	req := &Request{Model: "m", Messages: []Message{
		{Role: RoleUser, Content: ""},
		{Role: RoleAssistant, ReasoningContent: "think", ToolCalls: []ToolCall{{ID: "c1", Type: "function",
			Function: FunctionCall{Name: "f", Arguments: `{"a":1}`}}}},
		{Role: RoleAssistant, Content: "<tool_call>x</tool_call>", TextCalls: true, ToolCalls: []ToolCall{{ID: "c2"}}},
		{Role: RoleTool, Content: "ok", ToolCallID: "c1"},
	}}
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"model":"m","messages":[{"role":"user","content":""},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},` +
		`{"role":"assistant","content":"\u003ctool_call\u003ex\u003c/tool_call\u003e"},` +
		`{"role":"tool","content":"ok","tool_call_id":"c1"}]}`
	if string(b) != want {
		t.Errorf("wire form\n got %s\nwant %s", b, want)
	}
}

// Arguments may come as a string (the API) or an object (some servers); a
// call with no id gets one.
func TestResponseFromWire(t *testing.T) {
	raw := `{"id":"r","choices":[{"index":0,"finish_reason":"tool_calls","token_ids":[5],
		"message":{"role":"assistant","content":null,"reasoning_content":"hm","tool_calls":[
		{"id":"","type":"","function":{"name":"f","arguments":{"b":2}}},
		{"id":"x","type":"function","function":{"name":"g","arguments":"{\"c\":3}"}},
		{"id":"y","type":"function","function":{"name":"h","arguments":null}}]}}],
		"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3},"prompt_token_ids":[1,2]}`
	var w wireResponse
	if err := json.Unmarshal([]byte(raw), &w); err != nil {
		t.Fatal(err)
	}
	r := fromWire(&w)
	m := r.Choices[0].Message
	if m.Content != "" || m.ReasoningContent != "hm" || len(m.ToolCalls) != 3 {
		t.Fatalf("message %+v", m)
	}
	if c := m.ToolCalls[0]; c.ID != "call_0" || c.Type != "function" || c.Function.Arguments != `{"b":2}` {
		t.Errorf("object arguments: %+v", c)
	}
	if c := m.ToolCalls[1]; c.ID != "x" || c.Function.Arguments != `{"c":3}` {
		t.Errorf("string arguments: %+v", c)
	}
	if c := m.ToolCalls[2]; c.Function.Arguments != "" {
		t.Errorf("null arguments: %+v", c)
	}
	if r.Usage.TotalTokens != 3 || len(r.PromptTokenIDs) != 2 || r.Choices[0].TokenIDs[0] != 5 || r.Choices[0].FinishReason != "tool_calls" {
		t.Errorf("response %+v", r)
	}
}
