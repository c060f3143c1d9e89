package arena

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// Report is the failure report of one evaluation: what the diagnosis reads.
// Every count is over rollouts the environment did not fail (an env error
// says nothing about the agent, so those rollouts are only counted in
// EnvFaults).
type Report struct {
	Rollouts     int              `json:"rollouts"`
	Succeeded    int              `json:"succeeded"`
	SuccessRate  float64          `json:"success_rate"`
	EnvFaults    int              `json:"env_faults"`
	PolicyFaults int              `json:"policy_faults"` // policy endpoint failed or run cancelled: not the agent's doing
	FormatErrors int              `json:"format_errors"`
	Outcomes     map[string]int   `json:"outcomes"`
	Finish       map[string]int   `json:"finish"`
	Causes       map[Cause]int    `json:"causes"`
	Steps        int              `json:"steps"`
	Tokens       int              `json:"tokens"`
	Categories   []CategoryReport `json:"categories"`
	Envs         []EnvReport      `json:"environments"`
	Failures     []Failure        `json:"failures"`
}

// CategoryReport is the success of one category of environments.
type CategoryReport struct {
	Category    string  `json:"category"`
	Rollouts    int     `json:"rollouts"`
	SuccessRate float64 `json:"success_rate"`
}

// EnvReport is one environment's share of the report.
type EnvReport struct {
	Env          string              `json:"env"`
	Category     string              `json:"category"`
	Rollouts     int                 `json:"rollouts"`
	Succeeded    int                 `json:"succeeded"`
	SuccessRate  float64             `json:"success_rate"`
	EnvFaults    int                 `json:"env_faults"`
	PolicyFaults int                 `json:"policy_faults"`
	Causes       map[Cause]int       `json:"causes"`
	Finish       map[string]int      `json:"finish"`
	Tools        map[string]*ToolUse `json:"tools"`
	Checks       map[string]int      `json:"failing_checks"`
	DivergeAt    map[int]int         `json:"diverge_at"` // ground-truth call index → failed rollouts that left it there
	Steps        int                 `json:"steps"`
	Tokens       int                 `json:"tokens"`
	AllTools     []string            `json:"all_tools"` // the bundle's tools, for validating guidelines
	chainLens    map[string]int      // task → ground-truth length
	missedTools  map[string]int      // tools the ground truth wanted where rollouts diverged
}

// ToolUse counts one tool's calls by typed outcome, and how often it was
// the ground truth's call at the point where a failed rollout diverged.
type ToolUse struct {
	Calls    int            `json:"calls"`
	Outcomes map[string]int `json:"outcomes"`
	Missed   int            `json:"missed_at_divergence"`
}

// Failure is one failed rollout, as the diagnosis reads it.
type Failure struct {
	Env       string   `json:"env"`
	Task      string   `json:"task"`
	Seed      int64    `json:"seed"`
	Cause     Cause    `json:"cause"`
	DivergeAt int      `json:"diverge_at"` // index into the ground-truth calls
	Expected  string   `json:"expected_tool,omitempty"`
	Called    string   `json:"called_tool,omitempty"`
	Outcome   string   `json:"outcome,omitempty"` // of the diverging call
	Finish    string   `json:"finish"`
	Checks    []string `json:"failed_checks"`
	Steps     int      `json:"steps"`
	ChainLen  int      `json:"chain_len"`
}

// outcomeMalformed is the outcome of a call that never reached the runtime:
// arguments that were not JSON. Unknown tools reach it and come back typed.
const outcomeMalformed = "malformed"

