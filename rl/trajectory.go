package rl

import (
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Rollout is one finished trajectory as a trainer reads it: one JSONL line
// (docs/ROLLOUT.md is the contract; fields are never renamed). The engine
// keeps its own working state beside it (rollout); this type is the record.
type Rollout struct {
	Env              string                `json:"env"`
	EnvHash          string                `json:"env_hash"`
	Task             string                `json:"task"`
	GroupID          string                `json:"group"` // "<env>/<task>/<base seed>"; Config.Group is the group's size
	Index            int                   `json:"index"`
	Seed             int64                 `json:"seed"`
	Messages         []Message             `json:"messages"`
	Tools            []envpkg.OpenAITool   `json:"tools,omitempty"` // absent from compact lines (Toolset)
	Reward           float64               `json:"reward"`
	RewardComponents map[string]float64    `json:"reward_components"`
	Advantage        float64               `json:"advantage"`
	Turns            int                   `json:"turns"`
	ToolCalls        int                   `json:"tool_calls"`
	FormatError      bool                  `json:"format_error"`
	FormatErrors     int                   `json:"format_errors"`
	EnvError         bool                  `json:"env_error"`
	PolicyError      string                `json:"policy_error,omitempty"`
	Finish           Finish                `json:"finish"`
	Answer           *string               `json:"answer,omitempty"`
	Checks           []runtime.CheckResult `json:"checks"`
	StateHash        string                `json:"state_hash"`
	TurnTokens       []TurnTokens          `json:"turn_tokens,omitempty"`
	Usage            *Usage                `json:"usage,omitempty"`
	Window           *Window               `json:"window,omitempty"`
}

// rollout is the engine's working state of one rollout: the record being
// filled, and what rewards and the summary read but a trainer does not.
type rollout struct {
	Rollout
	task       *envpkg.Task
	score      runtime.Score
	calls      []envpkg.Call // well-formed calls the episode ran, in order
	envErrors  int
	envSteps   int       // calls that reached the runtime
	envSeconds float64   // time inside the runtime (calls, scoring)
	polSeconds float64   // time waiting for the policy
	latencies  []float64 // seconds per policy request
}

// succeeded reports whether every check passed (and there was one).
func (r *rollout) succeeded() bool { return r.score.Total > 0 && r.score.AllPassed }

// Window marks a history-window sample: turn t of the rollout, with at
// most Size earlier turns kept.
type Window struct {
	Turn int `json:"turn"`
	Size int `json:"size"`
}

// Finish says why a rollout ended.
type Finish string

const (
	FinishStop        Finish = "stop"         // the agent answered without calling a tool
	FinishUserStop    Finish = "user_stop"    // the simulated user sent the stop token
	FinishMaxTurns    Finish = "max_turns"    // the turn budget ran out
	FinishMaxTokens   Finish = "max_tokens"   // the token budget ran out
	FinishPolicyError Finish = "policy_error" // a policy request failed for good
	FinishEnvError    Finish = "env_error"    // the episode could not be started or scored
	FinishCancelled   Finish = "cancelled"    // the run was cancelled

	// The agent's mistakes that end a rollout (Limits); each is also a
	// format error.
	FinishMaxCalls        Finish = "max_calls_per_turn" // more tool calls in one message than Limits.CallsPerTurn
	FinishMaxMessageBytes Finish = "max_message_bytes"  // one message larger than Limits.MessageBytes
	// FinishMaxConversation: the conversation outgrew Limits.ConversationBytes
	// (a budget, as max_turns).
	FinishMaxConversation Finish = "max_conversation_bytes"
)
