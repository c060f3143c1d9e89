package arena

import (
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Cause is the root-cause category of one failed rollout.
type Cause string

// The taxonomy of Agent-World's diagnosis, made procedural. classify takes
// the first that applies, walking the agent's calls against the task's
// ground-truth chain.
const (
	CauseStepLimit       Cause = "step_limit"       // a budget ran out: turns, tokens, conversation or message size
	CauseWrongTool       Cause = "wrong_tool"       // at the first divergence the agent called another tool
	CauseBadArguments    Cause = "bad_arguments"    // the right tool with wrong or invalid arguments
	CauseMissingLookup   Cause = "missing_lookup"   // a later step of the chain without the lookup before it
	CauseRuleViolation   Cause = "rule_violation"   // the diverging call hit a business rule (tool error)
	CausePrematureFinish Cause = "premature_finish" // answered before the chain was done
	CauseWrongAnswer     Cause = "wrong_answer"     // the whole chain ran, the answer check failed
	CauseExtraChange     Cause = "extra_change"     // the whole chain ran, then calls that left the state wrong
)

// Causes lists the taxonomy in order, for validation and display.
var Causes = []Cause{CauseStepLimit, CauseWrongTool, CauseBadArguments, CauseMissingLookup,
	CauseRuleViolation, CausePrematureFinish, CauseWrongAnswer, CauseExtraChange}

// classify names the cause of one failed rollout. Ground truth is one
// valid order of calls; an agent that reaches the same state another way
// passes its checks and is never classified, so the walk only has to
// explain failures.
func classify(rec *Record, task *envpkg.Task, calls []ToolCall, outcomes []string) Failure {
	f := Failure{Env: rec.Env, Task: rec.Task, Seed: rec.Seed, Finish: rec.Finish,
		Steps: len(calls), ChainLen: len(task.Calls)}
	for _, c := range rec.Checks {
		if !c.Passed {
			f.Checks = append(f.Checks, c.Name)
		}
	}
	// Walk: skip the agent's repeated reads of what the chain already did
	// (a call equal to an earlier ground-truth call), and match in order.
	k := 0
	div := -1
	for j, c := range calls {
		if k < len(task.Calls) && sameCall(c, task.Calls[k]) && outcomes[j] == string(runtime.OutcomeOK) {
			k++
			continue
		}
		if repeatsDone(c, task.Calls[:k]) {
			continue
		}
		div = j
		break
	}
	f.DivergeAt = k
	if k < len(task.Calls) {
		f.Expected = task.Calls[k].Name
	}
	switch {
	case budgetFinish[rec.Finish]:
		f.Cause = CauseStepLimit
	case div >= 0 && k < len(task.Calls):
		c, gt := calls[div], task.Calls[k]
		f.Called, f.Outcome = c.Function.Name, outcomes[div]
		switch {
		case f.Outcome == string(runtime.OutcomeToolError) && c.Function.Name == gt.Name:
			f.Cause = CauseRuleViolation
		case c.Function.Name == gt.Name:
			f.Cause = CauseBadArguments
		case later(c.Function.Name, task.Calls[k+1:]):
			f.Cause = CauseMissingLookup
		default:
			f.Cause = CauseWrongTool
		}
	case k < len(task.Calls):
		f.Cause = CausePrematureFinish
	case div >= 0 && failedBeyondAnswer(rec):
		f.Called, f.Outcome = calls[div].Function.Name, outcomes[div]
		f.Cause = CauseExtraChange
	default:
		f.Cause = CauseWrongAnswer
	}
	return f
}

// budgetFinish are the finishes where a budget of the rollout ran out:
// turns, tokens, conversation bytes, and the agent's runaway output (more
// calls in one message, or a larger message, than the engine takes).
var budgetFinish = map[string]bool{
	"max_turns": true, "max_tokens": true, "max_conversation_bytes": true,
	"max_calls_per_turn": true, "max_message_bytes": true,
}

// notTheAgents are finishes that say nothing about the agent: the policy
// endpoint failed, or the run was cancelled. Such rollouts are counted
// apart, as environment faults are, and never diagnosed.
var notTheAgents = map[string]bool{"policy_error": true, "cancelled": true, "env_error": true}

// failedBeyondAnswer reports whether a check other than the answer check
// failed: the state is wrong, not only the answer.
func failedBeyondAnswer(rec *Record) bool {
	for _, c := range rec.Checks {
		if !c.Passed && !strings.HasPrefix(c.Name, runtime.AnswerCheckPrefix) {
			return true
		}
	}
	return false
}

func repeatsDone(c ToolCall, done []envpkg.Call) bool {
	for _, gt := range done {
		if sameCall(c, gt) {
			return true
		}
	}
	return false
}

func later(name string, rest []envpkg.Call) bool {
	for _, gt := range rest {
		if gt.Name == name {
			return true
		}
	}
	return false
}
