package rl

import "github.com/wasmenv/wasmenv/runtime"

// fault says whose fault a failed call was.
type fault int

const (
	faultNone  fault = iota
	faultAgent       // unknown tool, malformed or schema-invalid arguments
	faultEnv         // timeout, trap, out of memory, refused SQL
)

// classify reads a tool result's typed outcome. A tool error (a business
// rule the agent broke) is neither fault: it is an ordinary observation.
func classify(r runtime.Result) fault {
	switch {
	case r.Outcome.AgentFault():
		return faultAgent
	case r.Outcome.EnvFault():
		return faultEnv
	}
	return faultNone
}
