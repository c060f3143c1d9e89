package tasks

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// A write task's checks compare the whole final state (main) with the
// initial one (init): one check per change asked for, and one that holds
// only when every change is made and nothing else changed, in any table
// but those the database changes by itself (a trigger's audit rows: the
// allowed differences, named in the check). No check holds on the
// untouched state, so doing nothing earns nothing under any reward.

// change is one change a write task asks for.
type change struct {
	table *dbmodel.Table
	kind  string         // "update", "delete" or "create"
	row   map[string]any // update, delete: the row (its key)
	cols  map[string]any // update: the columns set, with their stored values; create: the new row's values
	name  string         // what the check is called
	// loose are columns checked by a condition in place of their value
	// in cols: a value the user left to the agent among several (any copy
	// of the film that is in), or a stamp of the episode clock, whose
	// time depends on how many calls came before.
	loose map[string]string
}

// target is an SQL expression true when the change is made.
func (c change) target() string {
	q := dbmodel.Quote(c.table.Name)
	switch c.kind {
	case "update":
		conds := []string{keyCond("", c.table, c.row)}
		for _, col := range slices.Sorted(mapsKeys(c.cols)) {
			if l, ok := c.loose[col]; ok {
				conds = append(conds, l)
				continue
			}
			cond := dbmodel.Quote(col) + " IS " + emit.Literal(c.cols[col])
			if day, ok := midnight(c.cols[col]); ok {
				// A date stored with a midnight time is asked for as the
				// date: either form is the change.
				cond = "(" + cond + " OR " + dbmodel.Quote(col) + " IS " + emit.Literal(day) + ")"
			}
			conds = append(conds, cond)
		}
		return fmt.Sprintf("EXISTS (SELECT 1 FROM main.%s WHERE %s)", q, strings.Join(conds, " AND "))
	case "delete":
		return fmt.Sprintf("NOT EXISTS (SELECT 1 FROM main.%s WHERE %s)", q, keyCond("", c.table, c.row))
	}
	cond := c.createCond()
	full := fmt.Sprintf("(SELECT COUNT(*) FROM main.%[1]s WHERE %[2]s) = (SELECT COUNT(*) FROM init.%[1]s WHERE %[2]s) + 1", q, cond)
	w := inWritten("", c.table)
	if w == "" {
		return full
	}
	return orWritten(c.table, full, fmt.Sprintf("(SELECT COUNT(*) FROM main.%[1]s WHERE %[2]s AND %[3]s) = (SELECT COUNT(*) FROM init.%[1]s WHERE %[2]s AND %[3]s) + 1",
		q, w, cond))
}

