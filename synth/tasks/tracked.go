package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// State checks in proportion to the change (issue 35). A whole-state check
// compares every table of main with init: ~10 ms an episode on a 500 KB
// database, growing with the data, not with what the agent did. The
// runtime tells a check which rows the episode wrote
// (envpkg.WrittenFunc): main began as init, so at every other rowid both
// hold the same row. Each comparison is therefore written twice,
//
//	CASE WHEN wasmenv_written('t') IS NULL THEN <whole table> ELSE <written rows> END
//
// and the runtime answers the second from the change set, the first only
// when the table is not tracked (too many rows written, tracking off).
//
// Counting rows at the written rowids gives the whole table's difference
// exactly. Comparing rows by key does too when no unwritten row can meet
// another row of the same key: the key is declared (a unique index, or the
// rowid itself) and no key column holds NULL in the data (a unique index
// lets NULLs repeat, and IS matches them). Otherwise the comparison stays
// whole. A test replays the shipped environments' checks both ways on
// thousands of states (envs/tracked_test.go).

// rowidName is a name of the rowid no column of t shadows, "" when t has
// none (WITHOUT ROWID, or every name taken).
func rowidName(t *dbmodel.Table) string {
	if t.WithoutRowID {
		return ""
	}
	for _, n := range []string{"rowid", "_rowid_", "oid"} {
		if !slices.ContainsFunc(t.Columns, func(c *dbmodel.Column) bool { return strings.EqualFold(c.Name, n) }) {
			return n
		}
	}
	return ""
}

// keyTracked reports whether rows of t compared by key may be compared at
// the written rowids only.
func keyTracked(t *dbmodel.Table) bool {
	if len(t.PrimaryKey) == 0 {
		return false
	}
	for _, k := range t.PrimaryKey {
		c := t.Column(k)
		if c == nil || c.Nulls > 0 {
			return false
		}
	}
	return true
}

// written is the SQL call that gives t's written rowids.
func written(t *dbmodel.Table) string {
	return envpkg.WrittenFunc + "(" + emit.Literal(t.Name) + ")"
}

// inWritten is an SQL condition: the row (of alias, "" or "a.") is
// written; "" when t has no tracked form. A rowid table's rows are found
// by rowid; a WITHOUT ROWID table's by key, which the runtime gives as
// JSON arrays of the key's columns (SQLite enforces NOT NULL on such a
// key, and a JSON integer or string reads back as the value written).
func inWritten(alias string, t *dbmodel.Table) string {
	if !t.WithoutRowID {
		rid := rowidName(t)
		if rid == "" {
			return ""
		}
		return fmt.Sprintf("%s%s IN (SELECT value FROM json_each(%s))", alias, rid, written(t))
	}
	if len(t.PrimaryKey) == 0 {
		return ""
	}
	var cols, vals []string
	for i, k := range t.PrimaryKey {
		cols = append(cols, alias+dbmodel.Quote(k))
		vals = append(vals, fmt.Sprintf("value->>%d", i))
	}
	lhs := cols[0]
	if len(cols) > 1 {
		lhs = "(" + strings.Join(cols, ", ") + ")"
	}
	return fmt.Sprintf("%s IN (SELECT %s FROM json_each(%s))", lhs, strings.Join(vals, ", "), written(t))
}

// orWritten is full when t is not tracked, tracked otherwise.
func orWritten(t *dbmodel.Table, full, tracked string) string {
	return fmt.Sprintf("CASE WHEN %s IS NULL THEN (%s) ELSE (%s) END", written(t), full, tracked)
}

// tableKept is an SQL condition: t holds init's rows, and delta more
// (created ones), when the task allows no other change to t. With a
// declared key free of NULLs the rows are distinct, so "init's rows are
// among main's and main has delta more" is rowCount and rowsKept with
// nothing excepted; written as EXCEPT of whole rows (SELECT *) it is a
// fraction of their SQL, and a check is prepared per episode. Written
// nowhere, t is unchanged: delta must be 0.
func tableKept(t *dbmodel.Table, delta int) string {
	q := dbmodel.Quote(t.Name)
	d := ""
	switch {
	case delta > 0:
		d = fmt.Sprintf(" + %d", delta)
	case delta < 0:
		d = fmt.Sprintf(" - %d", -delta)
	}
	same := func(where string) string {
		return fmt.Sprintf("(SELECT COUNT(*) FROM main.%[1]s%[2]s) = (SELECT COUNT(*) FROM init.%[1]s%[2]s)%[3]s AND NOT EXISTS (SELECT * FROM init.%[1]s%[2]s EXCEPT SELECT * FROM main.%[1]s%[2]s)",
			q, where, d)
	}
	none := "0"
	if delta == 0 {
		none = "1"
	}
	return fmt.Sprintf("CASE WHEN %[1]s IS NULL THEN (%[2]s) WHEN %[1]s = '[]' THEN %[3]s ELSE (%[4]s) END",
		written(t), same(""), none, same(" WHERE "+inWritten("", t)))
}
