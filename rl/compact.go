package rl

import (
	"fmt"
	"math"

	"github.com/wasmenv/wasmenv/runtime"
)

// A compact line (the lines of a RecordToolset toolset) leaves out,
// besides the tools and the system message, every value the reader derives
// exactly (docs/ROLLOUT.md, "Compact lines"):
//
//   - a tool call's "type" when it is "function", its "id" when it is
//     call_<k>_<i> (the i-th call of the line's k-th assistant message, as
//     the engine names calls the policy left unnamed);
//   - a tool message's "tool_call_id" when it answers the call at its
//     position (the n-th tool message after an assistant message answers
//     its n-th call);
//   - an empty "content";
//   - "env_hash" when it is the toolset's, "group" when it is
//     "<env>/<task>/<seed-index>";
//   - the reward components every rollout carries (checks_passed,
//     checks_total, checks_fraction, all_passed, format_errors, env_errors,
//     turns) when they equal what the line's checks and counts give.
//
// Anything else is written as it is, so a value that differs from the
// derived one is kept.

// compactLine is a rollout as a compact line holds it; its fields are
// Rollout's in the same order (TestCompactLineMirrorsRollout), without the
// tools, with the derivable ones optional, and naming its toolset last.
type compactLine struct {
	Env              string                `json:"env"`
	EnvHash          *string               `json:"env_hash,omitempty"`
	Task             string                `json:"task"`
	GroupID          *string               `json:"group,omitempty"`
	Index            int                   `json:"index"`
	Seed             int64                 `json:"seed"`
	Messages         []compactMessage      `json:"messages"`
	Reward           float64               `json:"reward"`
	RewardComponents map[string]float64    `json:"reward_components,omitempty"`
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
	Toolset          string                `json:"toolset"`
}

// compactMessage is a Message with its derivable values optional.
type compactMessage struct {
	Role             string        `json:"role"`
	Content          string        `json:"content,omitempty"`
	ToolCalls        []compactCall `json:"tool_calls,omitempty"`
	ToolCallID       *string       `json:"tool_call_id,omitempty"`
	Name             string        `json:"name,omitempty"`
	ReasoningContent string        `json:"reasoning_content,omitempty"`
}

type compactCall struct {
	ID       *string      `json:"id,omitempty"`
	Type     *string      `json:"type,omitempty"`
	Function FunctionCall `json:"function"`
}

// baseComponentNames are the reward components every rollout carries
// (baseComponents).
var baseComponentNames = [...]string{"checks_passed", "checks_total", "checks_fraction",
	"all_passed", "format_errors", "env_errors", "turns"}

// derivedComponents gives the base reward components as a line's own
// fields give them: they equal the engine's unless the runtime's score
// counted checks the line does not list, or more than one env error.
func derivedComponents(r *Rollout) map[string]float64 {
	passed := 0
	for _, c := range r.Checks {
		if c.Passed {
			passed++
		}
	}
	s := runtime.Score{Checks: r.Checks, Passed: passed, Total: len(r.Checks)}
	return map[string]float64{
		"checks_passed":   float64(passed),
		"checks_total":    float64(len(r.Checks)),
		"checks_fraction": fraction(s),
		"all_passed":      b2f(len(r.Checks) > 0 && passed == len(r.Checks)),
		"format_errors":   float64(r.FormatErrors),
		"env_errors":      b2f(r.EnvError),
		"turns":           float64(r.Turns),
	}
}

// compactable reports whether a compact line can hold r exactly: a line
// cannot say that a base reward component is missing, so a rollout that
// lacks one (never the engine's) is written whole.
func compactable(r *Rollout) bool {
	for _, k := range baseComponentNames {
		if _, ok := r.RewardComponents[k]; !ok {
			return false
		}
	}
	return true
}

// groupOf is the group a line without one belongs to; ok is false when
// seed − index overflows (the group is then written: readers in other
// languages would not wrap as Go does).
func groupOf(r *Rollout) (g string, ok bool) {
	base := r.Seed - int64(r.Index)
	if r.Index > 0 && base > r.Seed || r.Index < 0 && base < r.Seed {
		return "", false
	}
	return fmt.Sprintf("%s/%s/%d", r.Env, r.Task, base), true
}

func callID(k, i int) string { return fmt.Sprintf("call_%d_%d", k, i) }

