package fleet

import (
	"sort"

	"github.com/wasmenv/wasmenv/rl"
)

// summary adds up the groups' summaries into the run's. Policy latency
// percentiles do not add up: the run's are the largest of its groups'
// (an upper bound, said so in docs/SCALING.md).
type summary struct {
	s     rl.Summary
	tasks map[string]*rl.TaskSummary
}

func newSummary() *summary {
	return &summary{s: rl.Summary{Finish: map[rl.Finish]int{}}, tasks: map[string]*rl.TaskSummary{}}
}

func (m *summary) add(g *rl.Summary) {
	if g == nil {
		return
	}
	s := &m.s
	s.Rollouts += g.Rollouts
	s.Groups += g.Groups
	s.DroppedGroups += g.DroppedGroups
	s.Succeeded += g.Succeeded
	s.MeanReward += g.MeanReward * float64(g.Rollouts) // a sum until finish
	s.FormatErrors += g.FormatErrors
	s.WithFormatError += g.WithFormatError
	s.WithEnvError += g.WithEnvError
	s.WithPolicyError += g.WithPolicyError
	s.Turns += g.Turns
	s.EnvSteps += g.EnvSteps
	s.EnvBusySeconds += g.EnvBusySeconds
	s.PolicyWaitSeconds += g.PolicyWaitSeconds
	s.PolicyP50 = max(s.PolicyP50, g.PolicyP50)
	s.PolicyP95 = max(s.PolicyP95, g.PolicyP95)
	for f, n := range g.Finish {
		s.Finish[f] += n
	}
	for _, t := range g.Tasks {
		key := t.Env + "/" + t.Task
		a := m.tasks[key]
		if a == nil {
			a = &rl.TaskSummary{Env: t.Env, Task: t.Task}
			m.tasks[key] = a
		}
		a.Rollouts += t.Rollouts
		a.MeanReward += t.MeanReward * float64(t.Rollouts)
		a.SuccessRate += t.SuccessRate * float64(t.Rollouts)
	}
}

// finish returns the run's summary with wall seconds wall.
func (m *summary) finish(wall float64) *rl.Summary {
	s := m.s
	if s.Rollouts > 0 {
		s.MeanReward /= float64(s.Rollouts)
	}
	s.WallSeconds = wall
	s.Tasks = nil
	envs := map[string]*rl.EnvSummary{}
	for _, t := range m.tasks {
		a := *t
		e := envs[a.Env]
		if e == nil {
			e = &rl.EnvSummary{Env: a.Env}
			envs[a.Env] = e
		}
		e.Tasks++
		e.Rollouts += a.Rollouts
		e.MeanReward += a.MeanReward
		e.SuccessRate += a.SuccessRate
		if a.Rollouts > 0 {
			a.MeanReward /= float64(a.Rollouts)
			a.SuccessRate /= float64(a.Rollouts)
		}
		s.Tasks = append(s.Tasks, a)
	}
	s.Envs = nil
	for _, e := range envs {
		if e.Rollouts > 0 {
			e.MeanReward /= float64(e.Rollouts)
			e.SuccessRate /= float64(e.Rollouts)
		}
		s.Envs = append(s.Envs, *e)
	}
	sort.Slice(s.Envs, func(i, j int) bool { return s.Envs[i].Env < s.Envs[j].Env })
	sort.Slice(s.Tasks, func(i, j int) bool {
		a, b := s.Tasks[i], s.Tasks[j]
		return a.Env < b.Env || a.Env == b.Env && a.Task < b.Task
	})
	return &s
}
