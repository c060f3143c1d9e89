package rl

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// DefaultWorstTasks is how many tasks Print lists.
const DefaultWorstTasks = 10

// Print writes the summary to fit a screen (lines of at most 100
// characters): the headline, one row per environment and the
// DefaultWorstTasks worst tasks.
func (s *Summary) Print(w io.Writer) { s.PrintTasks(w, DefaultWorstTasks) }

// PrintTasks is Print listing the n worst tasks, or every task by id when
// n < 0.
func (s *Summary) PrintTasks(w io.Writer, n int) {
	fmt.Fprintf(w, "%d rollouts in %d groups (%d dropped) in %.1fs: success %.1f%%, mean reward %.3f\n",
		s.Rollouts, s.Groups, s.DroppedGroups, s.WallSeconds, 100*s.SuccessRate(), s.MeanReward)
	fmt.Fprintf(w, "env steps %d (%.0f/s); policy %.1f ms/turn (p50 %.1f, p95 %.1f) over %d turns\n",
		s.EnvSteps, s.StepsPerSecond(), 1000*s.PolicyLatency(), 1000*s.PolicyP50, 1000*s.PolicyP95, s.Turns)
	fmt.Fprintf(w, "errors: format %d (in %d rollouts), env in %d rollouts, policy in %d rollouts\n",
		s.FormatErrors, s.WithFormatError, s.WithEnvError, s.WithPolicyError)
	var fs []string
	for f, k := range s.Finish {
		fs = append(fs, fmt.Sprintf("%s=%d", f, k))
	}
	sort.Strings(fs)
	fmt.Fprintln(w, wrap("finish: "+strings.Join(fs, " "), 100))
	if len(s.Envs) > 0 {
		fmt.Fprintf(w, "\n%-46s %7s %9s %8s %8s\n", "env", "tasks", "rollouts", "reward", "success")
		for _, e := range s.Envs {
			fmt.Fprintf(w, "%-46s %7d %9d %8.3f %7.1f%%\n", cut(e.Env, 46), e.Tasks, e.Rollouts, e.MeanReward, 100*e.SuccessRate)
		}
	}
	tasks := s.Tasks
	if n >= 0 {
		tasks = s.WorstTasks(n)
	}
	if len(tasks) == 0 {
		return
	}
	switch {
	case n < 0:
		fmt.Fprintf(w, "\nevery task (%d)\n", len(tasks))
	case len(tasks) < len(s.Tasks):
		fmt.Fprintf(w, "\nworst %d of %d tasks (all: --summary-tasks, or \"tasks\" in --summary-json)\n", len(tasks), len(s.Tasks))
	default:
		fmt.Fprintf(w, "\ntasks, worst first\n")
	}
	fmt.Fprintf(w, "%-64s %6s %8s %8s\n", "env/task", "n", "reward", "success")
	for _, t := range tasks {
		fmt.Fprintf(w, "%-64s %6d %8.3f %7.1f%%\n", cut(t.Env+"/"+t.Task, 64), t.Rollouts, t.MeanReward, 100*t.SuccessRate)
	}
}

// cut shortens s to n characters, marking the cut with "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// wrap breaks a line of space-separated words at width, indenting
// continuation lines.
func wrap(s string, width int) string {
	var b strings.Builder
	col := 0
	for i, word := range strings.Fields(s) {
		if i > 0 && col+1+len(word) > width {
			b.WriteString("\n   ")
			col = 3
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(word)
		col += len(word)
	}
	return b.String()
}
