package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/retain"
)

// StageRetentionRepair names, in reports, the repairs of tasks the
// retention gate found at the environment's fault.
const StageRetentionRepair = "retention-repair"

// repairOutcome is what the repairs of one environment's gate leave: the
// gate's report with the repaired tasks' new results, and the repaired
// tasks (new ground truth, checks or answer rule; the instruction is the
// task stage's).
type repairOutcome struct {
	Report   retain.Report `json:"report"`
	Repaired []envpkg.Task `json:"repaired,omitempty"`
	Trials   int           `json:"trials"`
}

// repairRetention repairs the tasks rep dropped at the environment's fault
// (Agent-World's examination: a wrong ground truth, a verifier that rejects
// a right solution, an ambiguous instruction). Each round sends the
// verifiers stage (its own prompt, those tasks' verifiers as its earlier
// answer, and the repair message) the examiner's reason for each task as
// the problem; the answer is gated as the verifiers stage's is (under
// every gate seed), and the tasks that pass are played again k times and
// examined. A task solved, or unsolved at the agent's fault, is kept with
// its new verifier (its result in rep carries Repairs); one still at the
// environment's fault after Config.RetainRepairs rounds stays dropped with
// the last reason. Tasks dropped unexamined (an environment error) are
// repaired too: the tool error is their reason. The outcome is stored
// like a stage's, so a resumed run does not ask again. It returns the
// repaired tasks by id.
func (r *envRun) repairRetention(ctx context.Context, rep *retain.Report, gateKey string) (map[string]envpkg.Task, error) {
	byID := map[string]envpkg.Task{}
	for _, t := range r.final {
		byID[t.ID] = t
	}
	var pending []string
	for _, t := range rep.Tasks {
		if t.Fate == retain.Dropped && t.Fault == retain.EnvFault && byID[t.ID].ID != "" {
			pending = append(pending, t.ID)
		}
	}
	if len(pending) == 0 {
		return nil, nil
	}
	key := r.p.store.key(StageRetentionRepair, r.sc.Name, r.p.cfg.Client.Model, r.p.cfg.RetainRepairs, gateKey)
	var c cachedStage
	var out repairOutcome
	if ok, err := r.p.store.get(key, &c); err != nil {
		return nil, err
	} else if ok && c.Scenario == r.sc.Name && c.Stage == StageRetentionRepair && json.Unmarshal(c.Accepted, &out) == nil {
		r.ledger.add(StageRetentionRepair, out.Trials, len(out.Repaired) > 0, true, c.Usage, c.Cost)
	} else {
		var usage Usage
		var cost float64
		out, usage, cost, err = r.repairRounds(ctx, *rep, byID, pending)
		if err != nil {
			return nil, err
		}
		r.ledger.add(StageRetentionRepair, out.Trials, len(out.Repaired) > 0, false, usage, cost)
		accepted, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		if err := r.p.store.put(key, cachedStage{Scenario: r.sc.Name, Stage: StageRetentionRepair, Accepted: accepted, Usage: usage, Cost: cost}); err != nil {
			return nil, err
		}
	}
	*rep = out.Report
	repaired := map[string]envpkg.Task{}
	for _, t := range out.Repaired {
		repaired[t.ID] = t
	}
	return repaired, nil
}

