package rl

import (
	"fmt"
	"unicode/utf8"
)

// Limits bound what a model (or a failing server) can make the engine
// hold for one rollout. Without them one answer with 100,000 tool calls,
// or ten 10 MB answers, held gigabytes per rollout, times the rollouts in
// flight. Zero fields take the defaults below; docs/ROLLOUT.md lists them.
type Limits struct {
	// CallsPerTurn caps the tool calls of one assistant message (default
	// 64). A message with more ends the rollout (finish max_calls_per_turn,
	// a format error): none of its calls runs.
	CallsPerTurn int
	// MessageBytes caps one assistant message: content, reasoning and the
	// calls' names and arguments (default 1 MiB). A larger message ends the
	// rollout (finish max_message_bytes, a format error); the trajectory
	// keeps its content cut to this size and no calls.
	MessageBytes int
	// ConversationBytes caps the conversation sent back to the policy
	// (default 8 MiB). Past it the rollout ends before the next request
	// (finish max_conversation_bytes, a budget like max_turns).
	ConversationBytes int
	// ErrorBytes caps error text kept in a trajectory: policy_error and an
	// environment error shown to the agent (default 4 KiB).
	ErrorBytes int
}

// Default limits.
const (
	DefaultCallsPerTurn      = 64
	DefaultMessageBytes      = 1 << 20
	DefaultConversationBytes = 8 << 20
	DefaultErrorBytes        = 4 << 10
)

func (l *Limits) defaults() error {
	if l.CallsPerTurn == 0 {
		l.CallsPerTurn = DefaultCallsPerTurn
	}
	if l.MessageBytes == 0 {
		l.MessageBytes = DefaultMessageBytes
	}
	if l.ConversationBytes == 0 {
		l.ConversationBytes = DefaultConversationBytes
	}
	if l.ErrorBytes == 0 {
		l.ErrorBytes = DefaultErrorBytes
	}
	if l.CallsPerTurn < 1 || l.MessageBytes < 1 || l.ConversationBytes < 1 || l.ErrorBytes < 1 {
		return fmt.Errorf("limits %+v: want each at least 1 (0: the default)", *l)
	}
	return nil
}

// messageBytes is what a message costs the conversation.
func messageBytes(m *Message) int {
	n := len(m.Role) + len(m.Content) + len(m.ReasoningContent) + len(m.ToolCallID)
	for _, c := range m.ToolCalls {
		n += len(c.ID) + len(c.Type) + len(c.Function.Name) + len(c.Function.Arguments)
	}
	return n
}

// clip cuts s to at most n bytes on a character boundary and says so.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf(" […cut: %d of %d bytes kept]", cut, len(s))
}
