package rl

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// onEpisode, when set (by tests), sees every episode the engine opens.
var onEpisode func(*runtime.Episode)

// job is one rollout to run.
type job struct {
	g     *group
	index int
}

// episodeRun is the state of one rollout while it runs.
type episodeRun struct {
	cfg    *Config
	policy Policy
	env    *runtime.Env
	known  map[string]bool
	tools  []envpkg.OpenAITool
	ep     *runtime.Episode
	r      *rollout
}

// runRollout runs one rollout to its end and always closes its episode.
func (e *engine) runRollout(ctx context.Context, j job) *rollout {
	g := j.g
	seed := g.seed + int64(j.index)
	r := &rollout{Rollout: Rollout{
		Env: g.env.Name(), EnvHash: g.env.Bundle.Hash, Task: g.task.ID, GroupID: g.id,
		Index: j.index, Seed: seed, Tools: g.tools,
		RewardComponents: map[string]float64{},
	}, task: g.task}
	start := time.Now()
	ep, err := g.env.NewEpisode(g.task.ID, seed)
	r.envSeconds += time.Since(start).Seconds()
	if err != nil {
		r.Finish, r.EnvError, r.envErrors = FinishEnvError, true, 1
		r.Messages = []Message{}
		return r
	}
	defer ep.Close()
	if onEpisode != nil {
		onEpisode(ep)
	}
	run := &episodeRun{cfg: &e.cfg, policy: e.policy, env: g.env, known: g.known, tools: g.tools, ep: ep, r: r}
	run.loop(ctx)
	if r.Finish == FinishCancelled {
		return r
	}
	start = time.Now()
	s, err := ep.Score(ctx, r.Answer)
	r.envSeconds += time.Since(start).Seconds()
	if err != nil {
		if ctx.Err() != nil {
			r.Finish = FinishCancelled
			return r
		}
		r.Finish, r.EnvError = FinishEnvError, true
		r.envErrors++
		return r
	}
	r.score, r.Checks, r.StateHash = s, s.Checks, s.StateHash
	if r.Checks == nil {
		r.Checks = []runtime.CheckResult{}
	}
	return r
}

// loop alternates policy turns and tool calls until the rollout ends.
func (run *episodeRun) loop(ctx context.Context) {
	cfg, r := run.cfg, run.r
	r.Messages = []Message{}
	if rules := run.env.Bundle.Manifest.Rules; rules != "" {
		r.Messages = append(r.Messages, Message{Role: RoleSystem, Content: rules})
	}
	sys := len(r.Messages)
	opening := r.task.Instruction
	if cfg.User != nil {
		u, err := cfg.User.Reply(ctx, r.task, r.Messages[len(r.Messages):])
		if err != nil {
			run.policyFailed(ctx, fmt.Errorf("user: %w", err))
			return
		}
		opening = u
	}
	lim := &cfg.Limits
	r.Messages = append(r.Messages, Message{Role: RoleUser, Content: clip(opening, lim.MessageBytes)})
	conv := 0 // bytes of the conversation, what the next request carries
	for i := range r.Messages {
		conv += messageBytes(&r.Messages[i])
	}
	var usage Usage
	for r.Turns < cfg.MaxTurns {
		if ctx.Err() != nil {
			r.Finish = FinishCancelled
			return
		}
		if conv > lim.ConversationBytes {
			r.Finish = FinishMaxConversation
			return
		}
		budget := 0
		if cfg.MaxTokens > 0 {
			budget = cfg.MaxTokens - usage.CompletionTokens
		}
		turn := &Turn{Env: r.Env, Task: r.task, Seed: r.Seed, Index: r.Index, Number: r.Turns,
			Messages: r.Messages, Tools: run.tools, MaxTokens: budget}
		start := time.Now()
		reply, err := run.policy.Act(ctx, turn)
		lat := time.Since(start).Seconds()
		r.polSeconds += lat
		r.latencies = append(r.latencies, lat)
		if err != nil {
			run.policyFailed(ctx, err)
			return
		}
		r.Turns++
		msg := reply.Message
		msg.Role = RoleAssistant
		if reply.Usage != nil {
			usage.add(reply.Usage)
			r.Usage = &usage
		}
		if n := messageBytes(&msg); n > lim.MessageBytes {
			// Kept cut, without calls or token data: bounded, and marked.
			msg.Content = clip(msg.Content, lim.MessageBytes)
			msg.ReasoningContent = clip(msg.ReasoningContent, max(0, lim.MessageBytes-len(msg.Content)))
			msg.ToolCalls = nil
			r.Messages = append(r.Messages, msg)
			run.agentLimit(FinishMaxMessageBytes)
			return
		}
		calls := extractCalls(&msg, cfg.Format, r.Turns-1)
		if len(calls) > lim.CallsPerTurn {
			msg.ToolCalls = msg.ToolCalls[:lim.CallsPerTurn:lim.CallsPerTurn]
			r.Messages = append(r.Messages, msg)
			run.agentLimit(FinishMaxCalls)
			return
		}
		r.Messages = append(r.Messages, msg)
		conv += messageBytes(&msg)
		if reply.Tokens != nil {
			t := *reply.Tokens
			t.Message = len(r.Messages) - 1
			r.TurnTokens = append(r.TurnTokens, t)
		}
		if reply.Usage == nil && reply.Tokens != nil && len(reply.Tokens.CompletionTokenIDs) > 0 {
			usage.CompletionTokens += len(reply.Tokens.CompletionTokenIDs)
		}
		for _, c := range calls {
			m := Message{Role: RoleTool, ToolCallID: c.ID, Content: run.call(ctx, c)}
			r.Messages = append(r.Messages, m)
			conv += messageBytes(&m)
		}
		if ctx.Err() != nil {
			r.Finish = FinishCancelled
			return
		}
		spent := cfg.MaxTokens > 0 && usage.CompletionTokens >= cfg.MaxTokens
		if len(calls) > 0 {
			if spent {
				r.Finish = FinishMaxTokens
				return
			}
			continue
		}
		// A reply without calls is the agent's answer, even when it spent
		// the last of the token budget: it is kept and scored.
		answer := msg.Content
		r.Answer = &answer
		if cfg.User == nil {
			r.Finish = FinishStop
			return
		}
		if spent {
			r.Finish = FinishMaxTokens
			return
		}
		u, err := cfg.User.Reply(ctx, r.task, r.Messages[sys:])
		if err != nil {
			run.policyFailed(ctx, fmt.Errorf("user: %w", err))
			return
		}
		m := Message{Role: RoleUser, Content: clip(u, lim.MessageBytes)}
		r.Messages = append(r.Messages, m)
		conv += messageBytes(&m)
		if strings.Contains(u, cfg.StopToken) {
			r.Finish = FinishUserStop
			return
		}
	}
	r.Finish = FinishMaxTurns
}

