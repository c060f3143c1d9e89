package tasks

import (
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// New rows: a row referring to the current one, refused when it would
// repeat one that exists or break a total its parent keeps.

// create adds a row referring to cur, copying the other values from an
// existing row of the same table (only for tables whose key SQLite assigns
// and without other unique columns, so the copy cannot collide).
func (w *walker) create(c *chain, cur *entity) (envpkg.Task, error) {
	if w.rng.IntN(2) == 0 {
		if t, err := w.link(c, cur); err == nil || !errors.Is(err, errDeadEnd) {
			return t, err
		}
	}
	if derives(cur.table) {
		return envpkg.Task{}, errDeadEnd // a new child would leave cur's total wrong
	}
	var opts []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind != toolgen.Children || t.Parent != cur.table.Name {
			continue
		}
		child := w.spec.Model.Table(t.Table)
		if c.me && person(child) {
			continue // a customer does not add people under themselves
		}
		if len(child.PrimaryKey) == 1 && child.Column(child.PrimaryKey[0]).Generated && len(child.Uniques) == 0 && w.toolFor(toolgen.Create, child.Name) != nil && child.Rows > 0 && !ledger(child) {
			unique := false
			for _, col := range child.Columns {
				unique = unique || col.Unique
			}
			if !unique {
				opts = append(opts, t)
			}
		}
	}
	if len(opts) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	via := opts[w.rng.IntN(len(opts))]
	child := w.spec.Model.Table(via.Table)
	if w.derivedParent(child) {
		return envpkg.Task{}, errDeadEnd
	}
	tool := w.toolFor(toolgen.Create, child.Name)
	// A template row.
	stmt, _, err := w.src.Prepare("SELECT * FROM " + dbmodel.Quote(child.Name) + " LIMIT 1 OFFSET ?")
	if err != nil {
		return envpkg.Task{}, err
	}
	stmt.BindInt64(1, w.rng.Int64N(child.Rows))
	tmpl := map[string]any{}
	if stmt.Step() {
		for i := range stmt.ColumnCount() {
			tmpl[stmt.ColumnName(i)] = dbmodel.ColumnValue(stmt, i)
		}
	}
	stmt.Close()
	if len(tmpl) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	fkCol := via.Via.Columns[0]
	tmpl[fkCol] = sqlValue(cur.row[via.Via.RefColumns[0]])
	args := map[string]any{}
	var said []string
	vals := map[string]any{}
	for _, p := range tool.Params {
		v := tmpl[p.Column]
		if col := child.Column(p.Column); col != nil && col.ByMachine() && p.Column != fkCol {
			// A GUID, a hash or a computed value is no one's to say.
			if p.Required {
				return envpkg.Task{}, errDeadEnd
			}
			continue
		}
		if v == nil || !p.Required && incidental(p.Column) {
			if p.Required {
				return envpkg.Task{}, errDeadEnd
			}
			continue // optional and not a person's to set: its default
		}
		if _, isBlob := v.([]byte); isBlob {
			return envpkg.Task{}, errDeadEnd
		}
		args[p.Name] = argValue(v, p.Type)
		if bookkeeping(p.Column) {
			// Required but stamped by the application (last_update): the
			// ground truth passes one, the request does not say it, and the
			// check does not hold the agent to it.
			continue
		}
		vals[p.Column] = v
		if p.Column != fkCol {
			if child.ForeignKeyOf(p.Column) != nil {
				return envpkg.Task{}, errDeadEnd // another reference: the user would have to name it by id
			}
			said = append(said, attrWords(p.Column)+" "+showCol(child.Column(p.Column), v))
		}
	}
	sort.Strings(said)
	if len(said) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	if dup, err := w.exists(child, vals, fkCol); err != nil || dup {
		return envpkg.Task{}, cmp.Or(err, errDeadEnd)
	}
	if _, err := w.call(c, tool.Name, args); err != nil {
		return envpkg.Task{}, err
	}
	checks, err := w.writeChecks(change{table: child, kind: "create", cols: vals, name: "the new " + noun(child) + " exists"})
	if err != nil {
		return envpkg.Task{}, err
	}
	what := article(noun(child))
	fields := strings.Join(said, ", ")
	return envpkg.Task{Instruction: oneOf(w.rng,
		fmt.Sprintf("Please add %s for %s with %s.", what, cur.desc, fields),
		fmt.Sprintf("I'd like to record %s for %s: %s.", what, cur.desc, fields),
		fmt.Sprintf("Could you create %s for %s? Use %s.", what, cur.desc, fields)),
		Checks: checks}, nil
}

// sharedPlace: cur is an address or location reached from a row that
// refers to it, and other rows refer to it too (the site several
// departments share): "update the address of the department Sales" would
// move them all.
//
// The same holds for any row that is not a person's (a job, a calendar, a
// supplier) reached from one of the rows that share it: "change the max
// salary of the job of the employee X" changes every holder's job. A
// person (the customer of invoice 44) is someone of their own.
func (w *walker) sharedPlace(cur *entity) (bool, error) {
	if cur.via == "" || cur.parent == nil || len(cur.table.PrimaryKey) != 1 || !placeTable(cur.table) && (person(cur.table) || cur.mine) {
		return false, nil
	}
	n, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s = ?`, dbmodel.Quote(cur.parent.table.Name), dbmodel.Quote(cur.via)), sqlValue(cur.row[cur.table.PrimaryKey[0]]))
	return n > 1, err
}

// derivedParent: a table t refers to keeps a total of t's rows (an
// invoice's total of its lines): adding or removing a row of t by hand
// leaves it wrong.
func (w *walker) derivedParent(t *dbmodel.Table) bool {
	for _, fk := range t.ForeignKeys {
		if p := w.spec.Model.Table(fk.RefTable); p != nil && p != t && derives(p) {
			return true
		}
	}
	return false
}

// exists: a new row with vals would repeat a row of t that exists: the
// same name, title, email or natural key (the copied template's, or
// another's), or an address copied from another row (a Yukon address
// under Malaysia). A create is of something new.
func (w *walker) exists(t *dbmodel.Table, vals map[string]any, fkCol string) (bool, error) {
	for col, v := range vals {
		if col == fkCol || t.ForeignKeyOf(col) != nil {
			continue
		}
		if lvl, _ := placeLevel(col); lvl != levelNone && lvl != levelPhone && len(placeCols(t, col)) >= 2 {
			return true, nil
		}
		if !identity(t, col) && !t.IsNatural(col) {
			continue
		}
		n, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s IS ?`, dbmodel.Quote(t.Name), dbmodel.Quote(col)), sqlValue(v))
		if err != nil || n > 0 {
			return true, err
		}
	}
	return false, nil
}