func (c change) createCond() string {
	var conds []string
	for _, col := range slices.Sorted(mapsKeys(c.cols)) {
		if l, ok := c.loose[col]; ok {
			conds = append(conds, l)
			continue
		}
		conds = append(conds, dbmodel.Quote(col)+" IS "+emit.Literal(c.cols[col]))
	}
	return strings.Join(conds, " AND ")
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// writeChecks are the checks of a task asking for changes. allowed lists
// the tables the database itself changes along (left out of the
// comparison).
func writeChecks(m *dbmodel.Model, changes []change, allowed []string) []envpkg.Check {
	var checks []envpkg.Check
	var all []string
	for _, c := range changes {
		checks = append(checks, envpkg.Check{Name: c.name, SQL: "SELECT " + c.target()})
		all = append(all, c.target())
	}
	name := "nothing else changed"
	if len(changes) == 1 {
		name = changes[0].name + ", and nothing else changed"
	}
	if len(allowed) > 0 {
		name += " (but " + strings.Join(allowed, ", ") + ", which the database updates itself)"
	}
	all = append(all, stateKept(m, changes, allowed)...)
	// A guard: a right change that comes with a stray one earns nothing,
	// not half (issue 28: whole-state checks by default).
	checks = append(checks, envpkg.Check{Name: name, Guard: true, SQL: allOf(all)})
	return checks
}

// allOf is a query true when every condition is: a CASE, which SQLite
// evaluates in order and stops at the first that fails, so a wrong state
// usually costs the first conditions (the change, the changed tables), not
// a pass over every table.
func allOf(conds []string) string {
	var b strings.Builder
	b.WriteString("SELECT CASE")
	for _, c := range conds {
		b.WriteString("\n WHEN (" + c + ") IS NOT 1 THEN 0")
	}
	b.WriteString("\n ELSE 1 END")
	return b.String()
}

// keepChecks: the task's right result is no change (a refusal, or a
// condition that does not hold). The check is a guard: it gates the reward
// of the answer the task also asks for, so doing nothing still earns
// nothing.
func keepChecks(m *dbmodel.Model) []envpkg.Check {
	return []envpkg.Check{{Name: "nothing changed", Guard: true, SQL: allOf(stateKept(m, nil, nil))}}
}

// stateKept lists SQL conditions that together say every table but
// allowed is as it was, except for changes: the changed tables first (a
// wrong change fails there), the largest tables last.
func stateKept(m *dbmodel.Model, changes []change, allowed []string) []string {
	var conds, rest []string
	tables := slices.Clone(m.Tables)
	slices.SortStableFunc(tables, func(a, b *dbmodel.Table) int { return cmp.Compare(a.Rows, b.Rows) })
	for _, t := range tables {
		if slices.Contains(allowed, t.Name) {
			continue
		}
		delta := 0
		var skip []string
		except := map[string][]string{}
		changed := false
		for _, c := range changes {
			if c.table.Name != t.Name {
				continue
			}
			changed = true
			switch c.kind {
			case "create":
				delta++
			case "delete":
				delta--
				skip = append(skip, "("+keyCond("a", t, c.row)+")")
			case "update":
				for col := range c.cols {
					except[col] = append(except[col], "("+keyCond("a", t, c.row)+")")
				}
			}
		}
		kept := []string{rowCount(t, delta), rowsKept(t, strings.Join(skip, " OR "), except)}
		if len(skip) == 0 && len(except) == 0 && keyTracked(t) && inWritten("", t) != "" {
			kept = []string{tableKept(t, delta)}
		}
		if changed {
			conds = append(conds, kept...)
		} else {
			rest = append(rest, kept...)
		}
	}
	return append(conds, rest...)
}

// keyCond is the SQL condition selecting row of t by its key, with the
// columns qualified by alias unless it is "".
func keyCond(alias string, t *dbmodel.Table, row map[string]any) string {
	if alias != "" {
		alias += "."
	}
	var w []string
	for _, k := range t.PrimaryKey {
		w = append(w, alias+dbmodel.Quote(k)+" IS "+emit.Literal(sqlValue(row[k])))
	}
	return strings.Join(w, " AND ")
}

// rowsKept is an SQL condition: every row of init.t (but those matching
// skip, a condition on alias a) has a row in main.t with the same key and
// the same values; a column in except is not compared for the rows
// matching its conditions. A join on the key (an index search per row) is
// about twice as fast as a correlated NOT EXISTS per row, and faster than
// EXCEPT on tables with a composite key (43k rows: 29 ms against 46-80 ms).
func rowsKept(t *dbmodel.Table, skip string, except map[string][]string) string {
	q := dbmodel.Quote(t.Name)
	var on, diff []string
	for _, k := range t.PrimaryKey {
		qk := dbmodel.Quote(k)
		on = append(on, "b."+qk+" IS a."+qk)
	}
	cols := append([]string{}, t.PrimaryKey...)
	for _, c := range t.Columns {
		if !t.IsKey(c.Name) {
			cols = append(cols, c.Name)
		}
	}
	for _, c := range cols {
		qc := dbmodel.Quote(c)
		d := "b." + qc + " IS NOT a." + qc
		if ex := except[c]; len(ex) > 0 {
			d = "(" + d + " AND NOT (" + strings.Join(ex, " OR ") + "))"
		}
		diff = append(diff, d)
	}
	where := "(" + strings.Join(diff, " OR ") + ")"
	if skip != "" {
		where = "NOT (" + skip + ") AND " + where
	}
	full := fmt.Sprintf("NOT EXISTS (SELECT 1 FROM init.%s AS a LEFT JOIN main.%s AS b ON %s WHERE %s)", q, q, strings.Join(on, " AND "), where)
	w := inWritten("a.", t)
	if w == "" || !keyTracked(t) {
		return full
	}
	return orWritten(t, full, fmt.Sprintf("NOT EXISTS (SELECT 1 FROM init.%s AS a LEFT JOIN main.%s AS b ON %s WHERE %s AND %s)",
		q, q, strings.Join(on, " AND "), w, where))
}

// rowCount compares the row counts of main and init: main = init + delta.
func rowCount(t *dbmodel.Table, delta int) string {
	q := dbmodel.Quote(t.Name)
	s := fmt.Sprintf("(SELECT COUNT(*) FROM main.%s) = (SELECT COUNT(*) FROM init.%s)", q, q)
	var d string
	switch {
	case delta > 0:
		d = fmt.Sprintf(" + %d", delta)
	case delta < 0:
		d = fmt.Sprintf(" - %d", -delta)
	}
	w := inWritten("", t)
	if w == "" {
		return s + d
	}
	return orWritten(t, s+d, fmt.Sprintf("(SELECT COUNT(*) FROM main.%s WHERE %s) = (SELECT COUNT(*) FROM init.%s WHERE %s)%s", q, w, q, w, d))
}
