package rl

import (
	"encoding/json"
	"fmt"

	"github.com/cespare/xxhash/v2"

	"github.com/wasmenv/wasmenv/envpkg"
)

// The "record" values of toolset lines. RecordToolset is what this package
// writes: its lines are compact lines (compact.go). RecordToolsetV1 is
// that of files written before compact lines, whose lines leave out only
// the tools and the system message; it is still read. The kind is in the
// name, not in a field, so that a reader of the first format refuses the
// second (an unknown record) instead of reading its lines without what
// they leave out.
const (
	RecordToolset   = "toolset2"
	RecordToolsetV1 = "toolset"
)

// Toolset is what every rollout of an environment shares, written once per
// file before the first rollout that refers to it: the tools offered and
// the system prompt (the env's rules). Rollout lines name it by ID; a
// reader restores the full view (ReadRollouts, wasmenv_client.rollouts).
type Toolset struct {
	Record  string              `json:"record"` // RecordToolset, or RecordToolsetV1 when read
	ID      string              `json:"toolset"`
	Env     string              `json:"env"`
	EnvHash string              `json:"env_hash"`
	Tools   []envpkg.OpenAITool `json:"tools"`
	// System is the system message's content every rollout opens with,
	// absent when rollouts open without one.
	System *string `json:"system,omitempty"`
}

// toolsetOf returns the toolset of r: its environment, its tools, and its
// leading system message. The ID is a hash of them all, so equal toolsets
// share one record (and lines may take their env_hash from it).
func toolsetOf(r *Rollout) (*Toolset, error) {
	ts := &Toolset{Record: RecordToolset, Env: r.Env, EnvHash: r.EnvHash, Tools: r.Tools}
	if ts.Tools == nil {
		ts.Tools = []envpkg.OpenAITool{}
	}
	if len(r.Messages) > 0 && r.Messages[0].Role == RoleSystem && isPlain(&r.Messages[0]) {
		s := r.Messages[0].Content
		ts.System = &s
	}
	id, err := ts.ContentID()
	if err != nil {
		return nil, err
	}
	ts.ID = id
	return ts, nil
}

// ContentID is the id a toolset's content hashes to, the ID this
// package's encoder writes for it: a reader that trusts no writer (the
// fleet's driver) refuses a record whose ID is not its content's.
func (ts *Toolset) ContentID() (string, error) {
	tools := ts.Tools
	if tools == nil {
		tools = []envpkg.OpenAITool{}
	}
	b, err := json.Marshal(struct {
		Env     string              `json:"env"`
		EnvHash string              `json:"env_hash"`
		Tools   []envpkg.OpenAITool `json:"tools"`
		System  *string             `json:"system"`
	}{ts.Env, ts.EnvHash, tools, ts.System})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%016x", xxhash.Sum64(b)), nil
}

// toolsets remembers the toolset of each tools list seen (the engine
// shares one list among an environment's rollouts), so a toolset is hashed
// once, not once per line.
type toolsets map[toolsetKey]*Toolset

type toolsetKey struct {
	tools     *envpkg.OpenAITool
	n         int
	env, hash string
	system    string
	hasSystem bool
}

func (m *toolsets) of(r *Rollout) (*Toolset, error) {
	if len(r.Tools) == 0 {
		return toolsetOf(r)
	}
	k := toolsetKey{tools: &r.Tools[0], n: len(r.Tools), env: r.Env, hash: r.EnvHash}
	if len(r.Messages) > 0 && r.Messages[0].Role == RoleSystem && isPlain(&r.Messages[0]) {
		k.system, k.hasSystem = r.Messages[0].Content, true
	}
	if ts := (*m)[k]; ts != nil {
		return ts, nil
	}
	ts, err := toolsetOf(r)
	if err != nil {
		return nil, err
	}
	if *m == nil {
		*m = toolsets{}
	}
	(*m)[k] = ts
	return ts, nil
}

// isPlain reports whether a message is content alone (so the toolset's
// system text restores it exactly).
func isPlain(m *Message) bool {
	return len(m.ToolCalls) == 0 && m.ToolCallID == "" && m.ReasoningContent == "" && m.Name == ""
}

// restore turns a line of a RecordToolsetV1 toolset back into the full
// rollout: such lines leave out only the tools and the system message.
func (ts *Toolset) restore(r *Rollout) {
	r.Tools = ts.Tools
	if ts.System != nil {
		msgs := make([]Message, 0, len(r.Messages)+1)
		msgs = append(msgs, Message{Role: RoleSystem, Content: *ts.System})
		r.Messages = append(msgs, r.Messages...)
	}
}
