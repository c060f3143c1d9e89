package rl

import (
	"fmt"
	"io"
	"sort"
)

// Summary describes a finished run.
type Summary struct {
	Rollouts      int            `json:"rollouts"`
	Groups        int            `json:"groups"`
	DroppedGroups int            `json:"dropped_groups"`
	Succeeded     int            `json:"succeeded"` // every check passed
	MeanReward    float64        `json:"mean_reward"`
	FormatErrors  int            `json:"format_errors"`
	WithFormatErr int            `json:"rollouts_with_format_error"`
	EnvErrors     int            `json:"rollouts_with_env_error"`
	PolicyErrors  int            `json:"rollouts_with_policy_error"`
	Turns         int            `json:"turns"`
	EnvSteps      int            `json:"env_steps"`
	EnvSeconds    float64        `json:"env_seconds"`    // summed over rollouts
	PolicySeconds float64        `json:"policy_seconds"` // summed over policy requests
	PolicyP50     float64        `json:"policy_latency_p50_seconds"`
	PolicyP95     float64        `json:"policy_latency_p95_seconds"`
	Wall          float64        `json:"wall_seconds"`
	Finish        map[Finish]int `json:"finish"`
	Tasks         []TaskSummary  `json:"tasks"`

	tasks     map[string]*TaskSummary
	latencies []float64
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
	return &Summary{Finish: map[Finish]int{}, tasks: map[string]*TaskSummary{}}
}

func (s *Summary) add(rs []Rollout, dropped bool) {
	s.Groups++
	if dropped {
		s.DroppedGroups++
	}
	for i := range rs {
		r := &rs[i]
		s.Rollouts++
		s.MeanReward += r.Reward
		ok := r.RewardComponents["all_passed"] == 1
		if ok {
			s.Succeeded++
		}
		s.FormatErrors += r.FormatErrors
		if r.FormatError {
			s.WithFormatErr++
		}
		if r.EnvError {
			s.EnvErrors++
		}
		if r.PolicyError != "" {
			s.PolicyErrors++
		}
		s.Turns += r.Turns
		s.EnvSteps += r.envSteps
		s.EnvSeconds += r.envSeconds
		s.PolicySeconds += r.polSeconds
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
	}
	sort.Slice(s.Tasks, func(i, j int) bool {
		a, b := s.Tasks[i], s.Tasks[j]
		return a.Env < b.Env || a.Env == b.Env && a.Task < b.Task
	})
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
	if s.Wall == 0 {
		return 0
	}
	return float64(s.EnvSteps) / s.Wall
}

// PolicyLatency is the mean seconds per policy request.
func (s *Summary) PolicyLatency() float64 {
	if s.Turns == 0 {
		return 0
	}
	return s.PolicySeconds / float64(s.Turns)
}

// Print writes a human summary.
func (s *Summary) Print(w io.Writer) {
	fmt.Fprintf(w, "%d rollouts in %d groups (%d dropped) in %.1fs\n", s.Rollouts, s.Groups, s.DroppedGroups, s.Wall)
	fmt.Fprintf(w, "success rate %.1f%%, mean reward %.3f\n", 100*s.SuccessRate(), s.MeanReward)
	fmt.Fprintf(w, "env steps %d (%.0f/s), policy latency %.1f ms/turn (p50 %.1f, p95 %.1f) over %d turns\n",
		s.EnvSteps, s.StepsPerSecond(), 1000*s.PolicyLatency(), 1000*s.PolicyP50, 1000*s.PolicyP95, s.Turns)
	fmt.Fprintf(w, "format errors %d (in %d rollouts), env errors in %d rollouts, policy errors in %d rollouts\n",
		s.FormatErrors, s.WithFormatErr, s.EnvErrors, s.PolicyErrors)
	var fs []string
	for f := range s.Finish {
		fs = append(fs, string(f))
	}
	sort.Strings(fs)
	fmt.Fprint(w, "finish:")
	for _, f := range fs {
		fmt.Fprintf(w, " %s=%d", f, s.Finish[Finish(f)])
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-40s %8s %8s %8s\n", "task", "n", "reward", "success")
	for _, t := range s.Tasks {
		fmt.Fprintf(w, "%-40s %8d %8.3f %7.0f%%\n", t.Env+"/"+t.Task, t.Rollouts, t.MeanReward, 100*t.SuccessRate)
	}
}
