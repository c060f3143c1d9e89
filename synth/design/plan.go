package design

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Answer is the model's design, as its JSON says it.
type Answer struct {
	// Serves is whom the agent acts for; Identify how they identify
	// themselves; Refusal how the agent says no.
	Serves   string         `json:"serves"`
	Identify string         `json:"identify"`
	Refusal  string         `json:"refusal"`
	Actions  []ActionAnswer `json:"actions"`
	Rules    []RuleAnswer   `json:"rules"`
	// Scope is what the served person may change; absent (an answer
	// recorded before it was asked for), the schema's scope is derived
	// (synth/tasks.DeriveScope).
	Scope *ScopeAnswer `json:"scope,omitempty"`
	// Figures name each table's measures and groups (figures.go).
	Figures []FiguresAnswer `json:"figures,omitempty"`
}

// ScopeAnswer says whose the environment is: the served person's table,
// and the tables whose rows they may change (through the actions on those
// tables, and plain edits of the fields no action moves). Every other
// table is theirs to read, not to change.
type ScopeAnswer struct {
	Person string   `json:"person"`
	Change []string `json:"change"`
}

// ActionAnswer is one designed action.
type ActionAnswer struct {
	Name   string `json:"name"`
	Table  string `json:"table"`
	Rule   string `json:"rule"` // status, milestone or consume
	Column string `json:"column"`
	// Status: the column's allowed values, the one the action moves to,
	// the ones it may move from, and time columns stamped with it. A
	// milestone's To is the event's participle ("returned").
	Values []string `json:"values,omitempty"`
	To     string   `json:"to,omitempty"`
	From   []string `json:"from,omitempty"`
	Stamp  []string `json:"stamp,omitempty"`
	// Consume: the line's column referring to the parent whose stock or
	// balance column the quantity Column draws on.
	Ref         string `json:"ref,omitempty"`
	StockTable  string `json:"stock_table,omitempty"`
	StockColumn string `json:"stock_column,omitempty"`
	// Open: Column is the time column stamped when the row is made;
	// ClosedBy the nullable time column that is empty while it is open;
	// OneOpenPer the references with at most one open row per parent;
	// Bounds numbers kept within a parent's pair of columns; SameOwner
	// pairs of references whose parents must belong to one owner.
	ClosedBy   string        `json:"closed_by,omitempty"`
	OneOpenPer []string      `json:"one_open_per,omitempty"`
	Bounds     []BoundAnswer `json:"bounds,omitempty"`
	SameOwner  [][]string    `json:"same_owner,omitempty"`
}

// BoundAnswer keeps Column of the row within Min..Max of the parent it
// refers to through Ref.
type BoundAnswer struct {
	Column string `json:"column"`
	Ref    string `json:"ref"`
	Min    string `json:"min"`
	Max    string `json:"max"`
}

// RuleAnswer is one policy rule, tied to the action that enforces it.
type RuleAnswer struct {
	Action string `json:"action"`
	Text   string `json:"text"`
}

// Plan is a validated design: the actions toolgen renders, the enums the
// model declared, and the policy's words.
type Plan struct {
	Actions []toolgen.Designed
	// Enums are the status columns' declared values, by "table.column".
	Enums  map[string][]string
	Policy Policy
	// Dropped are the answer's actions (and rules) that failed validation.
	Dropped []Dropped
	// Scope is what the served person may change, as the answer says it
	// (nil: the answer says nothing; the schema's is derived).
	Scope *toolgen.Scope
	// Declined are the table and column of every action an answer
	// designed that the plan does not keep: the schema's own action on
	// them is not offered either (the design decides).
	Declined []toolgen.Declined
	// Figures are the measures and groups the answer named that the
	// schema and the rows hold (figures.go).
	Figures []toolgen.Figures
}

// Policy is the model's part of the environment's system message.
type Policy struct {
	Serves, Identify, Refusal string
	// Rules are the policy's rules by action name.
	Rules map[string][]string
}

// Dropped is an action left out, and why.
type Dropped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

