package fleet

import (
	"fmt"
	"time"

	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/openai"
)

// Spec is what every group of a run shares: rl.Config's settings that
// shape a rollout, and the policy. It travels with each job as JSON, so
// it holds names and numbers, never functions or secrets: a worker reaches
// only the endpoints its own configuration allows, with the key its own
// configuration names (Endpoints).
type Spec struct {
	Group         int           `json:"group"`
	Seed          int64         `json:"seed"`
	MaxTurns      int           `json:"max_turns"`
	MaxTokens     int           `json:"max_tokens,omitempty"`
	Tasks         string        `json:"tasks,omitempty"` // globs, as rl.Config.Tasks
	Format        string        `json:"tool_format,omitempty"`
	MetaTools     bool          `json:"meta_tools,omitempty"`
	StopToken     string        `json:"stop_token,omitempty"`
	Reward        string        `json:"reward,omitempty"` // rl.ParseReward's names; "": binary
	EnvFactory    rl.EnvFactory `json:"envfactory"`
	Normalize     bool          `json:"normalize,omitempty"`
	DropEqual     bool          `json:"drop_equal,omitempty"`
	HistoryWindow int           `json:"history_window,omitempty"`
	Policy        PolicySpec    `json:"policy"`
	// Eval makes the run an evaluation (eval.go): its jobs are chunks of
	// tasks (GroupRef.Tasks), each task run Group times, and a job's lines
	// are EvalRecords instead of trajectories.
	Eval bool `json:"eval,omitempty"`
}

// PolicySpec names the policy and, for openai, its endpoint.
type PolicySpec struct {
	Kind        string        `json:"kind"` // random, oracle or openai
	BaseURL     string        `json:"base_url,omitempty"`
	Model       string        `json:"model,omitempty"`
	Temperature float64       `json:"temperature"`
	TurnTokens  int           `json:"turn_max_tokens,omitempty"`
	Requests    int           `json:"max_requests,omitempty"`
	Retries     int           `json:"retries,omitempty"` // 0: the client's default; negative: none
	Timeout     time.Duration `json:"request_timeout,omitempty"`
	User        string        `json:"user,omitempty"` // none, scripted or openai
	UserURL     string        `json:"user_base_url,omitempty"`
	UserModel   string        `json:"user_model,omitempty"`
}

// MaxGroup and MaxTurns bound a job's group size and turns: a job comes
// from the queue, and a worker runs a group's rollouts at once.
const (
	MaxGroup = 4096
	MaxTurns = 10000
)

// Config is the rl.Config of one group of the run: Concurrency is the
// group size (a group's rollouts run at once) and Tasks is left to the
// caller.
func (s *Spec) Config() (rl.Config, error) { return s.config(nil) }

// config is Config with the simulated user's endpoint checked against e
// (nil: a local run's).
func (s *Spec) config(e *Endpoints) (rl.Config, error) {
	if s.Group < 1 || s.MaxTurns < 1 || s.Group > MaxGroup || s.MaxTurns > MaxTurns {
		return rl.Config{}, errorf(CodeBadInput, nil, "group %d and max turns %d: want 1 to %d and 1 to %d", s.Group, s.MaxTurns, MaxGroup, MaxTurns)
	}
	if s.Eval && (s.DropEqual || s.HistoryWindow > 0) {
		return rl.Config{}, errorf(CodeBadInput, nil, "an evaluation keeps every sample of every task: drop-equal and history windows do not apply")
	}
	cfg := rl.Config{
		Group: s.Group, Seed: s.Seed, MaxTurns: s.MaxTurns, MaxTokens: s.MaxTokens,
		Concurrency: s.Group, MetaTools: s.MetaTools, StopToken: s.StopToken,
		Normalize: s.Normalize, DropEqual: s.DropEqual, HistoryWindow: s.HistoryWindow,
	}
	var err error
	format := s.Format
	if format == "" {
		format = string(rl.FormatAuto)
	}
	if cfg.Format, err = rl.ParseToolFormat(format); err != nil {
		return cfg, errorf(CodeBadInput, err, "tool format")
	}
	reward := s.Reward
	if reward == "" {
		reward = "binary"
	}
	if cfg.Reward, err = rl.ParseReward(reward, rl.RewardOptions{EnvFactory: s.EnvFactory}); err != nil {
		return cfg, errorf(CodeBadInput, err, "reward")
	}
	if cfg.User, err = s.Policy.buildUser(e); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// Build makes the policy of a local run. Random and oracle hold no
// connection; openai reads its key from $OPENAI_API_KEY.
func (p *PolicySpec) Build() (rl.Policy, error) { return p.build(nil) }

// build makes the policy with its endpoint checked against e (nil: a
// local run's).
func (p *PolicySpec) build(e *Endpoints) (rl.Policy, error) {
	switch p.Kind {
	case "random", "":
		return &rl.Random{}, nil
	case "oracle":
		return rl.Oracle{}, nil
	case "openai":
		if p.Model == "" {
			return nil, errorf(CodeBadInput, nil, "policy openai needs a model")
		}
		c, err := p.client(p.BaseURL, e)
		if err != nil {
			return nil, err
		}
		t := p.Temperature
		return &openai.Policy{Client: c, Model: p.Model, Temperature: &t, MaxTokens: p.TurnTokens}, nil
	}
	return nil, errorf(CodeBadInput, nil, "unknown policy %q (want random, oracle or openai)", p.Kind)
}

func (p *PolicySpec) client(raw string, e *Endpoints) (*openai.Client, error) {
	url, key, err := e.resolve(raw)
	if err != nil {
		return nil, err
	}
	c := openai.NewClient(url, key, max(p.Requests, 1))
	if e != nil {
		c.APIKey = key // the worker's key or none: never the client's fallback to $OPENAI_API_KEY
	}
	switch {
	case p.Retries > 0:
		c.Retries = p.Retries
	case p.Retries < 0:
		c.Retries = openai.NoRetries
	}
	if p.Timeout > 0 {
		c.Timeout = p.Timeout
	}
	return c, nil
}

// BuildUser makes the simulated user of a local run (nil for none).
func (p *PolicySpec) BuildUser() (rl.User, error) { return p.buildUser(nil) }

func (p *PolicySpec) buildUser(e *Endpoints) (rl.User, error) {
	switch p.User {
	case "none", "":
		return nil, nil
	case "scripted":
		return rl.ScriptedUser{}, nil
	case "openai":
		url, model := p.UserURL, p.UserModel
		if url == "" {
			url = p.BaseURL
		}
		if model == "" {
			model = p.Model
		}
		if model == "" {
			return nil, errorf(CodeBadInput, nil, "user openai needs a model")
		}
		c, err := p.client(url, e)
		if err != nil {
			return nil, err
		}
		t := p.Temperature
		return &openai.User{Client: c, Model: model, Temperature: &t}, nil
	}
	return nil, errorf(CodeBadInput, nil, "unknown user %q (want none, scripted or openai)", p.User)
}

// String names the policy for messages.
func (p *PolicySpec) String() string {
	if p.Model != "" {
		return fmt.Sprintf("%s(%s)", p.Kind, p.Model)
	}
	return p.Kind
}
