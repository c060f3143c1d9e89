package llm

import (
	"context"
	"fmt"
	"regexp"
)

// The tasks stage: k task drafts (an id, an instruction, read or write)
// per scenario, before any schema exists (AWM's order).

var taskIDRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]+$`)

func (r *envRun) runTasks(ctx context.Context) error {
	var out struct {
		Tasks []taskDraft `json:"tasks"`
	}
	err := runStage(ctx, r, stageCall{stage: StageTasks, key: r.sc.Name, data: r.base()}, &out, func(_ context.Context, o *struct {
		Tasks []taskDraft `json:"tasks"`
	}) verdict {
		var probs []string
		seen := map[string]bool{}
		for i, t := range o.Tasks {
			if !taskIDRE.MatchString(t.ID) {
				probs = append(probs, fmt.Sprintf("task %d: id %q must match [A-Za-z0-9_.:-]+", i+1, t.ID))
			}
			if seen[t.ID] {
				probs = append(probs, fmt.Sprintf("task id %q is repeated", t.ID))
			}
			seen[t.ID] = true
		}
		if len(o.Tasks) > r.p.cfg.TasksPerScenario {
			o.Tasks = o.Tasks[:r.p.cfg.TasksPerScenario]
		}
		return verdict{Problems: probs, Score: float64(len(o.Tasks) - len(probs))}
	})
	r.tasks = out.Tasks
	return err
}
