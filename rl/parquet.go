package rl

import (
	"encoding/json"

	"github.com/parquet-go/parquet-go"

	"github.com/wasmenv/wasmenv/internal/atomicfile"
)

// Parquet writes one row per rollout with the columns verl's datasets and
// Hugging Face datasets read (docs/ROLLOUT.md): data_source, prompt,
// messages, tools, ability, reward_model, extra_info, and the scalars of
// the JSONL form. It writes to a temporary file renamed on Close.
type Parquet struct {
	f *atomicfile.File
	w *parquet.GenericWriter[parquetRow]
}

type parquetRow struct {
	DataSource  string           `parquet:"data_source"`
	Prompt      []promptMessage  `parquet:"prompt,list"`
	Messages    []parquetMessage `parquet:"messages,list"`
	Tools       string           `parquet:"tools,dict"` // JSON: the OpenAI tool list; dictionary-encoded, so stored once per row group
	Ability     string           `parquet:"ability"`
	RewardModel rewardModel      `parquet:"reward_model"`
	ExtraInfo   extraInfo        `parquet:"extra_info"`

	Env              string  `parquet:"env"`
	Task             string  `parquet:"task"`
	Group            string  `parquet:"group"`
	Index            int64   `parquet:"index"`
	Seed             int64   `parquet:"seed"`
	Reward           float64 `parquet:"reward"`
	Advantage        float64 `parquet:"advantage"`
	RewardComponents string  `parquet:"reward_components"` // JSON object
	Turns            int64   `parquet:"turns"`
	ToolCalls        int64   `parquet:"tool_calls"`
	FormatError      bool    `parquet:"format_error"`
	FormatErrors     int64   `parquet:"format_errors"`
	EnvError         bool    `parquet:"env_error"`
	PolicyError      string  `parquet:"policy_error"`
	Finish           string  `parquet:"finish"`
	Answer           *string `parquet:"answer,optional"`
	StateHash        string  `parquet:"state_hash"`
	TurnTokens       string  `parquet:"turn_tokens"` // JSON array, "[]" when none
	WindowTurn       int64   `parquet:"window_turn"` // −1 unless a history-window sample
}

type promptMessage struct {
	Role    string `parquet:"role"`
	Content string `parquet:"content"`
}

type parquetMessage struct {
	Role       string            `parquet:"role"`
	Content    string            `parquet:"content"`
	ToolCalls  []parquetToolCall `parquet:"tool_calls,list"`
	ToolCallID string            `parquet:"tool_call_id"`
}

type parquetToolCall struct {
	ID       string          `parquet:"id"`
	Type     string          `parquet:"type"`
	Function parquetFunction `parquet:"function"`
}

type parquetFunction struct {
	Name      string `parquet:"name"`
	Arguments string `parquet:"arguments"`
}

type rewardModel struct {
	Style       string `parquet:"style"`
	GroundTruth string `parquet:"ground_truth"`
}

type extraInfo struct {
	Split string `parquet:"split"`
	Env   string `parquet:"env"`
	Task  string `parquet:"task"`
	Group string `parquet:"group"`
	Index int64  `parquet:"index"`
	Seed  int64  `parquet:"seed"`
}

// CreateParquet starts a Parquet file at path.
func CreateParquet(path string) (*Parquet, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	return &Parquet{f: f, w: parquet.NewGenericWriter[parquetRow](f, parquet.Compression(&parquet.Zstd))}, nil
}

// Write implements Exporter.
func (p *Parquet) Write(group []Rollout) error {
	rows := make([]parquetRow, len(group))
	for i := range group {
		rows[i] = toParquet(&group[i])
	}
	_, err := p.w.Write(rows)
	return err
}

// Close implements Exporter.
func (p *Parquet) Close() error {
	if err := p.w.Close(); err != nil {
		p.f.Abort()
		return err
	}
	return p.f.Commit()
}

// Abort drops the file being written.
func (p *Parquet) Abort() {
	p.f.Abort()
}

func toParquet(r *Rollout) parquetRow {
	row := parquetRow{
		DataSource: r.Env, Ability: "tool_use",
		RewardModel: rewardModel{Style: "rule", GroundTruth: r.Task},
		ExtraInfo:   extraInfo{Split: "train", Env: r.Env, Task: r.Task, Group: r.GroupID, Index: int64(r.Index), Seed: r.Seed},
		Env:         r.Env, Task: r.Task, Group: r.GroupID, Index: int64(r.Index), Seed: r.Seed,
		Reward: r.Reward, Advantage: r.Advantage, Turns: int64(r.Turns), ToolCalls: int64(r.ToolCalls),
		FormatError: r.FormatError, FormatErrors: int64(r.FormatErrors), EnvError: r.EnvError,
		PolicyError: r.PolicyError, Finish: string(r.Finish), Answer: r.Answer, StateHash: r.StateHash,
		WindowTurn: -1,
	}
	if r.Window != nil {
		row.WindowTurn = int64(r.Window.Turn)
	}
	for _, m := range r.Messages {
		if m.Role == RoleAssistant {
			break
		}
		row.Prompt = append(row.Prompt, promptMessage{Role: m.Role, Content: m.Content})
	}
	for _, m := range r.Messages {
		pm := parquetMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			pm.ToolCalls = append(pm.ToolCalls, parquetToolCall{ID: tc.ID, Type: tc.Type,
				Function: parquetFunction{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
		}
		row.Messages = append(row.Messages, pm)
	}
	row.Tools = jsonString(r.Tools, "[]")
	row.RewardComponents = jsonString(r.RewardComponents, "{}")
	row.TurnTokens = jsonString(r.TurnTokens, "[]")
	return row
}

func jsonString(v any, empty string) string {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return empty
	}
	return string(b)
}
