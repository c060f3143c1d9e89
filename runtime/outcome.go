package runtime

import (
	"errors"
	"fmt"
)

// Outcome says what happened in a tool call, so that a trainer can tell an
// agent's mistake from an environment's failure without parsing text.
type Outcome string

const (
	OutcomeOK          Outcome = "ok"            // the tool returned a result
	OutcomeToolError   Outcome = "tool_error"    // the tool returned an error (a business rule); agent-visible
	OutcomeUnknownTool Outcome = "unknown_tool"  // agent's fault: no such tool
	OutcomeInvalidArgs Outcome = "invalid_args"  // agent's fault: malformed JSON or a schema failure
	OutcomeTimeout     Outcome = "timeout"       // environment: call deadline or cancellation
	OutcomeOutOfMemory Outcome = "out_of_memory" // environment: the guest ran out of memory
	OutcomeTrap        Outcome = "trap"          // environment: panic, wasm trap, runtime error, oversized output
	OutcomeRefusedSQL  Outcome = "refused_sql"   // environment: tool code issued SQL the sandbox forbids
	OutcomeQuota       Outcome = "quota"         // agent's doing: the call would take the episode past its write budget
)

// AgentFault reports whether the agent caused the outcome (a tool it does
// not have, arguments that do not fit the tool's schema).
func (o Outcome) AgentFault() bool {
	return o == OutcomeUnknownTool || o == OutcomeInvalidArgs || o == OutcomeQuota
}

// EnvFault reports whether the environment failed: the call says nothing
// about the agent. A tool error is neither: it is the tool's answer.
func (o Outcome) EnvFault() bool {
	switch o {
	case OutcomeOK, OutcomeToolError, OutcomeUnknownTool, OutcomeInvalidArgs, OutcomeQuota, "":
		return false
	}
	return true
}

// ErrClosed is returned for a call on a closed episode or environment.
var ErrClosed = errors.New("runtime: episode closed")

// failed is the one constructor of an error result: the agent sees
// "Error: " and the message, the trainer sees the outcome.
func failed(o Outcome, format string, args ...any) Result {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return Result{Content: "Error: " + msg, IsError: true, Outcome: o}
}
