package synth

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/design"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// The model route (--llm, synth/design) hooks into FromDB here: the
// design is asked for before the first build, its actions are rendered
// with the schema's and gated by the smoke stage, failures go back to the
// model while repairs are left, and the kept tasks are reworded last.

// applyPlan declares the plan's status values on the model's columns:
// the tools' parameters and the task generator then know them like a
// CHECK's.
func applyPlan(m *dbmodel.Model, p *design.Plan) {
	if p == nil {
		return
	}
	for tc, vals := range p.Enums {
		for _, t := range m.Tables {
			for _, c := range t.Columns {
				if t.Name+"."+c.Name == tc {
					c.Enum, c.EnumInferred = append([]string(nil), vals...), true
				}
			}
		}
	}
}

// designedFailures lists the plan's actions that the build left out or
// whose succeed-and-refuse check failed, with the reason.
func designedFailures(p *design.Plan, spec *toolgen.Spec, smoke []SmokeResult) []design.Dropped {
	if p == nil {
		return nil
	}
	var out []design.Dropped
	for _, d := range p.Actions {
		found := false
		for _, t := range spec.Tools {
			if t.Name == d.Name && t.Kind == toolgen.DomainAction {
				found = true
			}
		}
		switch {
		case !found && !spec.Scope.Allows(d.Table):
			out = append(out, design.Dropped{Name: d.Name, Reason: fmt.Sprintf("table %q is outside what the person served may change (%s)", d.Table, strings.Join(spec.Scope.Tables, ", "))})
			continue
		case !found:
			out = append(out, design.Dropped{Name: d.Name, Reason: "no tool could be made of it (its table has no create tool, or its name is taken)"})
			continue
		}
		for _, r := range smoke {
			if r.Tool == d.Name && !r.Passed {
				out = append(out, design.Dropped{Name: d.Name, Reason: r.Detail})
			}
		}
	}
	return out
}

// errNoDesign reports whether the design stage gave up (the run goes on
// without designed actions).
func errNoDesign(err error, log io.Writer) bool {
	if !errors.Is(err, design.ErrNoDesign) {
		return false
	}
	if log != nil {
		fmt.Fprintf(log, "synth: %v; going on with the actions the schema makes certain\n", err)
	}
	return true
}

// designPolicy is the model's part of the policy: the rules of the kept
// actions, each enforced by that action's check. The model's prose about
// whom the agent serves, how they identify themselves and how it refuses
// (Plan.Policy.Serves, Identify, Refusal) goes to the wording prompts but
// not here: in the recorded runs it claimed a scope the task set does not
// keep ("reference records no one changes", "staff work the assistant
// does not do") while the schema's edits and actions stayed, so an agent
// that followed the rules failed every such task (judged and played on the
// held-out set, docs/SYNTHESIS.md). The scope is now the design's
// (Plan.Scope, or the schema's: scopeOf) and the policy states it from the
// toolset (Policy's scopeRule), so the rules here stay what the actions
// enforce.
func designPolicy(p *design.Plan, spec *toolgen.Spec) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	var rules []string
	for _, t := range spec.Tools {
		if t.Kind == toolgen.DomainAction {
			for _, r := range p.Policy.Rules[t.Name] {
				rules = append(rules, "- "+r+" ("+t.Name+" refuses otherwise.)")
			}
		}
	}
	if len(rules) > 0 {
		b.WriteString("Rules of this domain:\n" + strings.Join(rules, "\n") + "\n")
	}
	return b.String()
}
