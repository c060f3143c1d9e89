package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/rl/openai"
	"github.com/wasmenv/wasmenv/synth/retain"
)

// StageRetention is the retention gate's name in reports: it runs after
// the probe, on the bundle the probe kept.
const StageRetention = "retention"

// runRetention is Agent-World's retention gate (synth/retain): the model
// plays each kept task Config.RetainK times as the agent, through rl's
// agent loop, seeing only the rules, the tools and the instruction. Tasks
// the examiner finds at the environment's fault are dropped with their
// reason; the others carry their pass rate as difficulty, and the bundle
// is built again from them. An environment left with no task is dropped.
// The gate's report is stored like a stage's output, so a resumed run
// does not play again.
func (r *envRun) runRetention(ctx context.Context) error {
	k := r.p.cfg.RetainK
	if k == 0 {
		return nil
	}
	tasksJSON, err := json.Marshal(r.final)
	if err != nil {
		return err
	}
	parts := []any{StageRetention, r.sc.Name, r.p.cfg.Client.Model, k, sortedKeys(r.code), r.code, string(tasksJSON)}
	if r.p.cfg.RetainUser {
		parts = append(parts, "simulated user")
	}
	key := r.p.store.key(parts...)
	rep, cached, err := r.cachedRetention(key)
	if err != nil {
		return err
	}
	cached = cached && rep.K == k
	if !cached {
		env, _, probs, err := r.build(ctx, r.code, r.final)
		if err != nil {
			return err
		}
		if len(probs) > 0 {
			return fmt.Errorf("%w: the final build fails: %s", errQuality, strings.Join(probs, "; "))
		}
		got, err := retain.Run(ctx, env, r.retainConfig())
		env.Close()
		if err != nil {
			return err
		}
		rep = *got
		if err := r.storeRetention(key, rep); err != nil {
			return err
		}
	}
	if r.p.cfg.RetainRepairs > 0 {
		repaired, err := r.repairRetention(ctx, &rep, key)
		if err != nil {
			return err
		}
		for i, t := range r.final {
			if fixed, ok := repaired[t.ID]; ok {
				r.final[i] = fixed
			}
		}
		if len(repaired) > 0 {
			// A repaired verifier gets its guard like the others (after
			// its attempts: its pass rate was measured without it).
			if r.final, err = r.guardTasks(ctx, r.final); err != nil {
				return err
			}
		}
	}
	r.rep.Retention = &rep
	r.ledger.add(StageRetention, 1, true, cached, Usage{PromptTokens: rep.PromptTokens, CompletionTokens: rep.CompletionTokens}, 0)
	for _, d := range rep.Dropped() {
		after := ""
		if d.Repairs > 0 {
			after = fmt.Sprintf(" after %d repairs of its verifier", d.Repairs)
		}
		r.drop([]Dropped{{What: "task " + d.ID, Reason: fmt.Sprintf("retention gate: no attempt of %d solved it%s; %s fault: %s", d.Attempts, after, d.Fault, d.Reason)}})
	}
	r.final = rep.Apply(r.final)
	if len(r.final) == 0 {
		return fmt.Errorf("%w: the retention gate dropped every task", errQuality)
	}
	env, b, probs, err := r.build(ctx, r.code, r.final)
	if err != nil {
		return err
	}
	if env != nil {
		env.Close()
	}
	if len(probs) > 0 {
		return fmt.Errorf("%w: the build after the retention gate fails: %s", errQuality, strings.Join(probs, "; "))
	}
	r.bundle = b
	r.rep.Tasks = len(r.final)
	return nil
}

// retainConfig is the gate's configuration: the agent, the examiner and,
// with Config.RetainUser, the simulated user, all on the run's endpoint
// and model.
func (r *envRun) retainConfig() retain.Config {
	c := r.p.cfg.Client
	client := chatapi.New(c.BaseURL, c.APIKey, 0)
	client.Timeout, client.Retries, client.Backoff, client.OnRetry = c.Timeout, c.Retries, c.Backoff, c.OnRetry
	if c.limit != nil {
		client.Limit = c.limit
	}
	temp := c.Temperature
	cfg := retain.Config{K: r.p.cfg.RetainK, Seed: 1, MaxTurns: r.p.cfg.RetainMaxTurns,
		Agent:    &openai.Policy{Client: client, Model: c.Model, Temperature: &temp, MaxTokens: c.MaxTokens},
		Examiner: &retain.LLMExaminer{Client: client, Model: c.Model}, Concurrency: r.p.cfg.Jobs}
	if r.p.cfg.RetainUser {
		cfg.User = &openai.User{Client: client, Model: c.Model, Temperature: &temp}
	}
	return cfg
}
