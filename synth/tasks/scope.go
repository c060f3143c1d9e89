package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// DeriveScope is the served person's scope where no design says it (the
// procedural route), from the schema where it is certain:
//
//   - the person is the person table (person: the one the persona path
//     anchors on) that other tables refer to, the one with the most rows
//     where there are several (the customers the shop serves, not its
//     handful of employees);
//   - they may change their own record, the rows that refer to it (their
//     orders, rentals, reservations: the rows the persona lists as
//     "mine"), and the rows that refer to those (an order's lines, a
//     reservation's passengers), except other people referring to them
//     (the customers an employee supports) and the rows their own record
//     refers to (their department, their support rep: shared rows, not
//     theirs);
//   - and the rows their open actions add (opens: an open row that refers
//     to a row of theirs, with the same exceptions).
//
// Reference tables (films, flights, products, jobs) and other people's
// records are outside. nil where no person table is certain (no limit, as
// before).
func DeriveScope(m *dbmodel.Model, opens map[string]*toolgen.Open) *toolgen.Scope {
	var p *dbmodel.Table
	for _, t := range m.Tables {
		if !person(t) || len(t.PrimaryKey) == 0 || !referred(m, t) {
			continue
		}
		if p == nil || t.Rows > p.Rows {
			p = t
		}
	}
	if p == nil {
		return nil
	}
	parents := map[string]bool{}
	for _, fk := range p.ForeignKeys {
		parents[fk.RefTable] = true
	}
	in := map[string]bool{p.Name: true}
	frontier := []string{p.Name}
	for depth := range 2 { // their rows, and those rows' own rows
		var next []string
		for _, t := range m.Tables {
			if in[t.Name] || depth == 0 && person(t) || parents[t.Name] || t.MaintainedBy != "" || len(t.PrimaryKey) == 0 {
				continue
			}
			if slices.ContainsFunc(t.ForeignKeys, func(fk dbmodel.ForeignKey) bool { return slices.Contains(frontier, fk.RefTable) }) {
				in[t.Name] = true
				next = append(next, t.Name)
			}
		}
		frontier = next
	}
	for name := range opens {
		t := m.Table(name)
		if t != nil && !in[name] && !parents[name] && !person(t) && slices.ContainsFunc(t.ForeignKeys, func(fk dbmodel.ForeignKey) bool { return in[fk.RefTable] }) {
			in[name] = true
		}
	}
	s := &toolgen.Scope{Person: p.Name, By: toolgen.ScopeBySchema}
	for _, t := range m.Tables { // in the schema's order
		if in[t.Name] {
			s.Tables = append(s.Tables, t.Name)
		}
	}
	return s
}

// referred: some other table refers to t.
func referred(m *dbmodel.Model, t *dbmodel.Table) bool {
	for _, o := range m.Tables {
		if o != t && slices.ContainsFunc(o.ForeignKeys, func(fk dbmodel.ForeignKey) bool { return fk.RefTable == t.Name }) {
			return true
		}
	}
	return false
}

// outOfScope names the first call of t that writes a table the served
// person may not change ("" when none): such a task is not made. The
// domain toolset offers no such tool; this holds the line for every task
// shape, whichever way it reached the write.
func outOfScope(spec *toolgen.Spec, t envpkg.Task) string {
	if spec == nil || spec.Scope == nil {
		return ""
	}
	for _, c := range t.Calls {
		if tl := spec.Tool(c.Name); tl != nil && tl.Kind.Writes() && !spec.Scope.Allows(tl.Table) {
			return fmt.Sprintf("%s writes %s, outside the served person's scope", tl.Name, tl.Table)
		}
	}
	return ""
}

// servedPerson: t may be the user of a person's own request: the scope's
// person where a scope names one (a shop's customer speaks for
// themselves, not its employees), any person table otherwise.
func (w *walker) servedPerson(t *dbmodel.Table) bool {
	if w.spec == nil || w.spec.Scope == nil {
		return true
	}
	return w.spec.Scope.Person == "" || w.spec.Scope.Person == t.Name
}

