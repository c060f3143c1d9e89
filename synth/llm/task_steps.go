package llm

import (
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Tasks of depth (Config.TaskSteps, `synth llm --task-steps N`).
//
// A task that one lookup answers teaches an agent little: the domain
// standard asks a median of at least 4 ground-truth calls, and a decision
// the agent makes from what it reads. Under the option the tasks stage
// asks for such tasks (prompts/tasks.tmpl), the verifiers stage measures
// them (a task whose ground truth, replayed by the gates, makes fewer than
// N calls is fed back once, then dropped with the reason), and the rules
// the agent sees state the application's clock, so that "today" and
// "tomorrow" in a request can be worked out. Without the option nothing
// of this runs and every prompt is the one recorded runs were answered
// with.

// shortTasks returns, by task id, why each task that passed every gate is
// too short: its ground truth makes fewer than Config.TaskSteps calls.
// Tasks that fail a gate are left to the gates' reasons. Nil when the
// option is off.
func (r *envRun) shortTasks(tasks []envpkg.Task, failing map[string][]string) map[string]string {
	n := r.p.cfg.TaskSteps
	if n <= 0 {
		return nil
	}
	short := map[string]string{}
	for _, t := range tasks {
		if len(failing[t.ID]) > 0 || len(t.Calls) >= n {
			continue
		}
		short[t.ID] = fmt.Sprintf("task %s: its ground truth makes %d tool calls, fewer than the %d steps this run asks of every task: "+
			"write the calls a careful assistant really makes for this request (identify the user, look up the rows the decision depends on, act on each row); "+
			"do not add calls the request does not need: a task that needs fewer steps is dropped", t.ID, len(t.Calls), n)
	}
	return short
}

// stepsCheck is the verifiers stage's state for the step count: the first
// attempt whose only problems are short tasks is fed back; a later one is
// accepted, and its short tasks dropped with their reasons. One repair is
// what an honest answer can use: the instruction does not change in the
// verifiers stage, so a task that needs fewer calls stays short however
// often it is asked.
type stepsCheck struct{ fedBack bool }

// verdict merges the short tasks into failing (so that the stage drops
// them with their reasons) and says whether the attempt is accepted
// although it has some.
func (s *stepsCheck) verdict(failing map[string][]string, short map[string]string) (accept bool) {
	if len(short) == 0 {
		return false
	}
	onlyShort := true
	for id, f := range failing {
		if _, ok := short[id]; !ok && len(f) > 0 {
			onlyShort = false
		}
	}
	for id, why := range short {
		failing[id] = append(failing[id], why)
	}
	if !onlyShort {
		return false
	}
	if s.fedBack {
		return true
	}
	s.fedBack = true
	return false
}

// clockRule is the sentence the rules gain under the option: the
// application's clock, as the agent needs it to read "today" or "by
// Friday" in a request.
func clockRule(clock time.Time) string {
	c := clock.UTC()
	return fmt.Sprintf("Today is %s (the application's clock: %s); dates such as \"today\", \"tomorrow\" or \"next Monday\" in a request are relative to it.",
		c.Format("Monday, 2 January 2006"), c.Format(time.RFC3339))
}

// withClockRule appends clockRule to rules under the option.
func (r *envRun) withClockRule(rules string) string {
	if r.p.cfg.TaskSteps <= 0 {
		return rules
	}
	rules = strings.TrimRight(rules, " \n")
	if rules == "" {
		return clockRule(r.p.cfg.Clock)
	}
	return rules + "\n\n" + clockRule(r.p.cfg.Clock)
}
