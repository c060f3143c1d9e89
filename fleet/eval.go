package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
)

// An evaluation runs every task of a task set Spec.Group times (the
// samples) and keeps, per task, how often it succeeded instead of the
// trajectories. Its jobs are chunks of consecutive tasks of one bundle
// (GroupRef.Tasks): a job runs rl.Run over its chunk, so the rollouts,
// seeds (Spec.Seed + sample) and rewards are the engine's, and a task's
// record does not depend on how the tasks were chunked or where they ran.

// MaxChunk bounds the tasks of one evaluation job.
const MaxChunk = 1024

// EvalRecord is one line of an evaluation's output: a task's samples.
type EvalRecord struct {
	Type    string `json:"type"` // "task"
	Env     string `json:"env"`
	EnvHash string `json:"env_hash"`
	Task    string `json:"task"`
	Samples int    `json:"samples"`
	// Successes counts samples whose every check passed; SuccessRate is
	// Successes/Samples (the pass@1 estimate).
	Successes   int     `json:"successes"`
	SuccessRate float64 `json:"success_rate"`
	MeanReward  float64 `json:"mean_reward"`
	// Rewards holds each sample's reward, sample i on seed Spec.Seed+i.
	Rewards []float64         `json:"rewards"`
	Finish  map[rl.Finish]int `json:"finish"`
}

// PlanEval lists the jobs of an evaluation: the tasks Plan selects, cut
// into chunks of at most chunk consecutive tasks of one bundle.
func PlanEval(bundles []*envpkg.Bundle, tasks string, chunk int) ([]GroupRef, error) {
	if chunk < 1 || chunk > MaxChunk {
		return nil, errorf(CodeBadInput, nil, "chunk of %d tasks: want 1 to %d", chunk, MaxChunk)
	}
	groups, err := Plan(bundles, tasks)
	if err != nil {
		return nil, err
	}
	var refs []GroupRef
	for _, g := range groups {
		n := len(refs)
		if n == 0 || refs[n-1].Bundle != g.Bundle || len(refs[n-1].Tasks) == chunk {
			refs = append(refs, GroupRef{Index: n, Bundle: g.Bundle, Env: g.Env})
			n++
		}
		refs[n-1].Tasks = append(refs[n-1].Tasks, g.Task)
	}
	return refs, nil
}

// runEval runs an evaluation job: rl.Run over the chunk's tasks, one
// record per task, in the chunk's order.
func runEval(ctx context.Context, env *runtime.Env, spec *Spec, ref GroupRef, policy rl.Policy, e *Endpoints) (*Result, error) {
	cfg, err := spec.config(e)
	if err != nil {
		return nil, err
	}
	cfg.Tasks = strings.Join(ref.Tasks, ",") // ids match themselves alone (rl.MatchTask)
	// The chunk's rollouts at once, but no more than a group may ask for:
	// the job comes from the queue. A record does not depend on it.
	cfg.Concurrency = min(spec.Group*len(ref.Tasks), MaxGroup)
	got := &capture{byTask: map[string][]rl.Rollout{}}
	sum, err := rl.Run(ctx, []*runtime.Env{env}, policy, cfg, got)
	if err != nil {
		return nil, err
	}
	rates := map[string]rl.TaskSummary{}
	for _, t := range sum.Tasks {
		rates[t.Task] = t
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, id := range ref.Tasks {
		rs, ts := got.byTask[id], rates[id]
		if len(rs) == 0 || ts.Rollouts != len(rs) {
			return nil, errorf(CodeLost, nil, "evaluation of %s/%s: %d rollouts written, %d counted", ref.Env, id, len(rs), ts.Rollouts)
		}
		rec := EvalRecord{Type: "task", Env: ts.Env, EnvHash: env.Bundle.Hash, Task: id, Samples: len(rs),
			Successes:   int(math.Round(ts.SuccessRate * float64(ts.Rollouts))),
			SuccessRate: ts.SuccessRate, MeanReward: ts.MeanReward,
			Rewards: make([]float64, len(rs)), Finish: map[rl.Finish]int{}}
		for _, r := range rs {
			if r.Index < 0 || r.Index >= len(rs) {
				return nil, errorf(CodeLost, nil, "evaluation of %s/%s: sample %d of %d", ref.Env, id, r.Index, len(rs))
			}
			rec.Rewards[r.Index] = r.Reward
			rec.Finish[r.Finish]++
		}
		if err := enc.Encode(&rec); err != nil {
			return nil, err
		}
	}
	return &Result{Index: ref.Index, Lines: buf.Bytes(), Summary: sum}, nil
}

// capture keeps the rollouts rl.Run writes, by task (a job has one
// bundle). rl.Run calls Write from one goroutine at a time.
type capture struct{ byTask map[string][]rl.Rollout }

func (c *capture) Write(group []rl.Rollout) error {
	for _, r := range group {
		// The record keeps numbers, not conversations.
		r.Messages, r.Tools, r.Checks = nil, nil, nil
		c.byTask[r.Task] = append(c.byTask[r.Task], r)
	}
	return nil
}

func (c *capture) Close() error { return nil }
