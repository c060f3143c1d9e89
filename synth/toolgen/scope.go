package toolgen

import (
	"slices"
)

// Scope is what the person the environment serves may change: the tables
// whose rows are theirs to change (their own record, the rows that are
// theirs, the rows their actions add), by the design (synth/design: the
// model's answer says it) or, without one, derived from the schema where
// it is certain (synth/tasks.DeriveScope). The domain toolset offers no
// plain write and no action outside it, the task generator makes no change
// outside it, and the policy states it. A nil Scope is no limit (the CRUD
// toolset, or a database where no person table is certain).
type Scope struct {
	// Person is the served person's table ("" when the design names
	// none).
	Person string `json:"person,omitempty"`
	// Tables are the tables the person may change, Person's among them
	// when it is.
	Tables []string `json:"tables"`
	// By says where the scope comes from: "design" or "schema".
	By string `json:"by"`
}

// Where a Scope comes from.
const (
	ScopeByDesign = "design"
	ScopeBySchema = "schema"
)

// Allows reports whether the served person may change rows of table
// (always, with no scope).
func (s *Scope) Allows(table string) bool {
	return s == nil || slices.Contains(s.Tables, table)
}

// Declined is an action the design left out (an answer designed it, and
// the last answer dropped it or validation did): the schema's own action
// on the same table and column is not offered either, since the design
// decides (a model that judged "every rental is already returned" is not
// overruled behind its back).
type Declined struct {
	Table  string `json:"table"`
	Column string `json:"column"`
}

// declined reports whether the design left out an action on t's column.
func (g *gen) declined(table, column string) bool {
	return slices.Contains(g.opts.Declined, Declined{Table: table, Column: column})
}

// governed lists the columns, by table, that an action of tools moves:
// a status and the stamps that move with it, a milestone, a line's
// quantity and the stock or balance it draws on, a parent's total kept
// by its lines, an open row's start and the time that closes it. The
// action is the only way to change them, so no plain update sets them
// (its rules could be bypassed field by field).
func governed(tools []*Tool) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	add := func(table, col string) {
		if table == "" || col == "" {
			return
		}
		if out[table] == nil {
			out[table] = map[string]bool{}
		}
		out[table][col] = true
	}
	for _, t := range tools {
		a := t.Action
		if t.Kind != DomainAction || a == nil {
			continue
		}
		switch a.Rule {
		case RuleStatus, RuleMilestone:
			add(t.Table, a.Column)
		case RuleConsume:
			add(t.Table, a.Column)
		case RuleOpen:
			add(t.Table, a.Column)
			if a.Open != nil {
				add(t.Table, a.Open.Milestone)
			}
		case RuleLines:
			if l := a.Lines; l != nil {
				add(l.Table, l.Qty)
				add(t.Table, l.Total)
			}
		}
		for _, m := range a.Moves {
			add(t.Table, m.Column)
		}
		if a.Stock != nil {
			add(a.Stock.Table, a.Stock.Column)
		}
		for _, tot := range a.Totals {
			add(tot.Parent, tot.Column)
		}
	}
	return out
}

// ungoverned drops from each plain update the columns an action moves
// (governed), and an update left with nothing to set.
func ungoverned(tools []*Tool) []*Tool {
	gov := governed(tools)
	out := tools[:0]
	for _, t := range tools {
		if t.Kind == Update && gov[t.Table] != nil {
			t.Params = slices.DeleteFunc(t.Params, func(p Param) bool { return p.Op == OpSet && gov[t.Table][p.Column] })
			if !slices.ContainsFunc(t.Params, func(p Param) bool { return p.Op == OpSet }) {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}
