package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/gates"
)

type verifierTask struct {
	ID     string         `json:"id"`
	Calls  []envpkg.Call  `json:"calls"`
	Checks []envpkg.Check `json:"checks"`
	Answer *envpkg.Answer `json:"answer"`
}

type verifiersOut struct {
	Tasks []verifierTask `json:"tasks"`
	// Failing are the gates' problems by task id, as the check found
	// them; set by the check, not by the model.
	Failing map[string][]string `json:"failing,omitempty"`
}

// runVerifiers asks for each task's ground-truth calls and checks, builds
// the environment with them, and gates every task in real episodes; the
// gates' failures are fed back. Tasks still failing when the attempts run
// out are dropped with their reasons; the kept ones are r.final.
func (r *envRun) runVerifiers(ctx context.Context) error {
	var out verifiersOut
	var steps stepsCheck
	err := runStage(ctx, r, stageCall{stage: StageVerifiers, key: r.sc.Name, data: r.base()}, &out, func(ctx context.Context, o *verifiersOut) verdict {
		o.Failing = nil
		tasks, probs := r.assemble(o)
		if len(probs) > 0 {
			return verdict{Problems: probs}
		}
		failing, err := r.gateAll(ctx, tasks)
		if err != nil {
			return verdict{Fatal: err}
		}
		accept := steps.verdict(failing, r.shortTasks(tasks, failing))
		o.Failing = failing
		for _, t := range tasks {
			probs = append(probs, failing[t.ID]...)
		}
		return verdict{Problems: probs, Score: float64(len(tasks) - len(failing)), Accept: accept}
	})
	if err != nil && len(out.Tasks) == 0 {
		return err
	}
	// Keep the tasks of the kept (or best) attempt that pass every gate, as
	// its check found them: no second build, no second run of the gates.
	tasks, probs := r.assemble(&out)
	failing := out.Failing
	if len(probs) > 0 {
		// The best attempt did not assemble cleanly, so its check ran no
		// gates: run them on the tasks it has.
		var gerr error
		if failing, gerr = r.gateAll(ctx, tasks); gerr != nil {
			return gerr // was `return nil, err`: a gate failure came back as success
		}
		for id, why := range r.shortTasks(tasks, failing) {
			failing[id] = append(failing[id], why)
		}
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
		return err
	}
	if r.final, err = r.guardTasks(ctx, kept); err != nil {
		return err
	}
	return nil
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
		if a := t.Answer; a != nil && a.Alone == nil && (a.Match == "contains" || a.Match == "exact") {
			// The answer is this value alone (envpkg.Alone): "0 1 2 … 20
			// blue" or a tool output pasted whole does not pass for
			// "blue", which the gates try.
			a.Alone = &envpkg.Alone{Value: a.Value}
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

// gateSeeds are the episode seeds the gates run under. A second seed
// catches checks bound to values a tool drew from the episode's random
// source (ids, codes): such a check passes under one seed only.
var gateSeeds = []int64{1, 2}

// gateAll builds the environment with the tasks and runs synth's gates
// (the same gates as synth from-db) on each, under every gate seed; it
// returns the problems of the failing tasks by id. A build failure of the
// task SQL is reported on every task (the compiler names the one at fault).
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
	return gateTasks(ctx, env, tasks)
}

// gateTasks runs the gates of synth/gates on tasks in env.
func gateTasks(ctx context.Context, env *runtime.Env, tasks []envpkg.Task) (map[string][]string, error) {
	failing := map[string][]string{}
	for _, seed := range gateSeeds {
		checker := gates.New(env, seed)
		for _, t := range tasks {
			if len(failing[t.ID]) > 0 {
				continue
			}
			_, err := checker.Check(ctx, gates.Candidate{Task: t})
			var rej *gates.Rejection
			if errors.As(err, &rej) {
				failing[t.ID] = append(failing[t.ID], fmt.Sprintf("task %s fails gate %s (seed %d): %s%s", t.ID, rej.Gate, seed, rej.Reason, gateHint[rej.Gate]))
				continue
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return failing, nil
}

// gateHint tells the model what a gate wants.
var gateHint = map[gates.Gate]string{
	gates.Initial:    ": a check must test the change or the answer the task asks for, so that it fails before any call",
	gates.Replay:     ": the ground-truth calls must succeed and make every check pass (find rows by content, not by ids or times tools generate)",
	gates.Nontrivial: ": every check must read the final state (main.) and a task that writes needs a check that fails on the initial state",
	gates.Duplicate:  ": every task must differ from the others",
	gates.Leak:       ": the instruction must not name internal ids",
	gates.Wrong:      ": the answer rule must reject wrong answers (no pattern that matches anything, no short 'contains') and the checks must fail when another row or another table changed (compare the whole final state with init)",
}
