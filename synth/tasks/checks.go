package tasks

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/emit"
)

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

// rowsKept is an SQL condition: every row of from.t (but those matching
// skip, a condition on alias a) has an identical row in to.t; column
// except is not compared for rows matching exceptCond. The inner lookup
// starts with the key columns, so it is an index search, not a scan and
// sort per row as EXCEPT would be.
func rowsKept(t *dbmodel.Table, from, to, skip, except, exceptCond string) string {
	q := dbmodel.Quote(t.Name)
	var conds []string
	cols := append([]string{}, t.PrimaryKey...)
	for _, c := range t.Columns {
		if !t.IsKey(c.Name) {
			cols = append(cols, c.Name)
		}
	}
	for _, c := range cols {
		qc := dbmodel.Quote(c)
		cond := "b." + qc + " IS a." + qc
		if c == except {
			cond = "(" + cond + " OR (" + exceptCond + "))"
		}
		conds = append(conds, cond)
	}
	where := ""
	if skip != "" {
		where = "NOT (" + skip + ") AND "
	}
	return fmt.Sprintf("NOT EXISTS (SELECT 1 FROM %s.%s AS a WHERE %sNOT EXISTS (SELECT 1 FROM %s.%s AS b WHERE %s))",
		from, q, where, to, q, strings.Join(conds, " AND "))
}

// rowCount compares the row counts of main and init: main = init + delta.
func rowCount(t *dbmodel.Table, delta int) string {
	q := dbmodel.Quote(t.Name)
	s := fmt.Sprintf("(SELECT COUNT(*) FROM main.%s) = (SELECT COUNT(*) FROM init.%s)", q, q)
	switch {
	case delta > 0:
		s += fmt.Sprintf(" + %d", delta)
	case delta < 0:
		s += fmt.Sprintf(" - %d", -delta)
	}
	return s
}

// unchangedAfterUpdate: only column col of the target row changed.
func unchangedAfterUpdate(t *dbmodel.Table, row map[string]any, col string) string {
	return "SELECT " + rowCount(t, 0) + " AND " + rowsKept(t, "main", "init", "", col, keyCond("a", t, row))
}

// unchangedAfterDelete: only the target row is gone.
func unchangedAfterDelete(t *dbmodel.Table, row map[string]any) string {
	return "SELECT " + rowCount(t, -1) + " AND " + rowsKept(t, "init", "main", keyCond("a", t, row), "", "")
}

// unchangedAfterCreate: one row more, every old row as it was.
func unchangedAfterCreate(t *dbmodel.Table) string {
	return "SELECT " + rowCount(t, 1) + " AND " + rowsKept(t, "init", "main", "", "", "")
}
