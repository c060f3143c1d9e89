package rl

import (
	"encoding/json"
	"fmt"

	"github.com/wasmenv/wasmenv/envpkg"
)

// AWM's two meta-tools: the agent lists the environment's tools, then calls
// them by name, so one prompt format serves every environment.
const (
	MetaListTools = "list_tools"
	MetaCallTool  = "call_tool"
)

var metaTools = []envpkg.OpenAITool{
	{Type: "function", Function: envpkg.OpenAIFunction{
		Name:        MetaListTools,
		Description: "List the tools of this environment with their descriptions and JSON input schemas.",
		Parameters:  json.RawMessage(`{"type":"object","properties":{}}`),
	}},
	{Type: "function", Function: envpkg.OpenAIFunction{
		Name:        MetaCallTool,
		Description: "Call one of the environment's tools by name with its arguments.",
		Parameters: json.RawMessage(`{"type":"object","properties":{` +
			`"tool_name":{"type":"string","description":"the tool to call, as list_tools names it"},` +
			`"arguments":{"description":"the tool's arguments: a JSON object, or a string holding one"}},` +
			`"required":["tool_name"]}`),
	}},
}

// MetaTools returns the two meta-tools in OpenAI form.
func MetaTools() []envpkg.OpenAITool { return append([]envpkg.OpenAITool(nil), metaTools...) }

// unwrapMeta reads a call_tool call's inner tool name and arguments.
func unwrapMeta(args string) (name, inner string, err error) {
	var v struct {
		ToolName  string          `json:"tool_name"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return "", "", fmt.Errorf("arguments for call_tool are not valid JSON: %v", err)
	}
	if v.ToolName == "" {
		v.ToolName = v.Name
	}
	if v.ToolName == "" {
		return "", "", fmt.Errorf("call_tool needs tool_name")
	}
	return v.ToolName, argumentString(v.Arguments), nil
}

// WrapCall returns the call a policy should make for tool name with args:
// the call itself, or call_tool around it when only the meta-tools are on
// offer.
func WrapCall(tools []envpkg.OpenAITool, name, args string) FunctionCall {
	for _, t := range tools {
		if t.Function.Name == name {
			return FunctionCall{Name: name, Arguments: args}
		}
	}
	for _, t := range tools {
		if t.Function.Name == MetaCallTool {
			var inner any = json.RawMessage(args)
			if !json.Valid([]byte(args)) {
				inner = args // passed on as a string; the engine reports it
			}
			b, _ := json.Marshal(map[string]any{"tool_name": name, "arguments": inner})
			return FunctionCall{Name: MetaCallTool, Arguments: string(b)}
		}
	}
	return FunctionCall{Name: name, Arguments: args}
}