// othersRows says why the episode's changes reach a row of the served
// person's table that is neither the user's own record nor one that
// refers to it ("the employees I manage": manager_id is the user), ""
// when none does. The scope is of rows, not of tables: a manager's
// reports are theirs through the reference, another employee is not
// (round 8's hr rules said "only your own" while tasks changed reports).
func (w *walker) othersRows(c *chain, t envpkg.Task) (string, error) {
	s := w.spec.Scope
	if s == nil || s.Person == "" || !slices.ContainsFunc(t.Checks, func(ch envpkg.Check) bool { return !ch.Guard }) {
		// (A refusal's walk wrote what the task must not: its checks
		// say nothing changes.)
		return "", nil
	}
	pt := w.spec.Model.Table(s.Person)
	if pt == nil || len(pt.PrimaryKey) != 1 {
		return "", nil
	}
	d, err := w.ep.Diff()
	if err != nil {
		return "", err
	}
	if len(d[pt.Name]) == 0 {
		return "", nil
	}
	pk := pt.PrimaryKey[0]
	var me string
	for _, e := range c.entities {
		if e.table == pt && e.desc == "me" && e.row[pk] != nil {
			me = fmt.Sprint(sqlValue(e.row[pk]))
		}
	}
	refs := selfReferences(pt)
	for _, rec := range d[pt.Name] {
		row, err := decodeRow(rec)
		if err != nil || row == nil {
			return "", err
		}
		if me != "" && fmt.Sprint(sqlValue(row[pk])) == me || me != "" && slices.ContainsFunc(refs, func(col string) bool { return row[col] != nil && fmt.Sprint(sqlValue(row[col])) == me }) {
			continue
		}
		return fmt.Sprintf("a change to %s %v, neither the user's record nor one that refers to it", pt.Name, row[pk]), nil
	}
	return "", nil
}

// selfReferences are the one-column references of the person table to
// itself (a manager, a supervisor): the rows that name the user there are
// the user's to change.
func selfReferences(t *dbmodel.Table) []string {
	var out []string
	for _, fk := range t.ForeignKeys {
		if fk.RefTable == t.Name && len(fk.Columns) == 1 {
			out = append(out, fk.Columns[0])
		}
	}
	return out
}

// decodeRow is a record of an episode's diff (nil for a deleted row).
func decodeRow(rec json.RawMessage) (map[string]any, error) {
	var row map[string]any
	dec := json.NewDecoder(strings.NewReader(string(rec)))
	dec.UseNumber()
	if err := dec.Decode(&row); err != nil {
		return nil, err
	}
	return row, nil
}

// speaksAsUser says why a task does not speak as the served person ("" when
// it does): where the scope names the person, every task says who the
// user is, one of them (round 8's northwind: seven tasks never said, two
// spoke as an employee while the rules say the user is a customer).
func (w *walker) speaksAsUser(c *chain) string {
	s := w.spec.Scope
	if s == nil || s.Person == "" {
		return ""
	}
	if e := userOf(c); e != nil {
		if e.table.Name != s.Person {
			return fmt.Sprintf("the user speaks as one of the %s, not the %s the rules serve", e.table.Name, s.Person)
		}
		return ""
	}
	return "the task does not say who the user is"
}

// userOf is the chain's entity the user speaks as ("me"), nil for none.
func userOf(c *chain) *entity {
	for _, e := range c.entities {
		if e.desc == "me" && e.person {
			return e
		}
	}
	return nil
}

// identifyUser makes a task that changes nothing say who the user is,
// where it does not: one of the people the rules serve introduces
// themselves, and the ground truth finds them first (a read: the rest of
// the walk is unchanged). errDeadEnd where none can be found, or where
// the task is about another of those people.
func (w *walker) identifyUser(c *chain) error {
	for _, e := range c.entities {
		if e.table.Name == w.spec.Scope.Person {
			// About another of the people served: not for a stranger
			// to ask.
			return fmt.Errorf("%w: the task is about another %s", errDeadEnd, e.table.Name)
		}
	}
	anchored := w.anchored
	defer func() { w.anchored = anchored }()
	w.anchored = true
	for range 3 {
		who := &chain{}
		e, err := w.entry(who)
		if errors.Is(err, errDeadEnd) {
			continue
		}
		if err != nil {
			return err
		}
		if !who.me || e.table.Name != w.spec.Scope.Person {
			continue
		}
		c.calls = append(who.calls, c.calls...)
		c.entities = append(who.entities, c.entities...)
		c.ids = append(c.ids, who.ids...)
		c.me, c.persona = true, who.persona
		c.intro = strings.TrimSpace(who.intro + " " + c.intro)
		return nil
	}
	return fmt.Errorf("%w: no served person to speak as", errDeadEnd)
}
