package llm

import (
	"fmt"

	"github.com/wasmenv/wasmenv/synth/retain"
	"io"
	"sort"
	"strings"
	"sync"
)

// StageStats account for one stage: how often it ran, how often it passed,
// the model calls (trials) it took, and their tokens and cost.
type StageStats struct {
	Runs             int     `json:"runs"`
	Passed           int     `json:"passed"`
	FirstTry         int     `json:"first_try"` // passed on the first attempt
	Cached           int     `json:"cached"`
	Trials           int     `json:"trials"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Cost             float64 `json:"cost_usd"`
}

// SuccessRate is the fraction of runs that passed.
func (s StageStats) SuccessRate() float64 {
	if s.Runs == 0 {
		return 0
	}
	return float64(s.Passed) / float64(s.Runs)
}

func (s *StageStats) merge(o StageStats) {
	s.Runs += o.Runs
	s.Passed += o.Passed
	s.FirstTry += o.FirstTry
	s.Cached += o.Cached
	s.Trials += o.Trials
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.Cost += o.Cost
}

// ledger collects StageStats; safe for concurrent use.
type ledger struct {
	mu     sync.Mutex
	stages map[string]*StageStats
}

func newLedger() *ledger { return &ledger{stages: map[string]*StageStats{}} }

func (l *ledger) add(stage string, trials int, passed, cached bool, u Usage, cost float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stages[stage]
	if s == nil {
		s = &StageStats{}
		l.stages[stage] = s
	}
	s.Runs++
	if passed {
		s.Passed++
		if trials == 1 && !cached {
			s.FirstTry++
		}
	}
	if cached {
		s.Cached++
	} else {
		s.Trials += trials
		s.PromptTokens += u.PromptTokens
		s.CompletionTokens += u.CompletionTokens
		s.Cost += cost
	}
}

func (l *ledger) snapshot() map[string]StageStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]StageStats, len(l.stages))
	for k, v := range l.stages {
		out[k] = *v
	}
	return out
}

// Dropped is something left out, with the reason.
type Dropped struct {
	What   string `json:"what"`
	Reason string `json:"reason"`
}

// EnvReport is one scenario's outcome.
type EnvReport struct {
	Scenario  Scenario              `json:"scenario"`
	Kept      bool                  `json:"kept"`
	Reason    string                `json:"reason,omitempty"` // why it was dropped
	Dir       string                `json:"dir,omitempty"`
	Bundle    string                `json:"bundle,omitempty"`
	Tools     int                   `json:"tools"`
	Tasks     int                   `json:"tasks"`
	Tests     int                   `json:"tool_tests"`
	PassRate  float64               `json:"probe_pass_rate"`
	Stages    map[string]StageStats `json:"stages"`
	Dropped   []Dropped             `json:"dropped,omitempty"` // tasks, tests, statements left out
	Repairs   []string              `json:"repairs,omitempty"` // per failed attempt: the problems fed back to the model
	GateNotes []string              `json:"gates,omitempty"`
	// Retention is the retention gate's outcome (nil: the gate was off).
	Retention *retain.Report `json:"retention,omitempty"`
}

// BatchReport is the outcome of a whole run (AWM's Table 1 is the model).
type BatchReport struct {
	Model         string                `json:"model"`
	Proposed      int                   `json:"scenarios_proposed"`
	Scenarios     int                   `json:"scenarios"` // after deduplication
	Duplicates    []Dropped             `json:"duplicates,omitempty"`
	DedupMethod   string                `json:"dedup_method,omitempty"`
	Kept          int                   `json:"kept"`
	Envs          []EnvReport           `json:"envs"`
	Stages        map[string]StageStats `json:"stages"`
	TotalTokens   int                   `json:"total_tokens"`
	TotalCost     float64               `json:"total_cost_usd"`
	TasksKept     int                   `json:"tasks_kept"`
	ToolsKept     int                   `json:"tools_kept"`
	ScenarioStage StageStats            `json:"scenario_stage"`
}

func (b *BatchReport) total() {
	b.Stages = map[string]StageStats{}
	b.Kept, b.TasksKept, b.ToolsKept, b.TotalTokens, b.TotalCost = 0, 0, 0, 0, 0
	all := []map[string]StageStats{{StageScenarios: b.ScenarioStage}}
	for _, e := range b.Envs {
		all = append(all, e.Stages)
		if e.Kept {
			b.Kept++
			b.TasksKept += e.Tasks
			b.ToolsKept += e.Tools
		}
	}
	for _, m := range all {
		for k, v := range m {
			s := b.Stages[k]
			s.merge(v)
			b.Stages[k] = s
		}
	}
	for _, s := range b.Stages {
		b.TotalTokens += s.PromptTokens + s.CompletionTokens
		b.TotalCost += s.Cost
	}
}

// WriteMarkdown writes the report as tables: per stage, then per environment.
func (b *BatchReport) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "# synth llm report\n\nModel `%s`: %d scenarios proposed, %d near-duplicates dropped (%s), %d environments kept of %d with %d tools and %d tasks; %d tokens, $%.4f.\n\n",
		b.Model, b.Proposed, len(b.Duplicates), orDash(b.DedupMethod), b.Kept, b.Scenarios, b.ToolsKept, b.TasksKept, b.TotalTokens, b.TotalCost)
	fmt.Fprintf(w, "| stage | runs | passed | success | first try | trials | cached | prompt tokens | completion tokens | cost $ |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, st := range Stages {
		s, ok := b.Stages[st]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "| %s | %d | %d | %.0f%% | %d | %d | %d | %d | %d | %.4f |\n", st, s.Runs, s.Passed, 100*s.SuccessRate(),
			s.FirstTry, s.Trials, s.Cached, s.PromptTokens, s.CompletionTokens, s.Cost)
	}
	fmt.Fprintf(w, "\n| environment | kept | tools | tasks | tool tests | probe pass rate | dropped | reason |\n|---|---|---:|---:|---:|---:|---:|---|\n")
	envs := append([]EnvReport(nil), b.Envs...)
	sort.Slice(envs, func(i, j int) bool { return envs[i].Scenario.Name < envs[j].Scenario.Name })
	for _, e := range envs {
		fmt.Fprintf(w, "| %s | %v | %d | %d | %d | %.2f | %d | %s |\n", e.Scenario.Name, e.Kept, e.Tools, e.Tasks, e.Tests,
			e.PassRate, len(e.Dropped), strings.ReplaceAll(orDash(e.Reason), "|", "\\|"))
	}
	for _, d := range b.Duplicates {
		fmt.Fprintf(w, "\nDuplicate scenario dropped: %s (%s).", d.What, d.Reason)
	}
	fmt.Fprintln(w)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(s, "\n", " ")
}