// BuildReport replays each record's calls on a fresh episode of its
// environment (same task and seed) to recover every call's typed outcome,
// then counts. envs maps an environment name to its loaded bundle;
// category maps it to a category ("" or missing: the name itself).
func BuildReport(ctx context.Context, envs map[string]*runtime.Env, category map[string]string, recs []Record) (*Report, error) {
	rep := &Report{Outcomes: map[string]int{}, Finish: map[string]int{}, Causes: map[Cause]int{}}
	// A rollout file's line order depends on which group finished first;
	// the report must not.
	recs = slices.Clone(recs)
	slices.SortStableFunc(recs, func(a, b Record) int {
		return cmp.Or(strings.Compare(a.Env, b.Env), strings.Compare(a.Task, b.Task), cmp.Compare(a.Seed, b.Seed))
	})
	byEnv := map[string]*EnvReport{}
	for i := range recs {
		rec := &recs[i]
		env, ok := envs[rec.Env]
		if !ok {
			return nil, fmt.Errorf("rollout %d: environment %q not loaded", i, rec.Env)
		}
		task := findTask(env, rec.Task)
		if task == nil {
			return nil, fmt.Errorf("rollout %d: environment %s has no task %q", i, rec.Env, rec.Task)
		}
		er := byEnv[rec.Env]
		if er == nil {
			cat := category[rec.Env]
			if cat == "" {
				cat = rec.Env
			}
			er = &EnvReport{Env: rec.Env, Category: cat, Causes: map[Cause]int{}, Finish: map[string]int{},
				Tools: map[string]*ToolUse{}, Checks: map[string]int{}, DivergeAt: map[int]int{},
				chainLens: map[string]int{}, missedTools: map[string]int{}}
			for _, t := range env.Tools() {
				er.AllTools = append(er.AllTools, t.Name)
			}
			byEnv[rec.Env] = er
		}
		er.chainLens[task.ID] = len(task.Calls)
		rep.Rollouts++
		er.Rollouts++
		if rec.EnvError || rec.Finish == "env_error" {
			rep.EnvFaults++
			er.EnvFaults++
			continue
		}
		if notTheAgents[rec.Finish] {
			rep.PolicyFaults++
			er.PolicyFaults++
			continue
		}
		outcomes, err := replay(ctx, env, rec)
		if err != nil {
			return nil, fmt.Errorf("rollout %d (%s/%s seed %d): replay: %w", i, rec.Env, rec.Task, rec.Seed, err)
		}
		calls := rec.Calls()
		for j, c := range calls {
			tu := er.tool(c.Function.Name)
			tu.Calls++
			tu.Outcomes[outcomes[j]]++
			rep.Outcomes[outcomes[j]]++
		}
		rep.FormatErrors += rec.FormatErrors
		rep.Finish[rec.Finish]++
		er.Finish[rec.Finish]++
		steps, tokens := len(calls), 0
		if rec.Usage != nil {
			tokens = rec.Usage.PromptTokens + rec.Usage.CompletionTokens
		}
		rep.Steps, rep.Tokens = rep.Steps+steps, rep.Tokens+tokens
		er.Steps, er.Tokens = er.Steps+steps, er.Tokens+tokens
		if rec.Succeeded() {
			rep.Succeeded++
			er.Succeeded++
			continue
		}
		f := classify(rec, task, calls, outcomes)
		rep.Causes[f.Cause]++
		er.Causes[f.Cause]++
		er.DivergeAt[f.DivergeAt]++
		if f.Expected != "" {
			er.tool(f.Expected).Missed++
			er.missedTools[f.Expected]++
		}
		for _, c := range f.Checks {
			er.Checks[c]++
		}
		rep.Failures = append(rep.Failures, f)
	}
	cats := map[string]*CategoryReport{}
	var succ = map[string]int{}
	for _, er := range byEnv {
		if n := er.judged(); n > 0 {
			er.SuccessRate = float64(er.Succeeded) / float64(n)
		}
		rep.Envs = append(rep.Envs, *er)
		c := cats[er.Category]
		if c == nil {
			c = &CategoryReport{Category: er.Category}
			cats[er.Category] = c
		}
		c.Rollouts += er.judged()
		succ[er.Category] += er.Succeeded
	}
	for name, c := range cats {
		if c.Rollouts > 0 {
			c.SuccessRate = float64(succ[name]) / float64(c.Rollouts)
		}
		rep.Categories = append(rep.Categories, *c)
	}
	if n := rep.Rollouts - rep.EnvFaults - rep.PolicyFaults; n > 0 {
		rep.SuccessRate = float64(rep.Succeeded) / float64(n)
	}
	sort.Slice(rep.Envs, func(i, j int) bool { return rep.Envs[i].Env < rep.Envs[j].Env })
	sort.Slice(rep.Categories, func(i, j int) bool { return rep.Categories[i].Category < rep.Categories[j].Category })
	return rep, nil
}

