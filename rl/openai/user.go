package openai

import (
	"context"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
)

// User is a simulated customer played by a chat model (τ-bench's user
// simulator): it holds the task's instruction and persona, sees the agent's
// words as the other side of the conversation, and says the stop token
// when its request is done.
type User struct {
	Client      *Client
	Model       string
	Temperature *float64
	Stop        string // rl.DefaultStopToken when empty
}

// userPrompt is the simulated user's system prompt.
const userPrompt = `You are a customer talking to a customer-support agent. Play the user described below; do not act as the agent.

Your request:
%s
%s
Rules:
- Write one short message at a time, as this user would.
- Give the information the agent asks for only when it is part of your request; do not invent other details.
- Do not reveal the whole request at once unless the agent asks.
- When your request is fully handled, or cannot be, reply with %s alone.`

// Reply implements rl.User.
func (u *User) Reply(ctx context.Context, task *envpkg.Task, convo []rl.Message) (string, error) {
	stop := u.Stop
	if stop == "" {
		stop = rl.DefaultStopToken
	}
	persona := ""
	if task.Persona != "" {
		persona = "\nWho you are:\n" + task.Persona + "\n"
	}
	sys := fmt.Sprintf(userPrompt, task.Instruction, persona, stop)
	// The user's own lines are its assistant turns; the agent's visible
	// words are its user turns. Tool traffic is not shown to the user.
	msgs := []rl.Message{{Role: rl.RoleSystem, Content: sys}}
	for _, m := range convo {
		switch {
		case m.Role == rl.RoleUser:
			msgs = append(msgs, rl.Message{Role: rl.RoleAssistant, Content: m.Content})
		case m.Role == rl.RoleAssistant && strings.TrimSpace(m.Content) != "" && len(m.ToolCalls) == 0:
			msgs = append(msgs, rl.Message{Role: rl.RoleUser, Content: m.Content})
		}
	}
	if len(msgs) == 1 {
		msgs = append(msgs, rl.Message{Role: rl.RoleUser, Content: "Hi! How can I help you today?"})
	}
	resp, err := u.Client.Chat(ctx, &ChatRequest{Model: u.Model, Messages: msgs, Temperature: u.Temperature})
	if err != nil {
		return "", err
	}
	c := resp.Choices[0].Message.Content
	if strings.TrimSpace(c) == "" {
		return "", fmt.Errorf("simulated user: empty reply")
	}
	return c, nil
}