func (run *episodeRun) policyFailed(ctx context.Context, err error) {
	if ctx.Err() != nil {
		run.r.Finish = FinishCancelled
		return
	}
	run.r.Finish, run.r.PolicyError = FinishPolicyError, clip(err.Error(), run.cfg.Limits.ErrorBytes)
}

// agentLimit ends the rollout on one of the agent's limits: a format error.
func (run *episodeRun) agentLimit(f Finish) {
	run.r.Finish = f
	run.r.FormatError = true
	run.r.FormatErrors++
}

// call runs one of the agent's calls and returns what the agent sees.
// Format errors are the agent's and counted; environment failures are
// counted apart so a trainer can drop them.
func (run *episodeRun) call(ctx context.Context, c agentCall) string {
	r := run.r
	r.ToolCalls++
	if c.malformed != "" {
		return run.formatError(c.malformed)
	}
	name, args := c.Function.Name, c.Function.Arguments
	if run.cfg.MetaTools {
		switch name {
		case MetaListTools:
			b, _ := json.Marshal(run.env.Tools())
			return string(b)
		case MetaCallTool:
			n, a, err := unwrapMeta(args)
			if err != nil {
				return run.formatError(err.Error())
			}
			name, args = n, a
		default:
			return run.formatError(fmt.Sprintf("unknown tool %q: call list_tools, then call_tool", name))
		}
	}
	if !run.known[name] {
		return run.formatError(fmt.Sprintf("unknown tool %q", name))
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	if !json.Valid([]byte(args)) {
		return run.formatError(fmt.Sprintf("arguments for %s are not valid JSON", name))
	}
	start := time.Now()
	res, err := run.ep.Call(ctx, name, []byte(args))
	r.envSeconds += time.Since(start).Seconds()
	r.envSteps++
	if err != nil {
		r.EnvError = true
		r.envErrors++
		return "Error: " + clip(err.Error(), run.cfg.Limits.ErrorBytes)
	}
	switch classify(res) {
	case faultAgent:
		r.FormatError = true
		r.FormatErrors++
	case faultEnv:
		if ctx.Err() == nil {
			r.EnvError = true
			r.envErrors++
		}
	default:
		r.calls = append(r.calls, envpkg.Call{Name: name, Arguments: json.RawMessage(args)})
	}
	return res.Content
}

func (run *episodeRun) formatError(msg string) string {
	run.r.FormatError = true
	run.r.FormatErrors++
	return "Error: " + msg
}