// judged counts the rollouts that say something about the agent.
func (er *EnvReport) judged() int { return er.Rollouts - er.EnvFaults - er.PolicyFaults }

func (er *EnvReport) tool(name string) *ToolUse {
	tu := er.Tools[name]
	if tu == nil {
		tu = &ToolUse{Outcomes: map[string]int{}}
		er.Tools[name] = tu
	}
	return tu
}

func findTask(env *runtime.Env, id string) *envpkg.Task {
	for i := range env.Bundle.Tasks {
		if env.Bundle.Tasks[i].ID == id {
			return &env.Bundle.Tasks[i]
		}
	}
	return nil
}

// replay runs the record's calls on a fresh episode and returns each call's
// outcome. Outputs are a function of (bundle, task, seed, calls), so this
// recovers what the rollout saw without the rollout file recording it.
func replay(ctx context.Context, env *runtime.Env, rec *Record) ([]string, error) {
	ep, err := env.NewEpisode(rec.Task, rec.Seed)
	if err != nil {
		return nil, err
	}
	defer ep.Close()
	known := map[string]bool{}
	for _, t := range env.Tools() {
		known[t.Name] = true
	}
	var out []string
	for _, c := range rec.Calls() {
		if !known[c.Function.Name] {
			// The engine answers an unknown tool itself: it never reaches
			// the episode (and so never moves its clock).
			out = append(out, string(runtime.OutcomeUnknownTool))
			continue
		}
		// The engine's rules (rl/rollout.go, call): blank arguments are {},
		// anything else goes to the runtime as written, and arguments that
		// are not JSON never reach it.
		args := c.Function.Arguments
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		if !json.Valid([]byte(args)) {
			out = append(out, outcomeMalformed)
			continue
		}
		res, err := ep.Call(ctx, c.Function.Name, []byte(args))
		if err != nil {
			return nil, err
		}
		o := string(res.Outcome)
		if o == "" {
			o = string(runtime.OutcomeOK)
		}
		out = append(out, o)
	}
	return out, nil
}

// sameCall compares a call with a ground-truth call by name and canonical
// arguments (key order and spacing do not matter; absent and {} are equal).
func sameCall(c ToolCall, gt envpkg.Call) bool {
	if c.Function.Name != gt.Name {
		return false
	}
	return bytes.Equal(canonical(envpkg.CallArguments(json.RawMessage(c.Function.Arguments))),
		canonical(envpkg.CallArguments(gt.Arguments)))
}

func canonical(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return b
	}
	out, _ := json.Marshal(v) // maps marshal with sorted keys
	return out
}

// WriteText writes the report's readable summary: a screen, not a dump.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "arena: %d rollouts, %d succeeded (%.1f%%), %d environment faults, %d format errors\n",
		r.Rollouts, r.Succeeded, 100*r.SuccessRate, r.EnvFaults, r.FormatErrors)
	fmt.Fprintf(w, "%-24s %-14s %8s %8s  %s\n", "environment", "category", "rollouts", "success", "top causes")
	for _, e := range r.Envs {
		causes := map[string]int{}
		for c, n := range e.Causes {
			causes[string(c)] = n
		}
		top := rankKeys(causes)
		if len(top) > 3 {
			top = top[:3]
		}
		var s string
		for i, c := range top {
			if i > 0 {
				s += ", "
			}
			s += fmt.Sprintf("%s %d", c, causes[c])
		}
		fmt.Fprintf(w, "%-24.24s %-14.14s %8d %7.1f%%  %s\n", e.Env, e.Category, e.Rollouts, 100*e.SuccessRate, s)
	}
	outs := rankKeys(r.Outcomes)
	fmt.Fprint(w, "call outcomes:")
	for _, o := range outs {
		fmt.Fprintf(w, " %s %d", o, r.Outcomes[o])
	}
	fmt.Fprintln(w)
	fins := make([]string, 0, len(r.Finish))
	for f := range r.Finish {
		fins = append(fins, f)
	}
	sort.Strings(fins)
	fmt.Fprint(w, "finish:")
	for _, f := range fins {
		fmt.Fprintf(w, " %s %d", f, r.Finish[f])
	}
	fmt.Fprintln(w)
}