// repairRounds runs the rounds of repairRetention.
func (r *envRun) repairRounds(ctx context.Context, rep retain.Report, byID map[string]envpkg.Task, pending []string) (repairOutcome, Usage, float64, error) {
	var usage Usage
	var cost float64
	out := repairOutcome{Report: rep}
	out.Report.Tasks = append([]retain.TaskResult(nil), rep.Tasks...)
	result := map[string]*retain.TaskResult{}
	for i := range out.Report.Tasks {
		result[out.Report.Tasks[i].ID] = &out.Report.Tasks[i]
	}
	msgs, err := r.p.prompts.messages(StageVerifiers, r.base())
	if err != nil {
		return out, usage, cost, err
	}
	// The earlier answer: the verifiers of the tasks at fault, as the
	// verifiers stage's schema has them.
	var earlier verifiersOut
	for _, id := range pending {
		t := byID[id]
		earlier.Tasks = append(earlier.Tasks, verifierTask{ID: t.ID, Calls: t.Calls, Checks: modelChecks(t.Checks), Answer: t.Answer})
	}
	answer := mustJSON(earlier)
	problems := map[string]string{}
	for _, id := range pending {
		problems[id] = examinerProblem(result[id])
	}
	for round := 1; round <= r.p.cfg.RetainRepairs && len(pending) > 0; round++ {
		var probs []string
		for _, id := range pending {
			probs = append(probs, problems[id])
		}
		fb, err := r.p.prompts.feedbackMessage(StageVerifiers, round, summarize(probs))
		if err != nil {
			return out, usage, cost, err
		}
		msgs = append(msgs, Message{Role: "assistant", Content: answer}, Message{Role: "user", Content: fb})
		if n := len(msgs); n > 2+2*keptRepairs {
			msgs = append(msgs[:2:2], msgs[n-2*keptRepairs:]...)
		}
		r.logf("retention repair round %d: %s", round, strings.Join(pending, ", "))
		resp, err := r.p.cfg.Client.Chat(ctx, Request{Messages: msgs, Schema: r.p.prompts.schemaRaw[StageVerifiers], SchemaName: StageVerifiers})
		if err != nil {
			return out, usage, cost, fmt.Errorf("%s: %w", StageRetentionRepair, err)
		}
		out.Trials++
		usage.PromptTokens += resp.Usage.PromptTokens
		usage.CompletionTokens += resp.Usage.CompletionTokens
		usage.TotalTokens += resp.Usage.TotalTokens
		cost += r.p.cfg.Client.Prices.Cost(resp.Usage)
		answer = resp.Message.Content
		tasks, err := r.repairAnswer(answer, pending, problems, round)
		if err != nil {
			return out, usage, cost, err
		}
		if len(tasks) == 0 {
			continue // nothing to gate: the problems go back next round
		}
		failing, err := r.gateAll(ctx, tasks)
		if err != nil {
			return out, usage, cost, err
		}
		for id, why := range r.shortTasks(tasks, failing) {
			failing[id] = append(failing[id], why) // a repair keeps the run's depth
		}
		var playable []envpkg.Task
		for _, t := range tasks {
			if f := failing[t.ID]; len(f) > 0 {
				problems[t.ID] = strings.Join(f, "; ")
				result[t.ID].Reason = fmt.Sprintf("repair %d fails the gates: %s", round, strings.Join(f, "; "))
				result[t.ID].Repairs = round
				continue
			}
			playable = append(playable, t)
		}
		if len(playable) > 0 {
			played, err := r.playRepaired(ctx, playable)
			if err != nil {
				return out, usage, cost, err
			}
			out.Report.PromptTokens += played.PromptTokens
			out.Report.CompletionTokens += played.CompletionTokens
			for _, res := range played.Tasks {
				res.Repairs = round
				*result[res.ID] = res
				if res.Fate == retain.Dropped {
					problems[res.ID] = examinerProblem(&res)
					continue
				}
				for _, t := range playable {
					if t.ID == res.ID {
						out.Repaired = append(out.Repaired, t)
					}
				}
			}
		}
		pending = pending[:0:0]
		for _, res := range out.Report.Tasks {
			if _, asked := problems[res.ID]; asked && res.Fate == retain.Dropped {
				pending = append(pending, res.ID)
			}
		}
	}
	sort.Slice(out.Repaired, func(i, j int) bool { return out.Repaired[i].ID < out.Repaired[j].ID })
	return out, usage, cost, nil
}

// repairAnswer validates a repair answer and assembles the tasks it
// answers of pending; what is wrong with it becomes the problem of every
// pending task for the next round (an answer that does not parse repairs
// nothing).
func (r *envRun) repairAnswer(content string, pending []string, problems map[string]string, round int) ([]envpkg.Task, error) {
	var v verifiersOut
	if err := r.p.prompts.validate(StageVerifiers, content, &v); err != nil {
		for _, id := range pending {
			problems[id] = err.Error()
		}
		return nil, nil
	}
	want := map[string]bool{}
	for _, id := range pending {
		want[id] = true
	}
	var mine verifiersOut
	for _, t := range v.Tasks {
		if want[t.ID] {
			mine.Tasks = append(mine.Tasks, t)
			delete(want, t.ID)
		}
	}
	for id := range want {
		problems[id] = fmt.Sprintf("task %s: the answer has no verifier for it (repair %d)", id, round)
	}
	tasks, probs := r.assemble(&mine)
	if len(probs) > 0 {
		for _, t := range tasks {
			problems[t.ID] = strings.Join(probs, "; ")
		}
		return nil, nil
	}
	return tasks, nil
}

// playRepaired plays the repaired tasks k times, as the gate played them
// first, and examines the unsolved ones.
func (r *envRun) playRepaired(ctx context.Context, tasks []envpkg.Task) (*retain.Report, error) {
	env, _, probs, err := r.build(ctx, r.code, tasks)
	if err != nil {
		return nil, err
	}
	if len(probs) > 0 {
		return nil, fmt.Errorf("%w: the build of the repaired tasks fails: %s", errQuality, strings.Join(probs, "; "))
	}
	defer env.Close()
	return retain.Run(ctx, env, r.retainConfig())
}

// examinerProblem is the repair problem of a task the gate dropped: the
// examiner's reason, quoted (it is the model's text, data to the model).
func examinerProblem(res *retain.TaskResult) string {
	return fmt.Sprintf("task %s: the retention gate had an agent play it %d times and no attempt solved it; the examiner found the environment at fault: %q. Answer this task's verifier again so that a right solution passes and a wrong one still fails (ground-truth calls, checks, and an answer rule that accepts a right answer however the agent words it)",
		res.ID, res.Attempts, res.Reason)
}
