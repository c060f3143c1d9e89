package tasks

import (
	"fmt"
	"slices"

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
