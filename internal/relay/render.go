package relay

import (
	"encoding/json"
	"fmt"
	"strings"
)

// chatRequest is what the relay reads of a request.
type chatRequest struct {
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name string `json:"name"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}

func (cr chatRequest) promptBytes() int {
	n := 0
	for _, m := range cr.Messages {
		n += len(text(m.Content))
		for _, c := range m.ToolCalls {
			n += len(c.Function.Name) + len(c.Function.Arguments)
		}
	}
	return n
}

// summary is one line: the format asked for, the tools, the last message's start.
func (cr chatRequest) summary() string {
	last := cr.Messages[len(cr.Messages)-1]
	s := strings.Join(strings.Fields(text(last.Content)), " ")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return fmt.Sprintf("%d messages, %d tools, format %s, last %s: %s", len(cr.Messages), len(cr.Tools), cr.format(), last.Role, s)
}

func (cr chatRequest) format() string {
	switch {
	case cr.ResponseFormat == nil:
		return "text"
	case cr.ResponseFormat.JSONSchema != nil:
		return "json_schema " + cr.ResponseFormat.JSONSchema.Name
	default:
		return cr.ResponseFormat.Type
	}
}

// render is the prompt as a reader sees it.
func (cr chatRequest) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# format: %s\n", cr.format())
	if len(cr.Tools) > 0 {
		b.WriteString("# tools (answer with .answer.json {\"content\":..., \"tool_calls\":[{\"name\":...,\"arguments\":{...}}]}):\n")
		for _, t := range cr.Tools {
			fmt.Fprintf(&b, "- %s: %s\n  params: %s\n", t.Function.Name, t.Function.Description, t.Function.Parameters)
		}
	}
	for _, m := range cr.Messages {
		fmt.Fprintf(&b, "\n## %s", m.Role)
		if m.ToolCallID != "" {
			fmt.Fprintf(&b, " (%s)", m.ToolCallID)
		}
		b.WriteString("\n")
		b.WriteString(text(m.Content))
		b.WriteString("\n")
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "-> call %s %s\n", c.Function.Name, c.Function.Arguments)
		}
	}
	return b.String()
}