// compact writes r as a line of toolset ts (compactable(r) holds).
func compact(r *Rollout, ts *Toolset) compactLine {
	l := compactLine{Env: r.Env, Task: r.Task, Index: r.Index, Seed: r.Seed,
		Reward: r.Reward, Advantage: r.Advantage, Turns: r.Turns, ToolCalls: r.ToolCalls,
		FormatError: r.FormatError, FormatErrors: r.FormatErrors, EnvError: r.EnvError,
		PolicyError: r.PolicyError, Finish: r.Finish, Answer: r.Answer, Checks: r.Checks,
		StateHash: r.StateHash, TurnTokens: r.TurnTokens, Usage: r.Usage, Window: r.Window,
		Toolset: ts.ID}
	if r.EnvHash != ts.EnvHash {
		l.EnvHash = &r.EnvHash
	}
	if g, ok := groupOf(r); !ok || r.GroupID != g {
		l.GroupID = &r.GroupID
	}
	derived := derivedComponents(r)
	for k, v := range r.RewardComponents {
		if d, ok := derived[k]; ok && math.Float64bits(d) == math.Float64bits(v) {
			continue
		}
		if l.RewardComponents == nil {
			l.RewardComponents = map[string]float64{}
		}
		l.RewardComponents[k] = v
	}
	msgs := r.Messages
	if ts.System != nil {
		msgs = msgs[1:]
	}
	if msgs != nil {
		l.Messages = make([]compactMessage, len(msgs))
	}
	var calls []ToolCall // of the last assistant message
	answered, k := 0, 0
	for j := range msgs {
		m, c := &msgs[j], &l.Messages[j]
		*c = compactMessage{Role: m.Role, Content: m.Content, Name: m.Name, ReasoningContent: m.ReasoningContent}
		if len(m.ToolCalls) > 0 {
			c.ToolCalls = make([]compactCall, len(m.ToolCalls))
		}
		for i := range m.ToolCalls { // as expand reads them back, whatever the role
			tc, cc := &m.ToolCalls[i], &c.ToolCalls[i]
			cc.Function = tc.Function
			if tc.ID != callID(k, i) {
				cc.ID = &tc.ID
			}
			if tc.Type != "function" {
				cc.Type = &tc.Type
			}
		}
		switch m.Role {
		case RoleAssistant:
			calls, answered = m.ToolCalls, 0
			k++
		case RoleTool:
			if answered >= len(calls) || m.ToolCallID != calls[answered].ID {
				c.ToolCallID = &m.ToolCallID
			}
			answered++
		}
		if m.Role != RoleTool && m.ToolCallID != "" {
			c.ToolCallID = &m.ToolCallID
		}
	}
	return l
}

// expand is compact's inverse: the full rollout of line l of toolset ts.
func (l *compactLine) expand(ts *Toolset) Rollout {
	r := Rollout{Env: l.Env, EnvHash: ts.EnvHash, Task: l.Task, Index: l.Index, Seed: l.Seed,
		Tools: ts.Tools, Reward: l.Reward, Advantage: l.Advantage, Turns: l.Turns, ToolCalls: l.ToolCalls,
		FormatError: l.FormatError, FormatErrors: l.FormatErrors, EnvError: l.EnvError,
		PolicyError: l.PolicyError, Finish: l.Finish, Answer: l.Answer, Checks: l.Checks,
		StateHash: l.StateHash, TurnTokens: l.TurnTokens, Usage: l.Usage, Window: l.Window}
	if l.EnvHash != nil {
		r.EnvHash = *l.EnvHash
	}
	if l.GroupID != nil {
		r.GroupID = *l.GroupID
	} else {
		r.GroupID, _ = groupOf(&r)
	}
	r.RewardComponents = derivedComponents(&r)
	for k, v := range l.RewardComponents {
		r.RewardComponents[k] = v
	}
	if l.Messages != nil || ts.System != nil {
		r.Messages = make([]Message, 0, len(l.Messages)+1)
	}
	if ts.System != nil {
		r.Messages = append(r.Messages, Message{Role: RoleSystem, Content: *ts.System})
	}
	var calls []ToolCall
	answered, k := 0, 0
	for j := range l.Messages {
		c := &l.Messages[j]
		m := Message{Role: c.Role, Content: c.Content, Name: c.Name, ReasoningContent: c.ReasoningContent}
		if len(c.ToolCalls) > 0 {
			m.ToolCalls = make([]ToolCall, len(c.ToolCalls))
		}
		for i := range c.ToolCalls {
			cc := &c.ToolCalls[i]
			tc := ToolCall{ID: callID(k, i), Type: "function", Function: cc.Function}
			if cc.ID != nil {
				tc.ID = *cc.ID
			}
			if cc.Type != nil {
				tc.Type = *cc.Type
			}
			m.ToolCalls[i] = tc
		}
		if c.ToolCallID != nil {
			m.ToolCallID = *c.ToolCallID
		}
		switch c.Role {
		case RoleAssistant:
			calls, answered = m.ToolCalls, 0
			k++
		case RoleTool:
			if c.ToolCallID == nil && answered < len(calls) {
				m.ToolCallID = calls[answered].ID
			}
			answered++
		}
		r.Messages = append(r.Messages, m)
	}
	return r
}
