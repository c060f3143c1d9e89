package serve

import (
	"encoding/json"
	"strings"

	"github.com/wasmenv/wasmenv/runtime"
)

// OpenEnv's ToolErrorType (openenv.core.env_server.mcp_types): failures of
// the framework go in a CallToolObservation's error as {error_type,
// message}; what the tool itself returned, its errors included, goes in
// result.
const (
	oeToolNotFound   = "tool_not_found"
	oeInvalidArgs    = "invalid_args"
	oeTimeout        = "timeout"
	oeExecutionError = "execution_error"
	oeTransportError = "transport_error"
)

// oeErrorTypes lists every error_type, for /schema.
var oeErrorTypes = []string{oeExecutionError, oeInvalidArgs, oeTransportError, oeToolNotFound, oeTimeout}

// oeToolError is OpenEnv's ToolError.
type oeToolError struct {
	ErrorType string `json:"error_type"`
	Message   string `json:"message"`
}

// oeErrorFor maps a call's outcome to OpenEnv's error, nil when the
// result (a tool's answer or its business error) goes in result.
func oeErrorFor(res runtime.Result) *oeToolError {
	var t string
	switch res.Outcome {
	case runtime.OutcomeOK, runtime.OutcomeToolError, "":
		return nil
	case runtime.OutcomeUnknownTool:
		t = oeToolNotFound
	case runtime.OutcomeInvalidArgs:
		t = oeInvalidArgs
	case runtime.OutcomeTimeout:
		t = oeTimeout
	default: // trap, out of memory, refused SQL, quotas: the environment failed
		t = oeExecutionError
	}
	return &oeToolError{ErrorType: t, Message: strings.TrimPrefix(res.Content, "Error: ")}
}

// Result formats of a call_tool observation's result.
const (
	resultMCP  = "mcp"  // the MCP call result object, as OpenEnv's MCP environments send it (default)
	resultText = "text" // the bare text the agent sees
)

// validResultFormat reports whether f names a result format ("" is the default).
func validResultFormat(f string) bool { return f == "" || f == resultMCP || f == resultText }

// oeCallResult is an MCP CallToolResult as OpenEnv's MCPEnvironment puts it
// in result (FastMCP's CallToolResult, serialized): the text content, the
// structured content when the tool returned a JSON object, the decoded
// value in data, and is_error for a tool's own error.
type oeCallResult struct {
	Content           []oeTextContent `json:"content"`
	StructuredContent map[string]any  `json:"structured_content"`
	Meta              map[string]any  `json:"meta"`
	Data              any             `json:"data"`
	IsError           bool            `json:"is_error"`
}

type oeTextContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// oeResultOf shapes a call's result in the given format.
func oeResultOf(res runtime.Result, format string) any {
	if format == resultText {
		return res.Content
	}
	r := oeCallResult{Content: []oeTextContent{{Type: "text", Text: res.Content}}, Data: res.Content, IsError: res.IsError}
	if !res.IsError {
		var v any
		dec := json.NewDecoder(strings.NewReader(res.Content))
		dec.UseNumber() // ids and amounts keep every digit
		if err := dec.Decode(&v); err == nil && !dec.More() {
			r.Data = v
			if obj, ok := v.(map[string]any); ok {
				r.StructuredContent = obj
			}
		}
	}
	return r
}
