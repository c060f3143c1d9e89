package rl

import (
	"strings"

	"github.com/wasmenv/wasmenv/runtime"
)

// fault says whose fault a failed call was.
type fault int

const (
	faultNone  fault = iota
	faultAgent       // unknown tool, malformed or schema-invalid arguments
	faultEnv         // timeout, trap, out of memory, refused SQL
)

// classify reads a tool result's outcome. A tool error (a business rule the
// agent broke) is neither: it is an ordinary observation.
func classify(r runtime.Result) fault {
	if !r.IsError {
		return faultNone
	}
	// Until runtime.Result carries its Outcome, the runtime's own messages
	// tell the kinds apart.
	c := r.Content
	switch {
	case strings.HasPrefix(c, "Error: unknown tool"),
		strings.HasPrefix(c, "Error: invalid arguments for"),
		strings.HasPrefix(c, "Error: arguments for"):
		return faultAgent
	case strings.HasPrefix(c, "Error: tool call was cancelled"),
		strings.Contains(c, "time limit"), strings.Contains(c, "out of memory"),
		strings.Contains(c, "wasm error"), strings.Contains(c, "panic"):
		return faultEnv
	}
	return faultNone
}
