package rl

import (
	"sort"
)

// Summary describes a finished run. docs/ROLLOUT.md documents every JSON
// field; Print writes it to fit a screen.
type Summary struct {
	Rollouts        int     `json:"rollouts"`
	Groups          int     `json:"groups"`
	DroppedGroups   int     `json:"dropped_groups"` // --drop-equal: written to no file
	Succeeded       int     `json:"succeeded"`      // rollouts whose every check passed
	MeanReward      float64 `json:"mean_reward"`
	FormatErrors    int     `json:"format_errors"` // format errors, summed over rollouts
	WithFormatError int     `json:"rollouts_with_format_error"`
	WithEnvError    int     `json:"rollouts_with_env_error"`
	WithPolicyError int     `json:"rollouts_with_policy_error"`
	Turns           int     `json:"turns"`     // assistant turns, summed
	EnvSteps        int     `json:"env_steps"` // tool calls that reached the runtime
	// EnvBusySeconds is the time spent inside the runtime (opening
	// episodes, calls, scoring) summed over rollouts: rollouts run at once,
	// so it exceeds WallSeconds when the runtime is busy on several cores.
	EnvBusySeconds float64 `json:"env_busy_seconds"`
	// PolicyWaitSeconds is the time waiting for the policy, summed over
	// requests (which overlap in the same way).
	PolicyWaitSeconds float64        `json:"policy_wait_seconds"`
	PolicyP50         float64        `json:"policy_latency_p50_seconds"`
	PolicyP95         float64        `json:"policy_latency_p95_seconds"`
	WallSeconds       float64        `json:"wall_seconds"`
	Finish            map[Finish]int `json:"finish"`
	Envs              []EnvSummary   `json:"envs"`
	Tasks             []TaskSummary  `json:"tasks"` // every task, by env then task id

	envs      map[string]*EnvSummary
	tasks     map[string]*TaskSummary
	latencies []float64
}

// EnvSummary is one environment's figures.
type EnvSummary struct {
	Env         string  `json:"env"`
	Tasks       int     `json:"tasks"`
	Rollouts    int     `json:"rollouts"`
	MeanReward  float64 `json:"mean_reward"`
	SuccessRate float64 `json:"success_rate"`
}

// TaskSummary is one task's figures.
type TaskSummary struct {
	Env         string  `json:"env"`
	Task        string  `json:"task"`
	Rollouts    int     `json:"rollouts"`
	MeanReward  float64 `json:"mean_reward"`
	SuccessRate float64 `json:"success_rate"`
}

func newSummary() *Summary {
	return &Summary{Finish: map[Finish]int{}, envs: map[string]*EnvSummary{}, tasks: map[string]*TaskSummary{}}
}

func (s *Summary) add(rs []*rollout, dropped bool) {
	s.Groups++
	if dropped {
		s.DroppedGroups++
	}
	for _, r := range rs {
		s.Rollouts++
		s.MeanReward += r.Reward
		ok := r.succeeded()
		if ok {
			s.Succeeded++
		}
		s.FormatErrors += r.FormatErrors
		if r.FormatError {
			s.WithFormatError++
		}
		if r.EnvError {
			s.WithEnvError++
		}
		if r.PolicyError != "" {
			s.WithPolicyError++
		}
		s.Turns += r.Turns
		s.EnvSteps += r.envSteps
		s.EnvBusySeconds += r.envSeconds
		s.PolicyWaitSeconds += r.polSeconds
		s.latencies = append(s.latencies, r.latencies...)
		s.Finish[r.Finish]++
		key := r.Env + "/" + r.Task
		t := s.tasks[key]
		if t == nil {
			t = &TaskSummary{Env: r.Env, Task: r.Task}
			s.tasks[key] = t
		}
		t.Rollouts++
		t.MeanReward += r.Reward
		t.SuccessRate += b2f(ok)
		e := s.envs[r.Env]
		if e == nil {
			e = &EnvSummary{Env: r.Env}
			s.envs[r.Env] = e
		}
		e.Rollouts++
		e.MeanReward += r.Reward
		e.SuccessRate += b2f(ok)
	}
}

func (s *Summary) finalize() {
	if s.Rollouts > 0 {
		s.MeanReward /= float64(s.Rollouts)
	}
	if n := len(s.latencies); n > 0 {
		sort.Float64s(s.latencies)
		s.PolicyP50 = s.latencies[n/2]
		s.PolicyP95 = s.latencies[min(n-1, n*95/100)]
		s.latencies = nil
	}
	s.Tasks = s.Tasks[:0]
	for _, t := range s.tasks {
		t.MeanReward /= float64(t.Rollouts)
		t.SuccessRate /= float64(t.Rollouts)
		s.Tasks = append(s.Tasks, *t)
		s.envs[t.Env].Tasks++
	}
	sort.Slice(s.Tasks, func(i, j int) bool {
		a, b := s.Tasks[i], s.Tasks[j]
		return a.Env < b.Env || a.Env == b.Env && a.Task < b.Task
	})
	s.Envs = s.Envs[:0]
	for _, e := range s.envs {
		e.MeanReward /= float64(e.Rollouts)
		e.SuccessRate /= float64(e.Rollouts)
		s.Envs = append(s.Envs, *e)
	}
	sort.Slice(s.Envs, func(i, j int) bool { return s.Envs[i].Env < s.Envs[j].Env })
}

// SuccessRate is the fraction of rollouts whose every check passed.
func (s *Summary) SuccessRate() float64 {
	if s.Rollouts == 0 {
		return 0
	}
	return float64(s.Succeeded) / float64(s.Rollouts)
}

// StepsPerSecond is tool calls run per second of wall time.
func (s *Summary) StepsPerSecond() float64 {
	if s.WallSeconds == 0 {
		return 0
	}
	return float64(s.EnvSteps) / s.WallSeconds
}

// PolicyLatency is the mean seconds per policy request.
func (s *Summary) PolicyLatency() float64 {
	if s.Turns == 0 {
		return 0
	}
	return s.PolicyWaitSeconds / float64(s.Turns)
}

// WorstTasks returns the n tasks with the lowest success rate (then mean
// reward, then id), worst first.
func (s *Summary) WorstTasks(n int) []TaskSummary {
	ts := append([]TaskSummary(nil), s.Tasks...)
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		if a.SuccessRate != b.SuccessRate {
			return a.SuccessRate < b.SuccessRate
		}
		return a.MeanReward < b.MeanReward
	})
	return ts[:min(max(n, 0), len(ts))]
}
