package rl

import (
	"context"

	"github.com/wasmenv/wasmenv/envpkg"
)

// DefaultStopToken ends a conversation when the simulated user says it
// (τ-bench's convention).
const DefaultStopToken = "###STOP###"

// User plays the customer in a conversational task: it holds the task's
// instruction and persona and talks to the agent until it sends the stop
// token. Reply is called from many goroutines at once.
type User interface {
	// Reply returns the user's next message. convo is the conversation as
	// the agent sees it, without the system prompt; on the first call it is
	// empty and the user opens the conversation.
	Reply(ctx context.Context, task *envpkg.Task, convo []Message) (string, error)
}

// ScriptedUser says Lines in order, then the stop token. With no Lines it
// opens with the task's instruction and then stops: a deterministic user
// for tests and for tasks whose instruction is the whole request.
type ScriptedUser struct {
	Lines []string
	Stop  string // DefaultStopToken when empty
}

// Reply implements User.
func (u ScriptedUser) Reply(_ context.Context, task *envpkg.Task, convo []Message) (string, error) {
	said := 0
	for _, m := range convo {
		if m.Role == RoleUser {
			said++
		}
	}
	lines := u.Lines
	if len(lines) == 0 {
		lines = []string{task.Instruction}
	}
	if said < len(lines) {
		return lines[said], nil
	}
	stop := u.Stop
	if stop == "" {
		stop = DefaultStopToken
	}
	return stop, nil
}
