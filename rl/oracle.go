package rl

import (
	"context"
	"fmt"
)

// Oracle replays the task's ground-truth calls, one per turn, then answers
// with the task's expected answer (or "Done."). It should score 1.0 on
// every task whose ground truth is right: the ceiling of a run.
type Oracle struct{}

// Act implements Policy.
func (Oracle) Act(_ context.Context, t *Turn) (Reply, error) {
	if t.Task == nil {
		return Reply{}, fmt.Errorf("oracle: rollout has no task")
	}
	made := 0
	for _, m := range t.Messages {
		if m.Role == RoleAssistant {
			made += len(m.ToolCalls)
		}
	}
	if made < len(t.Task.Calls) {
		c := t.Task.Calls[made]
		args := string(c.Arguments)
		if args == "" {
			args = "{}"
		}
		return Reply{Message: Message{Role: RoleAssistant, ToolCalls: []ToolCall{{
			ID: fmt.Sprintf("call_%d", made), Type: "function",
			Function: WrapCall(t.Tools, c.Name, args),
		}}}}, nil
	}
	answer := "Done."
	if a := t.Task.Answer; a != nil {
		if answer = a.Reply(); answer == "" {
			answer = a.Value // a pattern: what the oracle said before rules had Alone
		}
	}
	return Reply{Message: Message{Role: RoleAssistant, Content: answer}}, nil
}
