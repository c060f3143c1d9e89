package toolgen

import (
	"slices"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Designed is a domain action a model designed over the data
// (synth/design) where the schema alone does not make it certain: a text
// column declared a status with the moves its values allow, a time column
// declared a milestone, a quantity declared to draw on a parent's stock or
// balance. It is one of the Action vocabulary on Table, named Name, and is
// rendered and checked like an action the schema makes certain; it takes
// the place of the schema's own action on the same column (and value).
// The caller has validated it against the model (synth/design.Validate).
type Designed struct {
	Name   string `json:"name"`
	Table  string `json:"table"`
	Action Action `json:"action"`
}

// designedOn lists the designed actions of table t.
func (g *gen) designedOn(t *dbmodel.Table) []Designed {
	var out []Designed
	for _, d := range g.opts.Designed {
		if d.Table == t.Name {
			out = append(out, d)
		}
	}
	return out
}

// supersededBy reports whether a designed action of t covers the schema's
// action a (the same rule on the same column, and value for a status), or
// the design left out an action on that column (Options.Declined).
func (g *gen) supersededBy(t *dbmodel.Table, a *Action) bool {
	if g.declined(t.Name, a.Column) {
		return true // the design left it out: it decides
	}
	return slices.ContainsFunc(g.designedOn(t), func(d Designed) bool {
		if d.Action.Column != a.Column {
			return false
		}
		switch a.Rule {
		case RuleStatus:
			// A designed status owns the column: its values and moves
			// replace the CHECK's every-value actions.
			return d.Action.Rule == RuleStatus
		case RuleMilestone:
			return d.Action.Rule == RuleMilestone
		case RuleOpen:
			return d.Action.Rule == RuleOpen
		case RuleConsume:
			return d.Action.Rule == RuleConsume && d.Action.Stock != nil && a.Stock != nil && d.Action.Stock.Table == a.Stock.Table
		}
		return false
	})
}

// designedTools renders the designed actions of t.
func (g *gen) designedTools(t *dbmodel.Table) []*Tool {
	var out []*Tool
	for _, d := range g.designedOn(t) {
		a := d.Action // a copy: the options stay as given
		a.Moves = slices.Clone(a.Moves)
		switch a.Rule {
		case RuleStatus, RuleMilestone:
			if len(t.PrimaryKey) == 0 {
				continue
			}
			if a.Rule == RuleMilestone && len(a.Moves) == 0 {
				a.Moves = []Stamped{{a.Column, stampLayout(t.Column(a.Column))}}
			}
			tl := g.newTool(d.Name, DomainAction, t, g.actionDoc(t, &a))
			tl.Params, tl.Action = g.keyParams(t), &a
			out = append(out, tl)
		case RuleConsume:
			if a.Stock == nil {
				continue
			}
			p := g.m.Table(a.Stock.Table)
			fk := t.ForeignKeyOf(a.Stock.Ref)
			if p == nil || fk == nil {
				continue
			}
			a.Owners = g.owners(t, fk, p)
			a.Totals = g.totalsOver(t)
			if tl := g.consumeTool(t, &a, d.Name); tl != nil {
				out = append(out, tl)
			}
		case RuleOpen:
			if a.Open == nil || g.acted[t.Name] {
				continue
			}
			if tl := g.openTool(t, a.Open, d.Name); tl != nil {
				out = append(out, tl)
			}
		}
	}
	return out
}
