package tasks

import (
	"fmt"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Persona-anchored tasks are the main path, the way τ-bench's tasks go:
// the user says who they are by what people know (the agent finds them:
// one call), the agent lists their rows (one call), reads what it needs
// to decide (one or more), then acts or answers. Where the database has
// people with rows of their own, most attempts start there (anchorShare)
// and go to the composed shapes first (compose.go for a change, tally.go
// for a question); the plain one-row read or edit is what is left when a
// composed shape finds nothing to choose from.

// anchorShare is the share of attempts anchored on a person, where a
// person table has rows of its own.
const anchorShare = 0.8

// owns: some list tool gives rows of another table that refer to t's
// rows ("my orders") and that a composed task may choose among (listRows:
// not people, a ledger, link rows or a timetable).
// mine: the user is t's row (any of its lists is theirs); otherwise only
// a list through a reference that is the row's own (listRows).
func (w *walker) owns(t *dbmodel.Table, mine bool) bool {
	if kindTable(t) {
		return false
	}
	for _, tl := range w.spec.Tools {
		if tl.Kind != toolgen.Children || tl.Parent != t.Name || tl.Table == t.Name {
			continue
		}
		if !mine && !ownRole(roleFor(tl.Via.Columns[0], t), t) {
			continue
		}
		child := w.spec.Model.Table(tl.Table)
		if child != nil && len(child.PrimaryKey) > 0 && countable(child, t) && !ledger(child) && !person(child) && !compound(child) && !schedule(child) && w.groups(tl) {
			return true
		}
	}
	return false
}

// groups: some row has from two to a hundred rows in the list tl gives
// (the rows a composed task chooses among, all in one page: listAll);
// asked of the data once per list.
func (w *walker) groups(tl *toolgen.Tool) bool {
	if v, ok := w.owners[tl.Name]; ok {
		return v
	}
	fk := dbmodel.Quote(tl.Via.Columns[0])
	n, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM (SELECT 1 FROM %s WHERE %s IS NOT NULL GROUP BY %s HAVING COUNT(*) BETWEEN 2 AND 100 LIMIT 1)`,
		dbmodel.Quote(tl.Table), fk, fk))
	ok := err == nil && n > 0
	if w.owners != nil {
		w.owners[tl.Name] = ok
	}
	return ok
}
