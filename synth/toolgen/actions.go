package toolgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Domain actions are the things a person does in the domain (cancel an
// order, return a rental, add a line that takes stock), made only where
// the schema makes them certain:
//
//   - status: a status column whose allowed values a CHECK declares; one
//     action per value, moving the row there with the columns named for
//     that value (cancelled → cancelled_at) stamped from the episode clock,
//     refused when the row is already there.
//   - milestone: a nullable time column named for an event that happens
//     once (shipped_date, returned_at, return_date), set on some rows and
//     not on others; the action stamps it, refused when it is already set.
//   - consume: a line whose quantity draws on a parent's stock or balance
//     (a line's quantity and the product's units_in_stock; a payment's
//     amount and the card's amount): the line is written and the parent
//     decremented in the call's one transaction, refused when the parent
//     has less than asked (a NULL stock is not tracked and never refuses),
//     when the quantity is not positive, and when the line's other parents
//     belong to someone else (both refer to the same owner table through
//     one column each: a payment's card must be the reservation's user's).
//
// A call runs inside one savepoint (runtime): a refusal, or any failure
// after a write, leaves nothing behind.

// Rule kinds of an Action.
const (
	RuleStatus    = "status"
	RuleMilestone = "milestone"
	RuleConsume   = "consume"
)

// Action is what a domain action checks and moves beyond a plain write.
type Action struct {
	Rule   string `json:"rule"`            // RuleStatus, RuleMilestone or RuleConsume
	Column string `json:"column"`          // the status, milestone or quantity column of Tool.Table
	Value  string `json:"value,omitempty"` // status: the value the row moves to
	// From, for a status, are the values a row may move to Value from
	// (empty: any other); a row in another state is refused. Only a
	// designed action (Designed) has them: a CHECK says which values
	// exist, not which moves are allowed.
	From []string `json:"from,omitempty"`
	// Moves are the columns stamped from the episode clock with it.
	Moves []Stamped `json:"moves,omitempty"`
	// Stock is the parent column a consume draws on.
	Stock *Stock `json:"stock,omitempty"`
	// Owners are the consume's ownership checks.
	Owners []Owner `json:"owners,omitempty"`
	// Copies are a consume's line columns set from the stock parent's
	// column of the same name (the unit price at the time of the sale).
	Copies []string `json:"copies,omitempty"`
	// Lines are what a RuleLines action writes with the parent.
	Lines *Lines `json:"lines,omitempty"`
	// Open is what a RuleOpen action checks (Column is its start).
	Open *Open `json:"open,omitempty"`
	// Totals are a consume's other parents whose total is the sum of
	// these lines (Options.Totals): the action sums them again after it
	// adds its line, so one more line never leaves a total wrong.
	Totals []TotalOf `json:"totals,omitempty"`
}

// TotalOf is a parent total a consume keeps: Parent.Column is the sum of
// the line table's Price (× Qty) over the lines whose Ref is its key.
type TotalOf struct {
	Parent string `json:"parent"`
	Key    string `json:"key"`
	Ref    string `json:"ref"`
	Total
}

// Stamped is a column set to the time of the call.
type Stamped struct {
	Column string `json:"column"`
	Layout string `json:"layout"`
}

// Stock is a parent's quantity that lines draw on.
type Stock struct {
	Table  string `json:"table"`  // the parent
	Column string `json:"column"` // its stock or balance column
	Key    string `json:"key"`    // its one-column key
	Ref    string `json:"ref"`    // the line's column that refers to it
}

// Owner is a check that two parents of a line belong to the same row of
// a third table: Stock.Table.StockCol = Other.OtherCol, both referring to
// Table.
type Owner struct {
	Table    string `json:"table"`     // the owner table (users)
	StockCol string `json:"stock_col"` // the stock parent's column referring to it
	Other    string `json:"other"`     // the line's other parent (reservations)
	OtherKey string `json:"other_key"` // its one-column key
	Ref      string `json:"ref"`       // the line's column referring to Other
	OtherCol string `json:"other_col"` // Other's column referring to Table
}

// actionTools derives the domain actions of table t.
func (g *gen) actionTools(t *dbmodel.Table) []*Tool {
	var out []*Tool
	n := g.names[t.Name]
	if len(t.PrimaryKey) > 0 {
		for _, c := range t.Columns {
			if statusColumn(t, c) {
				for _, v := range c.Enum {
					word := ident(v)
					if word == "" || !tagSafe([]string{v}) {
						continue
					}
					a := &Action{Rule: RuleStatus, Column: c.Name, Value: v, Moves: movesWith(t, v)}
					if g.supersededBy(t, a) {
						continue
					}
					tl := g.newTool("mark_"+n.sing+"_"+word, DomainAction, t, g.actionDoc(t, a))
					tl.Params, tl.Action = g.keyParams(t), a
					out = append(out, tl)
				}
			}
		}
		if !slices.ContainsFunc(t.Columns, func(c *dbmodel.Column) bool { return statusColumn(t, c) }) {
			for _, c := range t.Columns {
				if word, ok := milestone(t, c); ok {
					a := &Action{Rule: RuleMilestone, Column: c.Name, Value: word,
						Moves: []Stamped{{c.Name, stampLayout(c)}}}
					if g.supersededBy(t, a) {
						continue
					}
					tl := g.newTool("mark_"+n.sing+"_"+word, DomainAction, t, g.actionDoc(t, a))
					tl.Params, tl.Action = g.keyParams(t), a
					out = append(out, tl)
				}
			}
		}
	}
	out = append(out, g.linesTools(t)...)
	for _, a := range g.consumes(t) {
		if g.supersededBy(t, a) {
			continue
		}
		tl := g.consumeTool(t, a, "add_"+n.sing+"_from_"+g.names[a.Stock.Table].sing)
		if tl == nil {
			break
		}
		out = append(out, tl)
	}
	if o := g.opts.Opens[t.Name]; o != nil && !g.acted[t.Name] && !g.supersededBy(t, &Action{Rule: RuleOpen, Column: o.Start}) {
		if tl := g.openTool(t, o, ""); tl != nil {
			out = append(out, tl)
		}
	}
	return append(out, g.designedTools(t)...)
}

// consumeTool renders consume a on line table t as tool name; nil when t
// has no create tool to build it on.
func (g *gen) consumeTool(t *dbmodel.Table, a *Action, name string) *Tool {
	params, ok := g.createParams(t)
	if !ok {
		return nil
	}
	// What the rules read must be given.
	need := map[string]bool{a.Column: true, a.Stock.Ref: true}
	for _, o := range a.Owners {
		need[o.Ref] = true
	}
	for _, c := range copiedFrom(t, g.m.Table(a.Stock.Table)) {
		if c != a.Column { // the amount drawn is asked, not copied
			a.Copies = append(a.Copies, c)
		}
	}
	var keep []Param
	for _, p := range params {
		if need[p.Column] {
			p.Required = true
		}
		if !contains(a.Copies, p.Column) {
			keep = append(keep, p)
		}
	}
	tl := g.newTool(name, DomainAction, t, g.actionDoc(t, a))
	tl.Params, tl.Action = keep, a
	g.acted[t.Name] = true
	return tl
}

// statusColumn: a text column named for a state whose values a CHECK
// declares (values seen in the data are not certain enough).
func statusColumn(t *dbmodel.Table, c *dbmodel.Column) bool {
	l := strings.ToLower(c.Name)
	return c.Kind == dbmodel.Text && len(c.Enum) >= 2 && !c.EnumInferred && !t.IsKey(c.Name) && c.Writable() &&
		t.ForeignKeyOf(c.Name) == nil && (strings.Contains(l, "status") || strings.Contains(l, "state") || strings.Contains(l, "stage"))
}

// norm folds a name for comparing: lower case, no separators.
func norm(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == ' ' || r == '-' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// timeSuffixes end the name of a column that holds when something happened.
var timeSuffixes = []string{"datetime", "timestamp", "date", "time", "at", "on"}

// eventWord splits a column name into the event and its time suffix
// (shipped_date → shipped), "" when it is not named so.
func eventWord(col string) string {
	l := norm(col)
	for _, s := range timeSuffixes {
		if w, ok := strings.CutSuffix(l, s); ok && len(w) >= 3 {
			return w
		}
	}
	return ""
}

// movesWith lists the time columns named for status value v (cancelled →
// cancelled_at, cancel_date), stamped when a row moves to v.
func movesWith(t *dbmodel.Table, v string) []Stamped {
	want := norm(v)
	stem := strings.TrimSuffix(want, "ed")
	var out []Stamped
	for _, c := range t.Columns {
		if c.Kind != dbmodel.Text || t.IsKey(c.Name) || t.ForeignKeyOf(c.Name) != nil || !c.Writable() || len(c.Enum) > 0 {
			continue
		}
		if w := eventWord(c.Name); w != "" && len(want) >= 3 && (w == want || len(stem) >= 4 && strings.HasPrefix(w, stem)) {
			out = append(out, Stamped{c.Name, stampLayout(c)})
		}
	}
	return out
}

// onceVerbs are events named by a bare verb (return_date) rather than a
// participle (returned_at); the rest must end in -ed.
var onceVerbs = map[string]string{"return": "returned", "close": "closed", "finish": "finished", "complete": "completed", "deliver": "delivered", "resolve": "resolved", "settle": "settled"}

// milestone reports whether c records an event that happens once to a
// row: a nullable time column named for it, set on some rows only, or on
// every row of a table whose rows open at a time (startColumn: a rental's
// rental_date, then its return_date): a sample where every row has closed
// does not make the column less nullable, and the open action makes a row
// to close.
func milestone(t *dbmodel.Table, c *dbmodel.Column) (string, bool) {
	if c.Kind != dbmodel.Text || c.NotNull || c.TimeLayout == "" || t.IsKey(c.Name) || t.ForeignKeyOf(c.Name) != nil ||
		!c.Writable() || c.Generated || c.Nulls >= t.Rows || Stamp(c) {
		return "", false
	}
	if c.Nulls == 0 && startColumn(t) == "" {
		return "", false
	}
	w := eventWord(c.Name)
	if p, ok := onceVerbs[w]; ok {
		return p, true
	}
	if len(w) >= 5 && strings.HasSuffix(w, "ed") && ident(w) == w {
		return w, true
	}
	return "", false
}

func stampLayout(c *dbmodel.Column) string {
	if c.TimeLayout != "" {
		return c.TimeLayout
	}
	return currentTimestamp
}

// quantityNames are the names of a line's column that draws on a stock.
var quantityNames = map[string]bool{"quantity": true, "qty": true, "amount": true, "units": true, "seats": true, "tickets": true}

// stockWords in a parent's column name say it is drawn on.
var stockWords = []string{"stock", "onhand", "inventory", "balance", "available", "remaining"}

// consumes finds the stocks the rows of t draw on.
func (g *gen) consumes(t *dbmodel.Table) []*Action {
	var out []*Action
	for _, qc := range t.Columns {
		if (qc.Kind != dbmodel.Integer && qc.Kind != dbmodel.Real) || !quantityNames[norm(qc.Name)] || t.IsKey(qc.Name) || t.ForeignKeyOf(qc.Name) != nil || !qc.Writable() {
			continue
		}
		for i := range t.ForeignKeys {
			fk := &t.ForeignKeys[i]
			p := g.m.Table(fk.RefTable)
			if len(fk.Columns) != 1 || p == nil || p == t || len(p.PrimaryKey) != 1 || p.PrimaryKey[0] != fk.RefColumns[0] || p.MaintainedBy != "" {
				continue
			}
			for _, sc := range p.Columns {
				if (sc.Kind != dbmodel.Integer && sc.Kind != dbmodel.Real) || p.IsKey(sc.Name) || p.ForeignKeyOf(sc.Name) != nil || !sc.Writable() {
					continue
				}
				l := norm(sc.Name)
				if l != norm(qc.Name) && !slices.ContainsFunc(stockWords, func(w string) bool { return strings.Contains(l, w) }) {
					continue
				}
				a := &Action{Rule: RuleConsume, Column: qc.Name, Stock: &Stock{Table: p.Name, Column: sc.Name, Key: p.PrimaryKey[0], Ref: fk.Columns[0]}}
				a.Owners = g.owners(t, fk, p)
				a.Totals = g.totalsOver(t)
				out = append(out, a)
				break
			}
		}
	}
	return out
}

// totalsOver finds the parents of line t whose total sums t's rows.
func (g *gen) totalsOver(t *dbmodel.Table) []TotalOf {
	var out []TotalOf
	for _, fk := range t.ForeignKeys {
		p := g.m.Table(fk.RefTable)
		if len(fk.Columns) != 1 || p == nil || len(p.PrimaryKey) != 1 || p.PrimaryKey[0] != fk.RefColumns[0] {
			continue
		}
		if tot, ok := g.opts.Totals[p.Name]; ok && tot.Line == t.Name {
			out = append(out, TotalOf{Parent: p.Name, Key: p.PrimaryKey[0], Ref: fk.Columns[0], Total: tot})
		}
	}
	return out
}

// owners finds the line's other parents that refer to a table the stock
// parent p refers to too (a reservation and a card, both a user's).
func (g *gen) owners(t *dbmodel.Table, via *dbmodel.ForeignKey, p *dbmodel.Table) []Owner {
	var out []Owner
	for i := range t.ForeignKeys {
		fk := &t.ForeignKeys[i]
		o := g.m.Table(fk.RefTable)
		if fk == via || len(fk.Columns) != 1 || o == nil || o == p || len(o.PrimaryKey) != 1 || o.PrimaryKey[0] != fk.RefColumns[0] {
			continue
		}
		for _, pf := range p.ForeignKeys {
			for _, of := range o.ForeignKeys {
				if len(pf.Columns) == 1 && len(of.Columns) == 1 && pf.RefTable == of.RefTable && pf.RefTable != t.Name && slices.Equal(pf.RefColumns, of.RefColumns) {
					out = append(out, Owner{Table: pf.RefTable, StockCol: pf.Columns[0], Other: o.Name, OtherKey: o.PrimaryKey[0], Ref: fk.Columns[0], OtherCol: of.Columns[0]})
				}
			}
		}
	}
	return out
}

// actionDoc says what the action does and what it refuses, in the
// domain's words: the agent reads it in the tool's description.
func (g *gen) actionDoc(t *dbmodel.Table, a *Action) string {
	n := g.names[t.Name]
	what := plainWords(n.sing)
	col := plainWords(n.cols[a.Column])
	var moved []string
	for _, m := range a.Moves {
		if m.Column != a.Column {
			moved = append(moved, plainWords(n.cols[m.Column]))
		}
	}
	stamp := ""
	if len(moved) > 0 {
		stamp = " and records the time in " + strings.Join(moved, " and ")
	}
	switch a.Rule {
	case RuleStatus:
		from := ""
		if len(a.From) > 0 {
			vals := make([]string, len(a.From))
			for i, v := range a.From {
				vals[i] = dbmodel.CommentText(v)
			}
			from = fmt.Sprintf(" Refused unless it is %s.", strings.Join(vals, " or "))
		}
		return fmt.Sprintf("Marks the %s as %s (sets its %s%s). Refused when it is already %s.%s Returns the updated %s.",
			what, dbmodel.CommentText(a.Value), col, stamp, dbmodel.CommentText(a.Value), from, what)
	case RuleMilestone:
		return fmt.Sprintf("Marks the %s as %s: sets its %s to the time of the call. Refused when it is already %s. Returns the updated %s.",
			what, a.Value, col, a.Value, what)
	}
	pn := g.names[a.Stock.Table]
	doc := fmt.Sprintf("Adds %s and takes its %s from the %s's %s, in one step. Refused when the %s is not positive or the %s has less %s than asked.",
		dbmodel.Article(what), col, plainWords(pn.sing), plainWords(pn.cols[a.Stock.Column]), col, plainWords(pn.sing), plainWords(pn.cols[a.Stock.Column]))
	for _, c := range a.Copies {
		doc += fmt.Sprintf(" Its %s is the %s's own.", plainWords(n.cols[c]), plainWords(pn.sing))
	}
	for _, o := range a.Owners {
		doc += fmt.Sprintf(" Refused when the %s and the %s belong to different %s.", plainWords(pn.sing), plainWords(g.names[o.Other].sing), plainWords(g.names[o.Table].id))
	}
	return doc + " Returns the new " + what + "."
}

// copiedFrom lists l's columns that take the value of the column of the
// same name and kind in item (a line's unit_price from its product's).
func copiedFrom(l, item *dbmodel.Table) []string {
	var out []string
	for _, c := range l.Columns {
		if l.IsKey(c.Name) || l.ForeignKeyOf(c.Name) != nil || c.Kind == dbmodel.Blob || !c.Writable() {
			continue
		}
		for _, ic := range item.Columns {
			// Same name as SQL reads it (case-insensitive): the action
			// selects the item's column by the line's column name.
			if strings.EqualFold(ic.Name, c.Name) && !item.IsKey(ic.Name) && ic.Kind == c.Kind {
				out = append(out, c.Name)
			}
		}
	}
	return out
}
