package arena

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// Record is what the arena reads of one rollout: the fields of a rollout
// JSONL line (docs/ROLLOUT.md) that diagnosis needs. Unknown fields are
// ignored, so files from newer writers still read.
type Record struct {
	Env          string                `json:"env"`
	EnvHash      string                `json:"env_hash"`
	Task         string                `json:"task"`
	Seed         int64                 `json:"seed"`
	Messages     []Message             `json:"messages"`
	Reward       float64               `json:"reward"`
	Turns        int                   `json:"turns"`
	ToolCalls    int                   `json:"tool_calls"`
	FormatErrors int                   `json:"format_errors"`
	EnvError     bool                  `json:"env_error"`
	Finish       string                `json:"finish"`
	Answer       *string               `json:"answer,omitempty"`
	Checks       []runtime.CheckResult `json:"checks"`
	Usage        *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage,omitempty"`
}

// Message is one chat message of a record.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is one call an assistant message asked for.
type ToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// Succeeded reports whether every check passed (the binary reward).
func (r *Record) Succeeded() bool {
	if len(r.Checks) == 0 {
		return false
	}
	for _, c := range r.Checks {
		if !c.Passed {
			return false
		}
	}
	return true
}

// Calls lists the tool calls the rollout ran, in order: those answered by
// a tool message. A call the engine never ran (the rest of a message past
// the calls-per-turn limit, a message cut for size) has no answer and is
// left out, so replay runs exactly what the rollout ran.
func (r *Record) Calls() []ToolCall {
	answered := map[string]int{}
	for _, m := range r.Messages {
		if m.Role == "tool" {
			answered[m.ToolCallID]++
		}
	}
	var out []ToolCall
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, c := range m.ToolCalls {
			if answered[c.ID] > 0 {
				answered[c.ID]--
				out = append(out, c)
			}
		}
	}
	return out
}

// ReadRecords reads a rollout file in any form wasmenv writes (compact,
// with toolset records, or whole lines; rl.ReadRollouts restores the full
// view). A malformed record is an error naming it.
func ReadRecords(r io.Reader) ([]Record, error) {
	var out []Record
	n := 0
	err := rl.ReadRollouts(r, func(ro *rl.Rollout) error {
		n++
		b, err := json.Marshal(ro)
		if err != nil {
			return err
		}
		var rec Record
		if err := json.Unmarshal(b, &rec); err != nil {
			return fmt.Errorf("rollout %d: %w", n, err)
		}
		if rec.Env == "" || rec.Task == "" {
			return fmt.Errorf("rollout %d: not a rollout (no env or task)", n)
		}
		out = append(out, rec)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rollouts: %w", err)
	}
	return out, nil
}
