package compiler

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
)

var nonNameRE = regexp.MustCompile(`[^a-z0-9]+`)

// suggestName turns a display name into a valid environment name.
func suggestName(s string) string {
	n := strings.Trim(nonNameRE.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(n) > 64 {
		n = strings.Trim(n[:64], "-")
	}
	if n == "" {
		n = "my-env"
	}
	return n
}

// validateTasks checks what envpkg checks of every bundle's tasks, but
// names the source line and what is allowed.
func validateTasks(src *source, tools []string) error {
	first := map[string]int{}
	var list ErrorList
	add := func(pos, format string, args ...any) {
		list = append(list, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
	}
	for i, t := range src.tasks {
		p := src.taskPos[i]
		if !envpkg.ValidTaskID(t.ID) {
			add(p.at("id"), "task %d: id %q: use 1 to 128 of A-Z a-z 0-9 _ . : -", i+1, t.ID)
		} else if j, dup := first[t.ID]; dup {
			add(p.at("id"), "task %d: duplicate id %q (first at line %d)", i+1, t.ID, src.taskPos[j].line)
		} else {
			first[t.ID] = i
		}
		for j, c := range t.Calls {
			if !slices.Contains(tools, c.Name) {
				add(p.call(j), "task %s: call %d: unknown tool %q (tools: %s)", t.ID, j+1, c.Name, strings.Join(tools, ", "))
			}
		}
		for j, c := range t.Checks {
			if strings.TrimSpace(c.SQL) == "" {
				add(p.check(j), "task %s: check %d has no sql", t.ID, j+1)
			}
		}
		switch t.Reward {
		case "", envpkg.RewardChecks, envpkg.RewardState:
		default:
			add(p.at("reward"), "task %s: reward %q: want %s or %s", t.ID, t.Reward, envpkg.RewardChecks, envpkg.RewardState)
		}
		if t.Answer != nil && !slices.Contains(envpkg.AnswerMatches, t.Answer.Match) {
			add(p.at("answer"), "task %s: answer match %q: want one of %s", t.ID, t.Answer.Match, strings.Join(envpkg.AnswerMatches, ", "))
		}
		if err := t.Answer.CheckAlone(); err != nil {
			add(p.at("answer"), "task %s: %v", t.ID, err)
		}
		scored := 0
		for _, c := range t.Checks {
			if !c.Guard {
				scored++
			}
		}
		if scored == 0 && t.Answer == nil && t.Reward != envpkg.RewardState {
			add(p.at("id"), "task %s: nothing to score (add a check that is not a guard, an answer, or reward: state)", t.ID)
		}
	}
	if len(list) > 0 {
		return list
	}
	return nil
}
