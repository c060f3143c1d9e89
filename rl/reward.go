package rl

import (
	"fmt"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Reward turns a scored rollout into the scalar its advantage is computed
// from, with the named parts of its formula (kept in reward_components).
// Score is called from many goroutines at once.
type Reward interface {
	Name() string
	Score(in RewardInput) (float64, map[string]float64)
}

// RewardInput is what a reward may look at: the runtime's score of the
// final state (the task's checks, plus the state check of `reward: state`
// tasks and the answer check), the calls the agent made, and its mistakes.
type RewardInput struct {
	Task         *envpkg.Task
	Score        runtime.Score
	Calls        []envpkg.Call // well-formed calls that ran, in order
	Turns        int
	MaxTurns     int
	FormatErrors int
	EnvErrors    int
}

func rewardInput(r *rollout, cfg *Config) RewardInput {
	return RewardInput{Task: r.task, Score: r.score, Calls: r.calls, Turns: r.Turns,
		MaxTurns: cfg.MaxTurns, FormatErrors: r.FormatErrors, EnvErrors: r.envErrors}
}

// baseComponents adds the parts every rollout carries.
func baseComponents(r *rollout) {
	c := r.RewardComponents
	c["checks_passed"] = float64(r.score.Passed)
	c["checks_total"] = float64(r.score.Total)
	c["checks_fraction"] = fraction(r.score)
	c["all_passed"] = b2f(r.succeeded())
	c["format_errors"] = float64(r.FormatErrors)
	c["env_errors"] = float64(r.envErrors)
	c["turns"] = float64(r.Turns)
}

// fraction is the share of the checks passed that are not guards, 0 when
// a guard fails: the runtime's own reward (envpkg.Check.Guard: a guard
// gates the reward instead of adding to it, so doing nothing earns nothing
// for a "nothing else changed" guard that holds).
func fraction(s runtime.Score) float64 {
	if s.Total == 0 {
		return 0
	}
	if len(s.Checks) == 0 { // a score without its checks: by count
		return float64(s.Passed) / float64(s.Total)
	}
	scored, passed := 0, 0
	for _, c := range s.Checks {
		switch {
		case c.Guard && !c.Passed:
			return 0
		case !c.Guard:
			scored++
			if c.Passed {
				passed++
			}
		}
	}
	if scored == 0 {
		return 1 // only guards, all passed
	}
	return float64(passed) / float64(scored)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Binary is 1 when every check passes (the task's checks, the state check
// of `reward: state` tasks, the answer check), else 0: τ-bench's reward.
type Binary struct{}

func (Binary) Name() string { return "binary" }

func (Binary) Score(in RewardInput) (float64, map[string]float64) {
	return b2f(in.Score.Total > 0 && in.Score.AllPassed), nil
}

// Fraction is the fraction of checks that pass (EnvScaler's partial
// credit); guards gate it rather than count in it.
type Fraction struct{}

func (Fraction) Name() string { return "fraction" }

func (Fraction) Score(in RewardInput) (float64, map[string]float64) {
	return fraction(in.Score), nil
}

// RewardOptions holds the coefficients of the rewards that have some.
type RewardOptions struct {
	EnvFactory EnvFactory
}

// RewardNames lists the rewards ParseReward knows.
var RewardNames = []string{"binary", "fraction", "awm", "envfactory"}

// ParseReward returns the named reward.
func ParseReward(name string, o RewardOptions) (Reward, error) {
	switch name {
	case "", "binary":
		return Binary{}, nil
	case "fraction":
		return Fraction{}, nil
	case "awm":
		return AWM{}, nil
	case "envfactory":
		return o.EnvFactory, o.EnvFactory.validate()
	}
	return nil, fmt.Errorf("unknown reward %q (want one of %v)", name, RewardNames)
}
