package main

import (
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/wasmenv/wasmenv/fleet"
	"github.com/wasmenv/wasmenv/rl"
)

// addPolicyFlags adds the flags that pick the policy, the simulated user,
// the reward and the tool format: `wasmenv rollout` and `wasmenv eval`
// share them.
func (f *rolloutFlags) addPolicyFlags(cmd *cobra.Command, cfg *rl.Config) {
	fl := cmd.Flags()
	fl.StringVar(&f.policy, "policy", "random", "random, oracle or openai")
	fl.StringVar(&f.baseURL, "base-url", "", "openai: server URL, e.g. http://127.0.0.1:8000/v1 (default $OPENAI_BASE_URL)")
	fl.StringVar(&f.model, "model", "", "openai: model name")
	fl.Float64Var(&f.temperature, "temperature", 1, "openai: sampling temperature")
	fl.IntVar(&f.turnTokens, "turn-max-tokens", 0, "openai: max_tokens per request (0: the server's default)")
	fl.IntVar(&f.requests, "max-requests", 64, "openai: requests in flight at once")
	fl.IntVar(&f.retries, "retries", 5, "openai: retries of a transient failure (429, 5xx, timeout; 0: none)")
	fl.DurationVar(&f.timeout, "request-timeout", 2*time.Minute, "openai: limit of one request attempt")
	fl.StringVar(&f.user, "user", "none", "simulated user: none (the instruction opens, a text reply ends), scripted (says the instruction, then stops) or openai")
	fl.StringVar(&f.userURL, "user-base-url", "", "user openai: server URL (default: --base-url)")
	fl.StringVar(&f.userModel, "user-model", "", "user openai: model (default: --model)")
	fl.StringVar(&cfg.StopToken, "stop-token", rl.DefaultStopToken, "the user's end-of-conversation token")
	fl.StringVar(&f.reward, "reward", "binary", "reward: "+strings.Join(rl.RewardNames, ", "))
	fl.Float64Var(&f.envFactory.Alpha, "ef-alpha", 0.5, "envfactory: weight of trajectory match against state match")
	fl.Float64Var(&f.envFactory.Length, "ef-length", 0.05, "envfactory: penalty per call beyond the ground truth's count")
	fl.Float64Var(&f.envFactory.Format, "ef-format", 0.2, "envfactory: penalty per format error")
	fl.StringVar(&f.format, "tool-format", "auto", "where tool calls are read: auto, openai (tool_calls) or hermes (<tool_call> text)")
	fl.BoolVar(&cfg.MetaTools, "meta-tools", false, "offer AWM's list_tools/call_tool instead of the tools")
}

// fleetSpec is the fleet's form of the run's settings (fleet.Spec): what
// every job carries.
func (f *rolloutFlags) fleetSpec(cfg rl.Config) *fleet.Spec {
	return &fleet.Spec{
		Group: cfg.Group, Seed: cfg.Seed, MaxTurns: cfg.MaxTurns, MaxTokens: cfg.MaxTokens, Tasks: cfg.Tasks,
		Format: f.format, MetaTools: cfg.MetaTools, StopToken: cfg.StopToken,
		Reward: f.reward, EnvFactory: f.envFactory, Normalize: cfg.Normalize, DropEqual: cfg.DropEqual,
		HistoryWindow: cfg.HistoryWindow,
		Policy:        f.policySpec(),
	}
}

// policySpec is the policy and user the flags name, built by the fleet's
// code whether the run is local or not (so both read --retries 0 as none).
func (f *rolloutFlags) policySpec() fleet.PolicySpec {
	retries := f.retries
	if retries <= 0 {
		retries = -1 // none
	}
	return fleet.PolicySpec{Kind: f.policy, BaseURL: f.baseURL, Model: f.model, Temperature: f.temperature,
		TurnTokens: f.turnTokens, Requests: f.requests, Retries: retries, Timeout: f.timeout,
		User: f.user, UserURL: f.userURL, UserModel: f.userModel}
}

// rolloutPolicy makes the policy and the simulated user of a local run.
func rolloutPolicy(f *rolloutFlags) (rl.Policy, rl.User, error) {
	p := f.policySpec()
	user, err := p.BuildUser()
	if err != nil {
		return nil, nil, localFlagError(err)
	}
	policy, err := p.Build()
	if err != nil {
		return nil, nil, localFlagError(err)
	}
	return policy, user, nil
}

// localFlagError is a flag's mistake the fleet's code found, told as the
// flag's own: a local run has no fleet to blame ("fleet: unknown policy").
func localFlagError(err error) error {
	var fe *fleet.Error
	if errors.As(err, &fe) && fe.Code == fleet.CodeBadInput && fe.Err == nil {
		return errors.New(fe.Msg)
	}
	return err
}
