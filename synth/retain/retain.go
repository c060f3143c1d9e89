package retain

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// DefaultK is Agent-World's number of attempts per task.
const DefaultK = 4

// Config configures the gate. Zero values take the defaults noted.
type Config struct {
	// K is how many times the agent plays each task (default DefaultK).
	K int
	// Agent plays the tasks (an rl/openai.Policy over a model).
	Agent rl.Policy
	// User, when set, plays the customer (rl/openai.User); nil: the
	// instruction opens the conversation and the agent's first reply
	// without a tool call ends it.
	User rl.User
	// Examiner judges the unsolved tasks; nil drops every unsolved task as
	// unexamined (the safe choice: nothing unverified is kept).
	Examiner Examiner
	// MaxTurns per attempt (default 20).
	MaxTurns int
	// Seed is the first attempt's episode seed.
	Seed int64
	// Concurrency is how many attempts run at once (default 4).
	Concurrency int
}

// Fate is what the gate decided for a task.
type Fate string

const (
	Kept    Fate = "kept"    // some attempt solved it
	Hard    Fate = "hard"    // no attempt solved it, the agent's fault: kept, marked hard
	Dropped Fate = "dropped" // no attempt solved it, the environment's fault (or not examined)
)

// TaskResult is one task's outcome.
type TaskResult struct {
	ID       string  `json:"id"`
	Attempts int     `json:"attempts"`
	Solved   int     `json:"solved"`
	PassRate float64 `json:"pass_rate"`
	Fate     Fate    `json:"fate"`
	// Fault and Reason are the examiner's finding for an unsolved task.
	Fault  Fault  `json:"fault,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Repairs is how many times the task's verifier was answered again
	// with an examiner's finding of the environment's fault before this
	// outcome (synth llm's --retain-repairs); Attempts and Solved are the
	// last version's.
	Repairs int `json:"repairs,omitempty"`
}

// Report is the gate's outcome for one environment, tasks in id order.
type Report struct {
	Env   string       `json:"env"`
	K     int          `json:"k"`
	Tasks []TaskResult `json:"tasks"`
	// The agent's tokens over every attempt, as the server reported them.
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// ErrNoAgent is Run's error without Config.Agent.
var ErrNoAgent = errors.New("retain: no agent policy")

// Run plays every task of env K times and examines the unsolved ones.
func Run(ctx context.Context, env *runtime.Env, cfg Config) (*Report, error) {
	if cfg.Agent == nil {
		return nil, ErrNoAgent
	}
	if cfg.K == 0 {
		cfg.K = DefaultK
	}
	if cfg.K < 1 {
		return nil, fmt.Errorf("retain: k %d: want at least 1", cfg.K)
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 4
	}
	var col collector
	_, err := rl.Run(ctx, []*runtime.Env{env}, cfg.Agent, rl.Config{Group: cfg.K, Seed: cfg.Seed, MaxTurns: cfg.MaxTurns,
		Concurrency: cfg.Concurrency, User: cfg.User}, &col)
	if err != nil {
		return nil, fmt.Errorf("retain: playing %s: %w", env.Bundle.Manifest.Name, err)
	}
	rep := &Report{Env: env.Bundle.Manifest.Name, K: cfg.K}
	for i := range env.Bundle.Tasks {
		task := &env.Bundle.Tasks[i]
		attempts := col.byTask[task.ID]
		res := TaskResult{ID: task.ID, Attempts: len(attempts)}
		for _, a := range attempts {
			if a.Usage != nil {
				rep.PromptTokens += a.Usage.PromptTokens
				rep.CompletionTokens += a.Usage.CompletionTokens
			}
			if a.Reward > 0 && !a.EnvError {
				res.Solved++
			}
		}
		if res.Attempts > 0 {
			res.PassRate = float64(res.Solved) / float64(res.Attempts)
		}
		switch {
		case res.Solved > 0:
			res.Fate = Kept
		default:
			f, err := examine(ctx, cfg.Examiner, env, task, attempts)
			if err != nil {
				return nil, fmt.Errorf("retain: examining task %s: %w", task.ID, err)
			}
			res.Fault, res.Reason = f.Fault, f.Reason
			res.Fate = Dropped
			if f.Fault == AgentFault {
				res.Fate = Hard
			}
		}
		rep.Tasks = append(rep.Tasks, res)
	}
	sort.Slice(rep.Tasks, func(i, j int) bool { return rep.Tasks[i].ID < rep.Tasks[j].ID })
	return rep, nil
}

// examine decides an unsolved task's fault: the environment's without
// asking when an attempt hit an environment error, else the examiner's.
func examine(ctx context.Context, ex Examiner, env *runtime.Env, task *envpkg.Task, attempts []rl.Rollout) (Finding, error) {
	if len(attempts) == 0 {
		return Finding{Fault: EnvFault, Reason: "no attempt ran"}, nil
	}
	for _, a := range attempts {
		if a.EnvError {
			return Finding{Fault: EnvFault, Reason: fmt.Sprintf("an attempt hit an environment error (%s)", a.Finish)}, nil
		}
	}
	if ex == nil {
		return Finding{Fault: Unexamined, Reason: "no attempt solved it and no examiner was given"}, nil
	}
	return ex.Examine(ctx, Case{Rules: env.Bundle.Manifest.Rules, Task: task, Attempts: attempts})
}

// collector keeps every finished rollout by task.
type collector struct {
	mu     sync.Mutex
	byTask map[string][]rl.Rollout
}

func (c *collector) Write(group []rl.Rollout) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byTask == nil {
		c.byTask = map[string][]rl.Rollout{}
	}
	for _, r := range group {
		c.byTask[r.Task] = append(c.byTask[r.Task], r)
	}
	return nil
}

func (c *collector) Close() error { return nil }

// Apply returns the tasks the report keeps, each with its measured pass
// rate (and hard mark) in its difficulty; tasks the report does not name
// are kept as they are.
func (r *Report) Apply(tasks []envpkg.Task) []envpkg.Task {
	byID := map[string]TaskResult{}
	for _, t := range r.Tasks {
		byID[t.ID] = t
	}
	var out []envpkg.Task
	for _, t := range tasks {
		res, ok := byID[t.ID]
		if ok && res.Fate == Dropped {
			continue
		}
		if ok {
			d := envpkg.Difficulty{}
			if t.Difficulty != nil {
				d = *t.Difficulty
			}
			rate := res.PassRate
			d.PassRate, d.Attempts, d.Hard = &rate, res.Attempts, res.Fate == Hard
			t.Difficulty = &d
		}
		out = append(out, t)
	}
	return out
}

// Dropped lists the dropped tasks with their reasons.
func (r *Report) Dropped() []TaskResult {
	var out []TaskResult
	for _, t := range r.Tasks {
		if t.Fate == Dropped {
			out = append(out, t)
		}
	}
	return out
}

// PassRate is the share of all attempts that solved their task.
func (r *Report) PassRate() float64 {
	n, s := 0, 0
	for _, t := range r.Tasks {
		n += t.Attempts
		s += t.Solved
	}
	if n == 0 {
		return 0
	}
	return float64(s) / float64(n)
}
