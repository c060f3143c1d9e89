package tasks

import (
	"fmt"
	"strings"

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
	return len(w.ownLists(t, mine)) > 0
}

// ownLists are the list tools owns finds for t.
func (w *walker) ownLists(t *dbmodel.Table, mine bool) []*toolgen.Tool {
	if kindTable(t) {
		return nil
	}
	var out []*toolgen.Tool
	for _, tl := range w.spec.Tools {
		if tl.Kind != toolgen.Children || tl.Parent != t.Name || len(tl.Via.Columns) != 1 || len(tl.Via.RefColumns) != 1 {
			continue
		}
		if !mine && !ownRole(roleFor(tl.Via.Columns[0], t), t) {
			continue
		}
		child := w.spec.Model.Table(tl.Table)
		if child != nil && len(child.PrimaryKey) > 0 && countable(child, t) && !ledger(child) && !otherPeople(child, t) && !compound(child) && !schedule(child) && w.groups(tl) {
			out = append(out, tl)
		}
	}
	return out
}

// ownersOf is where an anchored entry samples its person from: the rows
// of t with from two to a hundred rows in one of its own lists (a
// subquery, and how many rows it holds), or all of t where none has.
func (w *walker) ownersOf(t *dbmodel.Table) (string, int64) {
	var conds []string
	for _, tl := range w.ownLists(t, true) {
		fk := dbmodel.Quote(tl.Via.Columns[0])
		conds = append(conds, fmt.Sprintf(`%s IN (SELECT %s FROM %s WHERE %s IS NOT NULL GROUP BY %s HAVING COUNT(*) BETWEEN 2 AND 100)`,
			dbmodel.Quote(tl.Via.RefColumns[0]), fk, dbmodel.Quote(tl.Table), fk, fk))
	}
	all := dbmodel.Quote(t.Name)
	if len(conds) == 0 {
		return all, int64(t.Rows)
	}
	from := fmt.Sprintf(`(SELECT * FROM %s WHERE %s)`, all, strings.Join(conds, " OR "))
	n, err := dbmodel.QueryInt64(w.src, "SELECT COUNT(*) FROM "+from)
	if err != nil || n == 0 {
		return all, int64(t.Rows)
	}
	return from, n
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
