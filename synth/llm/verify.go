package llm

import (
	"context"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

type verifierTask struct {
	ID     string         `json:"id"`
	Calls  []envpkg.Call  `json:"calls"`
	Checks []envpkg.Check `json:"checks"`
	Answer *envpkg.Answer `json:"answer"`
}

type verifiersOut struct {
	Tasks []verifierTask `json:"tasks"`
}

// runVerifiers asks for each task's ground-truth calls and checks, builds
// the environment with them, and gates every task in real episodes; the
// gates' failures are fed back. Tasks still failing when the attempts run
// out are dropped with their reasons.
func (r *envRun) runVerifiers(ctx context.Context) ([]envpkg.Task, error) {
	var out verifiersOut
	err := runStage(ctx, r, stageCall{stage: StageVerifiers, key: r.sc.Name, data: r.base()}, &out, func(ctx context.Context, o *verifiersOut) verdict {
		tasks, probs := r.assemble(o)
		if len(probs) > 0 {
			return verdict{Problems: probs}
		}
		failing, err := r.gateAll(ctx, tasks)
		if err != nil {
			return verdict{Fatal: err}
		}
		for _, t := range tasks {
			probs = append(probs, failing[t.ID]...)
		}
		return verdict{Problems: probs, Score: float64(len(tasks) - len(failing))}
	})
	if err != nil && len(out.Tasks) == 0 {
		return nil, err
	}
	// Keep the tasks of the best attempt that pass every gate.
	tasks, _ := r.assemble(&out)
	failing, gerr := r.gateAll(ctx, tasks)
	if gerr != nil {
		// The assembled tasks do not even build: nothing can be kept.
		return nil, err
	}
	var kept []envpkg.Task
	for _, t := range tasks {
		if f := failing[t.ID]; len(f) > 0 {
			r.rep.Dropped = append(r.rep.Dropped, Dropped{What: "task " + t.ID, Reason: strings.Join(f, "; ")})
			continue
		}
		kept = append(kept, t)
	}
	if len(kept) == 0 {
		if err == nil {
			err = fmt.Errorf("no task passes the gates")
		}
		return nil, err
	}
	return kept, nil
}

// assemble joins the drafts' instructions with the verifiers, dropping
// duplicates and tasks without a verifier.
func (r *envRun) assemble(o *verifiersOut) ([]envpkg.Task, []string) {
	var probs []string
	byID := map[string]taskDraft{}
	for _, d := range r.tasks {
		byID[d.ID] = d
	}
	var tasks []envpkg.Task
	seen := map[string]bool{}
	seenInstr := map[string]bool{}
	for _, v := range o.Tasks {
		d, ok := byID[v.ID]
		if !ok {
			probs = append(probs, fmt.Sprintf("verifier for unknown task %q (the tasks are %s)", v.ID, taskIDs(r.tasks)))
			continue
		}
		if seen[v.ID] {
			probs = append(probs, fmt.Sprintf("task %s has two verifiers", v.ID))
			continue
		}
		seen[v.ID] = true
		norm := strings.Join(strings.Fields(strings.ToLower(d.Instruction)), " ")
		if seenInstr[norm] {
			continue // a duplicate task: the gates of synth keep one
		}
		seenInstr[norm] = true
		t := envpkg.Task{ID: v.ID, Instruction: d.Instruction, Calls: v.Calls, Checks: v.Checks, Answer: v.Answer}
		if t.Calls == nil {
			t.Calls = []envpkg.Call{}
		}
		for i := range t.Calls {
			if len(t.Calls[i].Arguments) == 0 || string(t.Calls[i].Arguments) == "null" {
				t.Calls[i].Arguments = []byte(`{}`)
			}
		}
		if t.Checks == nil {
			t.Checks = []envpkg.Check{}
		}
		if t.Answer != nil && t.Answer.Value == "" {
			t.Answer = nil
		}
		tasks = append(tasks, t)
	}
	return tasks, probs
}

func taskIDs(ts []taskDraft) string {
	var ids []string
	for _, t := range ts {
		ids = append(ids, t.ID)
	}
	return strings.Join(ids, ", ")
}

// gateAll builds the environment with the tasks and gates each; it returns
// the problems of the failing tasks by id. A build failure of the task SQL
// is reported on every task (the compiler names the one at fault).
func (r *envRun) gateAll(ctx context.Context, tasks []envpkg.Task) (map[string][]string, error) {
	env, _, probs, err := r.build(ctx, r.code, tasks)
	if err != nil {
		return nil, err
	}
	failing := map[string][]string{}
	if len(probs) > 0 {
		for _, t := range tasks {
			failing[t.ID] = probs
		}
		return failing, nil
	}
	defer env.Close()
	for _, t := range tasks {
		p, err := gateTask(ctx, env, t)
		if err != nil {
			return nil, err
		}
		if len(p) > 0 {
			failing[t.ID] = p
		}
	}
	return failing, nil
}

// gateTask is the task gate of synth: the task can be scored; its
// ground-truth calls succeed and score 1.0; the initial state scores
// below 1.0.
func gateTask(ctx context.Context, env *runtime.Env, t envpkg.Task) ([]string, error) {
	if len(t.Checks) == 0 && t.Answer == nil {
		return []string{fmt.Sprintf("task %s has no checks and no expected answer: it cannot be scored", t.ID)}, nil
	}
	var probs []string
	var answer *string
	if t.Answer != nil {
		answer = &t.Answer.Value
	}
	ep, err := env.NewEpisode(t.ID, 1)
	if err != nil {
		return []string{fmt.Sprintf("task %s: %v", t.ID, err)}, nil
	}
	for i, c := range t.Calls {
		res, err := ep.Call(ctx, c.Name, c.Arguments)
		if err != nil {
			ep.Close()
			return nil, err
		}
		if res.IsError {
			probs = append(probs, fmt.Sprintf("task %s: ground-truth call %d %s(%s) fails: %s", t.ID, i+1, c.Name, compactJSON(c.Arguments), truncate(res.Content, 300)))
		}
	}
	s, err := ep.Score(ctx, answer)
	ep.Close()
	if err != nil {
		return nil, err
	}
	if !s.AllPassed {
		for _, c := range s.Checks {
			if !c.Passed {
				msg := fmt.Sprintf("task %s: after the ground-truth calls, check %q fails", t.ID, c.Name)
				if c.Error != "" {
					msg += ": " + c.Error
				}
				probs = append(probs, msg)
			}
		}
	}
	ep, err = env.NewEpisode(t.ID, 1)
	if err != nil {
		return nil, err
	}
	s0, err := ep.Score(ctx, nil)
	ep.Close()
	if err != nil {
		return nil, err
	}
	if s0.Reward >= 1 {
		probs = append(probs, fmt.Sprintf("task %s: its checks already pass on the initial state (reward %.2f before any call): a check must test the change or the answer the task asks for", t.ID, s0.Reward))
	}
	return probs, nil
}
