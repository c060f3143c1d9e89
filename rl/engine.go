package rl

import (
	"context"
	"fmt"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Exporter writes finished groups. Write is called from one goroutine at a
// time; Close finishes the output (a file appears whole or not at all).
type Exporter interface {
	Write(group []Rollout) error
	Close() error
}

// group is one GRPO group: G rollouts on one task of one environment.
type group struct {
	id    string
	env   *runtime.Env
	task  *envpkg.Task
	seed  int64
	tools []envpkg.OpenAITool
	known map[string]bool

	rollouts []*rollout
	left     int
}

type engine struct {
	cfg    Config
	policy Policy
	out    Exporter

	mu      sync.Mutex // guards what follows
	sum     *Summary
	done    int
	total   int
	failure error
}

// Run runs one GRPO group per matching task of every environment, all
// groups at once with at most cfg.Concurrency rollouts in flight, and
// writes each group to out as soon as its last rollout ends. It returns
// when every group is written, or when ctx is done or out fails (groups
// still running are then dropped, their episodes closed). Run does not
// close out.
func Run(ctx context.Context, envs []*runtime.Env, policy Policy, cfg Config, out Exporter) (*Summary, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	groups, err := plan(envs, &cfg)
	if err != nil {
		return nil, err
	}
	e := &engine{cfg: cfg, policy: policy, out: out, sum: newSummary(), total: len(groups) * cfg.Group}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()

	jobs := make(chan job)
	workers := min(cfg.Concurrency, e.total)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				r := e.runRollout(ctx, j)
				if err := e.finish(j.g, r); err != nil {
					cancel()
				}
			}
		}()
	}
feed:
	for _, g := range groups {
		for i := range cfg.Group {
			select {
			case jobs <- job{g: g, index: i}:
			case <-ctx.Done():
				break feed
			}
		}
	}
	close(jobs)
	wg.Wait()
	e.sum.WallSeconds = time.Since(start).Seconds()
	e.sum.finalize()
	if e.failure != nil {
		return e.sum, e.failure
	}
	return e.sum, context.Cause(ctx)
}

// plan lists the groups: every task matching cfg.Tasks in every env.
func plan(envs []*runtime.Env, cfg *Config) ([]*group, error) {
	var groups []*group
	for _, env := range envs {
		tools := env.Bundle.Manifest.OpenAITools
		if len(tools) == 0 {
			tools = envpkg.OpenAIToolsFor(env.Tools())
		}
		if cfg.MetaTools {
			tools = MetaTools()
		}
		known := map[string]bool{}
		for _, t := range env.Tools() {
			known[t.Name] = true
		}
		for i := range env.Bundle.Tasks {
			t := &env.Bundle.Tasks[i]
			ok, err := MatchTask(cfg.Tasks, t.ID)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			groups = append(groups, &group{
				id:  fmt.Sprintf("%s/%s/%d", env.Name(), t.ID, cfg.Seed),
				env: env, task: t, seed: cfg.Seed, tools: tools, known: known,
				left: cfg.Group,
			})
		}
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("no task matches %q", cfg.Tasks)
	}
	return groups, nil
}

// MatchTask reports whether id matches one of the comma-separated globs
// in patterns ("" matches everything): Config.Tasks's rule, which the
// fleet's planner shares so that a fleet run plans the groups a local run
// does. Task ids hold no glob metacharacter and no comma
// (envpkg.ValidTaskID), so an id used as its own pattern matches itself
// alone.
func MatchTask(patterns, id string) (bool, error) {
	if patterns == "" {
		return true, nil
	}
	for _, p := range strings.Split(patterns, ",") {
		ok, err := path.Match(strings.TrimSpace(p), id)
		if err != nil {
			return false, fmt.Errorf("task pattern %q: %w", p, err)
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// finish records a finished rollout; the group's last one scores the group
// and writes it.
func (e *engine) finish(g *group, r *rollout) error {
	if r.Finish != FinishCancelled {
		reward, parts := e.cfg.Reward.Score(rewardInput(r, &e.cfg))
		r.Reward = reward
		for k, v := range parts {
			r.RewardComponents[k] = v
		}
	}
	baseComponents(r)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.done++
	if e.cfg.Progress != nil {
		e.cfg.Progress(e.done, e.total)
	}
	g.rollouts = append(g.rollouts, r)
	g.left--
	if g.left > 0 || e.failure != nil {
		return nil
	}
	for _, r := range g.rollouts {
		if r.Finish == FinishCancelled {
			return nil // a partial group has no meaningful advantages
		}
	}
	rs := make([]Rollout, len(g.rollouts))
	for _, r := range g.rollouts {
		rs[r.Index] = r.Rollout
	}
	dropped := assignAdvantages(rs, e.cfg.Normalize, e.cfg.DropEqual)
	e.sum.add(g.rollouts, dropped)
	g.rollouts = nil // the group's memory goes with its export
	if dropped {
		return nil
	}
	if e.cfg.HistoryWindow > 0 {
		var split []Rollout
		for i := range rs {
			split = append(split, SplitWindows(&rs[i], e.cfg.HistoryWindow)...)
		}
		rs = split
	}
	if err := e.out.Write(rs); err != nil {
		e.failure = fmt.Errorf("export: %w", err)
		return e.failure
	}
	return nil
}
