package arena

import (
	"context"
	"fmt"
	"sort"
)

// Diagnosis is what a Diagnoser makes of a report: root causes, the weak
// environments ranked, and per weak environment the guidelines that steer
// the next round's task generation.
type Diagnosis struct {
	By         string      `json:"by"` // "procedural" or the LLM's model
	RootCauses []RootCause `json:"root_causes"`
	Weak       []WeakEnv   `json:"weak_environments"`
}

// RootCause is one category of the taxonomy with its weight.
type RootCause struct {
	Cause       Cause  `json:"cause"`
	Count       int    `json:"count"`
	Explanation string `json:"explanation"`
}

// WeakEnv is one weak environment and what to generate for it.
type WeakEnv struct {
	Env         string     `json:"env"`
	Rank        int        `json:"rank"` // 1 is the weakest
	SuccessRate float64    `json:"success_rate"`
	Guidelines  Guidelines `json:"guidelines"`
}

// Guidelines are data, not prose: the generator weights candidate tasks by
// them (Target).
type Guidelines struct {
	Tools        []string `json:"tools"`         // tools the failing chains needed, most missed first
	ChainLengths []int    `json:"chain_lengths"` // ground-truth lengths of the failed tasks
	Causes       []Cause  `json:"causes"`        // what went wrong there, most frequent first
	Notes        string   `json:"notes,omitempty"`
}

// Diagnoser turns a failure report into a diagnosis.
type Diagnoser interface {
	Diagnose(ctx context.Context, rep *Report) (*Diagnosis, error)
}

// Procedural diagnoses from the report's counts alone: an environment is
// weak when its success rate is below the arena's (or below MinSuccess;
// when none is, every environment short of 1.0), ranked by failed
// rollouts; at most MaxWeak are kept.
type Procedural struct {
	MaxWeak    int     // default 3
	MinSuccess float64 // also weak below this rate; default 0 (only the arena mean counts)
}

var explanations = map[Cause]string{
	CauseStepLimit:       "rollouts ran out of turns or tokens before finishing",
	CauseWrongTool:       "at the first wrong step the agent called a tool the chain did not need",
	CauseBadArguments:    "the right tool was called with wrong or schema-invalid arguments",
	CauseMissingLookup:   "the agent jumped to a later step without the lookup that gives its arguments",
	CauseRuleViolation:   "the call hit a business rule of the environment (tool error)",
	CausePrematureFinish: "the agent answered before the chain was complete",
	CauseWrongAnswer:     "the chain ran but the final answer did not match",
	CauseExtraChange:     "the chain ran, then further calls changed what the checks forbid",
}

// Diagnose implements Diagnoser.
func (p Procedural) Diagnose(_ context.Context, rep *Report) (*Diagnosis, error) {
	maxWeak := p.MaxWeak
	if maxWeak <= 0 {
		maxWeak = 3
	}
	d := &Diagnosis{By: "procedural"}
	for _, c := range Causes {
		if n := rep.Causes[c]; n > 0 {
			d.RootCauses = append(d.RootCauses, RootCause{Cause: c, Count: n, Explanation: explanations[c]})
		}
	}
	sort.SliceStable(d.RootCauses, func(i, j int) bool { return d.RootCauses[i].Count > d.RootCauses[j].Count })

	type cand struct {
		er     *EnvReport
		failed int
	}
	var cands []cand
	pick := func(weak func(*EnvReport) bool) {
		for i := range rep.Envs {
			er := &rep.Envs[i]
			if n := er.judged(); n > 0 && weak(er) {
				cands = append(cands, cand{er, n - er.Succeeded})
			}
		}
	}
	pick(func(er *EnvReport) bool { return er.SuccessRate < rep.SuccessRate || er.SuccessRate < p.MinSuccess })
	if len(cands) == 0 {
		// All alike (say, all failing): every environment short of
		// perfect is weak, ranked by its failures.
		pick(func(er *EnvReport) bool { return er.SuccessRate < 1 })
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].failed != cands[j].failed {
			return cands[i].failed > cands[j].failed
		}
		return cands[i].er.Env < cands[j].er.Env
	})
	if len(cands) > maxWeak {
		cands = cands[:maxWeak]
	}
	for i, c := range cands {
		d.Weak = append(d.Weak, WeakEnv{Env: c.er.Env, Rank: i + 1, SuccessRate: c.er.SuccessRate,
			Guidelines: guidelinesFor(c.er, rep.Failures)})
	}
	return d, nil
}

func guidelinesFor(er *EnvReport, failures []Failure) Guidelines {
	var g Guidelines
	g.Tools = rankKeys(er.missedTools)
	lens := map[int]bool{}
	for _, f := range failures {
		if f.Env == er.Env {
			lens[f.ChainLen] = true
		}
	}
	for l := range lens {
		g.ChainLengths = append(g.ChainLengths, l)
	}
	sort.Ints(g.ChainLengths)
	causes := map[string]int{}
	for c, n := range er.Causes {
		causes[string(c)] = n
	}
	for _, c := range rankKeys(causes) {
		g.Causes = append(g.Causes, Cause(c))
	}
	return g
}

// rankKeys orders a count map by count, then name.
func rankKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// Validate checks a diagnosis against its report: every environment and
// tool it names exists, every cause is in the taxonomy, ranks are 1..n.
// An LLM's diagnosis is kept only if it validates.
func (d *Diagnosis) Validate(rep *Report) error {
	envs := map[string]*EnvReport{}
	for i := range rep.Envs {
		envs[rep.Envs[i].Env] = &rep.Envs[i]
	}
	known := map[Cause]bool{}
	for _, c := range Causes {
		known[c] = true
	}
	for _, rc := range d.RootCauses {
		if !known[rc.Cause] {
			return fmt.Errorf("root cause %q is not in the taxonomy", rc.Cause)
		}
	}
	seen := map[string]bool{}
	for i, w := range d.Weak {
		er := envs[w.Env]
		if er == nil {
			return fmt.Errorf("weak environment %q is not in the report", w.Env)
		}
		if seen[w.Env] {
			return fmt.Errorf("weak environment %q listed twice", w.Env)
		}
		seen[w.Env] = true
		if w.Rank != i+1 {
			return fmt.Errorf("weak environment %q has rank %d at position %d", w.Env, w.Rank, i+1)
		}
		tools := map[string]bool{}
		for _, t := range er.AllTools {
			tools[t] = true
		}
		for _, t := range w.Guidelines.Tools {
			if !tools[t] {
				return fmt.Errorf("guideline tool %q is not a tool of %s", t, w.Env)
			}
		}
		for _, c := range w.Guidelines.Causes {
			if !known[c] {
				return fmt.Errorf("guideline cause %q for %s is not in the taxonomy", c, w.Env)
			}
		}
		for _, l := range w.Guidelines.ChainLengths {
			if l < 0 || l > 64 {
				return fmt.Errorf("guideline chain length %d for %s is out of range", l, w.Env)
			}
		}
	}
	return nil
}
