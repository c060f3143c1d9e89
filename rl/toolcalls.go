package rl

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// ToolFormat says where the engine looks for the agent's tool calls.
type ToolFormat string

const (
	// FormatAuto takes OpenAI tool_calls when the message has them, else
	// parses <tool_call> blocks in the text.
	FormatAuto ToolFormat = "auto"
	// FormatOpenAI takes only the message's tool_calls.
	FormatOpenAI ToolFormat = "openai"
	// FormatHermes parses only <tool_call>{"name":…,"arguments":…}</tool_call>
	// blocks in the text (Hermes, Qwen), for raw completions.
	FormatHermes ToolFormat = "hermes"
)

// ParseToolFormat checks a format name.
func ParseToolFormat(s string) (ToolFormat, error) {
	switch f := ToolFormat(s); f {
	case FormatAuto, FormatOpenAI, FormatHermes:
		return f, nil
	case "":
		return FormatAuto, nil
	}
	return "", fmt.Errorf("unknown tool-call format %q (want auto, openai or hermes)", s)
}

// agentCall is one call the agent asked for; malformed is set when it could
// not be read (the agent's format error, shown to it as the tool result).
type agentCall struct {
	ToolCall
	malformed string
}

var (
	toolCallRE   = regexp.MustCompile(`(?s)<tool_call>(.*?)(?:</tool_call>|$)`)
	toolCallName = regexp.MustCompile(`"name"\s*:\s*"([^"]*)"`)
)

// extractCalls finds the calls in an assistant message and gives each an
// id. Calls parsed from text are also stored in msg.ToolCalls, so the
// trajectory holds them in OpenAI form.
func extractCalls(msg *Message, format ToolFormat, turn int) []agentCall {
	var calls []agentCall
	if format != FormatHermes && len(msg.ToolCalls) > 0 {
		for i := range msg.ToolCalls {
			tc := &msg.ToolCalls[i]
			if tc.ID == "" {
				tc.ID = fmt.Sprintf("call_%d_%d", turn, i)
			}
			if tc.Type == "" {
				tc.Type = "function"
			}
			calls = append(calls, agentCall{ToolCall: *tc})
		}
		return calls
	}
	if format == FormatOpenAI || !strings.Contains(msg.Content, "<tool_call>") {
		return nil
	}
	msg.ToolCalls = nil
	for i, m := range toolCallRE.FindAllStringSubmatch(msg.Content, -1) {
		c := parseTextCall(strings.TrimSpace(m[1]))
		c.ID = fmt.Sprintf("call_%d_%d", turn, i)
		calls = append(calls, c)
		msg.ToolCalls = append(msg.ToolCalls, c.ToolCall)
	}
	msg.TextCalls = len(calls) > 0
	return calls
}

// parseTextCall reads one <tool_call> body: {"name": …, "arguments": {…}}
// (arguments may also be a JSON string, or named "parameters").
func parseTextCall(body string) agentCall {
	c := agentCall{ToolCall: ToolCall{Type: "function"}}
	var v struct {
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil || v.Name == "" {
		if m := toolCallName.FindStringSubmatch(body); m != nil {
			c.Function.Name = m[1]
		}
		c.Function.Arguments = body
		if err != nil {
			c.malformed = fmt.Sprintf("the <tool_call> block is not valid JSON: %v", err)
		} else {
			c.malformed = `the <tool_call> block has no "name"`
		}
		return c
	}
	c.Function.Name = v.Name
	args := v.Arguments
	if len(args) == 0 {
		args = v.Parameters
	}
	c.Function.Arguments = argumentString(args)
	return c
}

// argumentString turns arguments given as an object or as a JSON string
// into the JSON string the OpenAI form carries.
func argumentString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "{}"
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