var (
	nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{2,47}$`)
	wordRE = regexp.MustCompile(`^[a-z]{3,30}$`)
)

// maxText bounds a sentence of the policy.
const maxText = 300

// parseAnswer reads the model's JSON: the whole text, or the first
// fenced or braced object in it.
func parseAnswer(text string) (*Answer, error) {
	body := strings.TrimSpace(text)
	if i, j := strings.Index(body, "{"), strings.LastIndex(body, "}"); i >= 0 && j > i {
		body = body[i : j+1]
	}
	var a Answer
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("the answer is not the JSON asked for: %v", err)
	}
	return &a, nil
}

// sentence checks one line of the policy's text.
func sentence(field, s string) error {
	switch {
	case strings.TrimSpace(s) == "":
		return fmt.Errorf("%s is empty", field)
	case len(s) > maxText:
		return fmt.Errorf("%s is longer than %d characters", field, maxText)
	case strings.ContainsAny(s, "\n\r`"):
		return fmt.Errorf("%s must be one line of plain text", field)
	}
	return nil
}

// Validate checks an answer against the schema and the rows of conn (the
// database the environment is built from). Problems that make the whole
// answer unusable are returned as the error; an action that fails is
// dropped with its reason, and so is a rule of a dropped action.
func Validate(m *dbmodel.Model, conn *sqlite3.Conn, a *Answer) (*Plan, error) {
	var problems []string
	for _, f := range []struct{ name, text string }{{"serves", a.Serves}, {"identify", a.Identify}, {"refusal", a.Refusal}} {
		if err := sentence(f.name, f.text); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	p := &Plan{Enums: map[string][]string{}, Policy: Policy{Serves: a.Serves, Identify: a.Identify, Refusal: a.Refusal, Rules: map[string][]string{}}}
	if a.Scope != nil {
		sc, err := validateScope(m, a.Scope)
		if err != nil {
			return nil, err
		}
		p.Scope = sc
	}
	seen := map[string]bool{}
	for _, aa := range a.Actions {
		if p.Scope != nil && !p.Scope.Allows(aa.Table) {
			p.Dropped = append(p.Dropped, Dropped{aa.Name, fmt.Sprintf("table %q is not in the scope's \"change\": the person served may not change it", aa.Table)})
			p.decline(aa)
			continue
		}
		var d *toolgen.Designed
		var err error
		if aa.Rule == toolgen.RuleOpen {
			var dropped []string
			d, dropped, err = validateOpen(m, conn, aa, seen)
			for _, why := range dropped {
				p.Dropped = append(p.Dropped, Dropped{ruleOf + aa.Name, why})
			}
		} else {
			d, err = validateAction(m, conn, aa, seen)
		}
		if err != nil {
			p.Dropped = append(p.Dropped, Dropped{aa.Name, err.Error()})
			p.decline(aa)
			continue
		}
		seen[aa.Name] = true
		p.Actions = append(p.Actions, *d)
		if aa.Rule == toolgen.RuleStatus {
			p.Enums[aa.Table+"."+aa.Column] = aa.Values
		}
	}
	if err := p.addFigures(m, conn, a.Figures); err != nil {
		return nil, err
	}
	for _, r := range a.Rules {
		switch err := sentence("rule of "+r.Action, r.Text); {
		case err != nil:
			p.Dropped = append(p.Dropped, Dropped{ruleOf + r.Action, err.Error()})
		case !seen[r.Action]:
			p.Dropped = append(p.Dropped, Dropped{ruleOf + r.Action, "no valid action of that name enforces it"})
		default:
			p.Policy.Rules[r.Action] = append(p.Policy.Rules[r.Action], r.Text)
		}
	}
	return p, nil
}

// validateScope checks the answer's scope: the person's table exists, and
// each table to change exists and may be written (a key, no trigger
// keeping it). A scope is the design's word on what the agent may do, so
// a wrong table fails the whole answer (a repair names it), never a scope
// silently narrower or wider than the one said.
func validateScope(m *dbmodel.Model, sa *ScopeAnswer) (*toolgen.Scope, error) {
	if sa.Person != "" && m.Table(sa.Person) == nil {
		return nil, fmt.Errorf("scope: no table %q for the person served", sa.Person)
	}
	sc := &toolgen.Scope{Person: sa.Person, Tables: []string{}, By: toolgen.ScopeByDesign}
	for _, name := range sa.Change {
		t := m.Table(name)
		switch {
		case t == nil:
			return nil, fmt.Errorf("scope: no table %q to change", name)
		case len(t.PrimaryKey) == 0 || t.MaintainedBy != "":
			return nil, fmt.Errorf("scope: table %q cannot be changed (no key, or a trigger keeps it)", name)
		}
		if !slices.Contains(sc.Tables, name) {
			sc.Tables = append(sc.Tables, name)
		}
	}
	return sc, nil
}

// decline records that the plan leaves aa out (its table and column, as
// the answer named them, where they exist).
func (p *Plan) decline(aa ActionAnswer) {
	d := toolgen.Declined{Table: aa.Table, Column: aa.Column}
	if d.Table != "" && d.Column != "" && !slices.Contains(p.Declined, d) {
		p.Declined = append(p.Declined, d)
	}
}

// validateAction checks one action against the model and the rows.
func validateAction(m *dbmodel.Model, conn *sqlite3.Conn, aa ActionAnswer, seen map[string]bool) (*toolgen.Designed, error) {
	if !nameRE.MatchString(aa.Name) {
		return nil, fmt.Errorf("name %q: want lower-case letters, digits and _ (3 to 48)", aa.Name)
	}
	if seen[aa.Name] {
		return nil, fmt.Errorf("name %q is used twice", aa.Name)
	}
	t := m.Table(aa.Table)
	if t == nil {
		return nil, fmt.Errorf("no table %q", aa.Table)
	}
	if len(t.PrimaryKey) == 0 || t.MaintainedBy != "" {
		return nil, fmt.Errorf("table %q cannot be written by an action (no key, or a trigger keeps it)", aa.Table)
	}
	c := t.Column(aa.Column)
	if c == nil {
		return nil, fmt.Errorf("table %q has no column %q", aa.Table, aa.Column)
	}
	if !c.Writable() || t.IsKey(c.Name) || len(c.ReferencedBy) > 0 {
		return nil, fmt.Errorf("column %q is computed or a key; an action may not write it", aa.Column)
	}
	d := &toolgen.Designed{Name: aa.Name, Table: t.Name}
	switch aa.Rule {
	case toolgen.RuleStatus:
		a, err := validateStatus(conn, t, c, aa)
		if err != nil {
			return nil, err
		}
		d.Action = *a
	case toolgen.RuleMilestone:
		if t.ForeignKeyOf(c.Name) != nil || c.Kind != dbmodel.Text || c.NotNull {
			return nil, fmt.Errorf("milestone %q: want a nullable text column holding a time", aa.Column)
		}
		if c.TimeLayout == "" && c.Nulls < t.Rows {
			return nil, fmt.Errorf("milestone %q: its values are not times in one form", aa.Column)
		}
		if c.Nulls == 0 {
			return nil, fmt.Errorf("milestone %q: every row already has it set, so nothing is left to mark", aa.Column)
		}
		if !wordRE.MatchString(aa.To) {
			return nil, fmt.Errorf("milestone %q: say the event in \"to\" as one lower-case word (\"returned\")", aa.Column)
		}
		d.Action = toolgen.Action{Rule: toolgen.RuleMilestone, Column: c.Name, Value: aa.To}
	case toolgen.RuleConsume:
		a, err := validateConsume(m, conn, t, c, aa)
		if err != nil {
			return nil, err
		}
		d.Action = *a
	default:
		return nil, fmt.Errorf("rule %q: want status, milestone, consume or open", aa.Rule)
	}
	return d, nil
}

// validateStatus: a text column whose values in the data are all among
// the declared ones, a target among them, moves from others, and time
// columns to stamp.
func validateStatus(conn *sqlite3.Conn, t *dbmodel.Table, c *dbmodel.Column, aa ActionAnswer) (*toolgen.Action, error) {
	if c.Kind != dbmodel.Text || t.ForeignKeyOf(c.Name) != nil {
		return nil, fmt.Errorf("status %q: want a text column that refers to nothing", aa.Column)
	}
	if len(aa.Values) < 2 || len(aa.Values) > 20 {
		return nil, fmt.Errorf("status %q: declare 2 to 20 allowed values", aa.Column)
	}
	for _, v := range aa.Values {
		if v == "" || len(v) > 40 || strings.ContainsAny(v, ",`\"\\\n") || dbmodel.CommentText(v) != v {
			return nil, fmt.Errorf("status %q: value %q is not a plain word or phrase", aa.Column, v)
		}
	}
	if len(c.Enum) > 0 && !c.EnumInferred {
		for _, v := range c.Enum {
			if !slices.Contains(aa.Values, v) {
				return nil, fmt.Errorf("status %q: the CHECK allows %q, which the declared values leave out", aa.Column, v)
			}
		}
	}
	inData, err := valuesOf(conn, t, c)
	if err != nil {
		return nil, err
	}
	for _, v := range inData {
		if !slices.Contains(aa.Values, v) {
			return nil, fmt.Errorf("status %q: the data holds %q, which is not among the declared values", aa.Column, v)
		}
	}
	if !slices.Contains(aa.Values, aa.To) {
		return nil, fmt.Errorf("status %q: the target %q is not among the declared values", aa.Column, aa.To)
	}
	if len(aa.From) == 0 {
		return nil, fmt.Errorf("status %q: say which values a row may move to %q from", aa.Column, aa.To)
	}
	for _, v := range aa.From {
		if !slices.Contains(aa.Values, v) || v == aa.To {
			return nil, fmt.Errorf("status %q: %q cannot be a state it moves from (not declared, or the target)", aa.Column, v)
		}
	}
	if !slices.ContainsFunc(aa.From, func(v string) bool { return slices.Contains(inData, v) }) {
		return nil, fmt.Errorf("status %q: no row is in a state it moves from (%s)", aa.Column, strings.Join(aa.From, ", "))
	}
	a := &toolgen.Action{Rule: toolgen.RuleStatus, Column: c.Name, Value: aa.To, From: aa.From}
	for _, s := range aa.Stamp {
		sc := t.Column(s)
		if sc == nil || sc.Kind != dbmodel.Text || !sc.Writable() || t.IsKey(s) || t.ForeignKeyOf(s) != nil || sc == c {
			return nil, fmt.Errorf("status %q: %q is not a time column of %s to stamp", aa.Column, s, t.Name)
		}
		if sc.TimeLayout == "" && sc.Nulls < t.Rows {
			return nil, fmt.Errorf("status %q: the values of %q are not times in one form", aa.Column, s)
		}
		layout := sc.TimeLayout
		if layout == "" {
			layout = "2006-01-02 15:04:05"
		}
		a.Moves = append(a.Moves, toolgen.Stamped{Column: s, Layout: layout})
	}
	return a, nil
}

// validateConsume: a numeric quantity on a line that refers (declared or
// recovered) to a parent with a numeric stock or balance.
func validateConsume(m *dbmodel.Model, conn *sqlite3.Conn, t *dbmodel.Table, c *dbmodel.Column, aa ActionAnswer) (*toolgen.Action, error) {
	if c.Kind != dbmodel.Integer && c.Kind != dbmodel.Real {
		return nil, fmt.Errorf("consume %q: the quantity must be a number column", aa.Column)
	}
	fk := t.ForeignKeyOf(aa.Ref)
	if fk == nil || fk.RefTable != aa.StockTable {
		return nil, fmt.Errorf("consume: %s.%q does not refer to %q", t.Name, aa.Ref, aa.StockTable)
	}
	p := m.Table(aa.StockTable)
	if p == nil || p == t || len(p.PrimaryKey) != 1 || p.PrimaryKey[0] != fk.RefColumns[0] || p.MaintainedBy != "" {
		return nil, fmt.Errorf("consume: %q is not a parent with a one-column key that actions may write", aa.StockTable)
	}
	sc := p.Column(aa.StockColumn)
	if sc == nil || (sc.Kind != dbmodel.Integer && sc.Kind != dbmodel.Real) || !sc.Writable() || p.IsKey(sc.Name) || p.ForeignKeyOf(sc.Name) != nil {
		return nil, fmt.Errorf("consume: %s.%q is not a number column to draw on", aa.StockTable, aa.StockColumn)
	}
	n, err := count(conn, "SELECT count(*) FROM "+dbmodel.Quote(p.Name)+" WHERE "+dbmodel.Quote(sc.Name)+" >= 2")
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, fmt.Errorf("consume: no %s has 2 or more %s to draw on", p.Name, sc.Name)
	}
	return &toolgen.Action{Rule: toolgen.RuleConsume, Column: c.Name,
		Stock: &toolgen.Stock{Table: p.Name, Column: sc.Name, Key: p.PrimaryKey[0], Ref: aa.Ref}}, nil
}

// valuesOf lists a column's distinct values (at most 21: more than a
// status may declare).
func valuesOf(conn *sqlite3.Conn, t *dbmodel.Table, c *dbmodel.Column) ([]string, error) {
	stmt, _, err := conn.Prepare("SELECT DISTINCT " + dbmodel.Quote(c.Name) + " FROM " + dbmodel.Quote(t.Name) + " WHERE " + dbmodel.Quote(c.Name) + " IS NOT NULL LIMIT 21")
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	var out []string
	for stmt.Step() {
		out = append(out, stmt.ColumnText(0))
	}
	return out, stmt.Err()
}

func count(conn *sqlite3.Conn, sql string) (int64, error) {
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	if !stmt.Step() {
		return 0, stmt.Err()
	}
	return stmt.ColumnInt64(0), nil
}
