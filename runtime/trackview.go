package runtime

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// The tracked path of an export view (issue 20): the view's diff query
// restricted to the rows the episode wrote (tracking.go). A view takes it
// when its records are the rows of one rowid table, one record per row:
// a default view, or a custom view of the form
// `SELECT key, column FROM {schema}.table` whose key is the table's
// one-column primary key (τ-bench's). Any other view is scanned whole.
//
// Why the restriction gives the full scan's answer: main began as init, so
// at every rowid the episode did not write both hold the same row (U).
// With M and I the written rows on each side, the full query computes
// M∪U EXCEPT I∪U, and deleted keys keys(I∪U) EXCEPT keys(M∪U); restricted,
// M EXCEPT I and keys(I) EXCEPT keys(M). They differ only if a written
// row equals, or a written row's key renders like, a row of U: two rows of
// one table with the same key. A primary key is unique, but SQLite lets a
// rowid table's key be NULL (any number of times), and the default view
// renders keys as text (CAST, json_array), where 12 and '12', or a text
// and a BLOB of the same bytes, meet. So each tracked query runs after a
// guard on the written rows' keys (guardOK): never NULL; for a composite
// key only text and integer parts (json_array renders those apart); for a
// one-column key rendered as text, one type class across the written rows
// and init's whole key column (read from the key's index: its least and
// greatest value, as SQLite orders NULL, numbers, text, BLOBs), text or
// integers. A guard that fails sends the view to the full scan. An
// INTEGER PRIMARY KEY is the rowid: nothing to guard.

// trackedView is a view's tracked path.
type trackedView struct {
	table string    // the table, as SQLite spells it
	diff  [2]string // the restricted diff query, few rows and many (restrictSQL); ?1 is the JSON array of rowids
	guard string    // the guard query (guardOK), or "" for none
	kind  guardKind
	// point reads a custom view's row at a rowid ?1, in main and init: the
	// direct form (trackdirect.go); "" for a default view.
	point [2]string
}

type guardKind int

const (
	guardNone      guardKind = iota // INTEGER PRIMARY KEY
	guardNotNull                    // a custom view's raw key: compared as values (text or integers)
	guardComposite                  // json_array of the key columns
	guardSingle                     // CAST(key AS TEXT)
)

// tableInfo is what the tracked path needs of a table.
type tableInfo struct {
	name  string   // as SQLite spells it
	rowid string   // a name of the rowid no column shadows, or ""
	cols  []string // every column, generated ones included
	pk    []string // primary key columns, in key order
	ipk   bool     // the key is the rowid (INTEGER PRIMARY KEY)
}

// readTables reads the rowid tables of a schema, by lower-cased name
// (SQLite's names are case-insensitive). WITHOUT ROWID tables are left
// out: they have no tracked path.
func readTables(conn *sqlite3.Conn) (map[string]*tableInfo, error) {
	tables := map[string]*tableInfo{}
	err := eachRow(conn, `SELECT l.name, c.name, c.pk, EXISTS (SELECT 1 FROM pragma_index_list(l.name) WHERE origin = 'pk')
		FROM pragma_table_list AS l, pragma_table_xinfo(l.name) AS c
		WHERE l.schema = 'main' AND l.type = 'table' AND NOT l.wr AND l.name NOT LIKE 'sqlite_%' ORDER BY l.name, c.cid`,
		func(stmt *sqlite3.Stmt) {
			name := stmt.ColumnText(0)
			t := tables[strings.ToLower(name)]
			if t == nil {
				t = &tableInfo{name: name}
				tables[strings.ToLower(name)] = t
			}
			col := stmt.ColumnText(1)
			t.cols = append(t.cols, col)
			if pk := stmt.ColumnInt(2); pk > 0 {
				for len(t.pk) < pk {
					t.pk = append(t.pk, "")
				}
				t.pk[pk-1] = col
			}
			t.ipk = !stmt.ColumnBool(3) // no index for the key: it is the rowid
		})
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		t.ipk = t.ipk && len(t.pk) == 1
		for _, alias := range []string{"rowid", "_rowid_", "oid"} {
			if !hasColumn(t.cols, alias) {
				t.rowid = alias
				break
			}
		}
	}
	return tables, nil
}

func hasColumn(cols []string, name string) bool {
	for _, c := range cols {
		if strings.EqualFold(c, name) {
			return true
		}
	}
	return false
}

func eachRow(conn *sqlite3.Conn, sql string, f func(*sqlite3.Stmt)) error {
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for stmt.Step() {
		f(stmt)
	}
	return stmt.Err()
}

// trackDefault is a default view's tracked path, or nil. key and rec are
// the view's key and record expressions, binary its columns with BINARY
// collation, cols its columns.
func trackDefault(t *tableInfo, key, rec, cols, binary string) *trackedView {
	if t == nil || t.rowid == "" || len(t.pk) == 0 || hasColumn(t.cols, trackedRowid) {
		return nil // no key: every row has the key [] (scanned whole)
	}
	tv := &trackedView{table: t.name, kind: guardNone}
	switch {
	case t.ipk:
	case len(t.pk) == 1:
		tv.kind = guardSingle
	default:
		tv.kind = guardComposite
	}
	for i, few := range []bool{true, false} {
		with, from := restrictSQL(t, few)
		tv.diff[i] = fmt.Sprintf(`%[6]s,
c(%[3]s) AS (SELECT %[4]s FROM %[5]s EXCEPT SELECT %[3]s FROM %[7]s)
SELECT %[1]s, %[2]s, NULL FROM c
UNION ALL
SELECT k, NULL, NULL FROM (SELECT (%[1]s) COLLATE BINARY AS k FROM %[7]s EXCEPT SELECT %[1]s FROM %[5]s)`,
			key, rec, cols, binary, from("main"), with, from("init"))
	}
	tv.guard = guardSQL(t, tv.kind)
	return tv
}

// customViewRE is the one custom view shape with a tracked path.
var customViewRE = regexp.MustCompile(`(?is)^\s*SELECT\s+(` + identRE + `)\s*,\s*(` + identRE + `)\s+FROM\s+\{schema\}\.(` + identRE + `)\s*$`)

const identRE = `[A-Za-z_][A-Za-z0-9_]*|"(?:[^"]|"")+"`

func unquoteIdent(s string) string {
	if strings.HasPrefix(s, `"`) {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}

// trackCustom is a custom view's tracked path, or nil.
func trackCustom(v *view, tables map[string]*tableInfo) *trackedView {
	m := customViewRE.FindStringSubmatch(v.query)
	if m == nil || len(v.tables) != 1 {
		return nil
	}
	key, col, name := unquoteIdent(m[1]), unquoteIdent(m[2]), unquoteIdent(m[3])
	t := tables[strings.ToLower(name)]
	if t == nil || !strings.EqualFold(v.tables[0], t.name) || t.rowid == "" || len(t.pk) != 1 ||
		!strings.EqualFold(t.pk[0], key) || !hasColumn(t.cols, col) || hasColumn(t.cols, trackedRowid) {
		return nil
	}
	tv := &trackedView{table: t.name, kind: guardNotNull}
	if t.ipk {
		tv.kind = guardNone
	}
	for i, few := range []bool{true, false} {
		with, from := restrictSQL(t, few)
		tv.diff[i] = fmt.Sprintf(`%s,
m(k, r) AS (SELECT %s, %s FROM %s), i(k, r) AS (SELECT %[2]s, %[3]s FROM %[5]s),
c(k, r) AS (SELECT k COLLATE BINARY, r COLLATE BINARY FROM m EXCEPT SELECT k, r FROM i)
SELECT c.k, c.r, i.r FROM c LEFT JOIN i ON i.k = c.k
UNION ALL
SELECT k, NULL, NULL FROM (SELECT k COLLATE BINARY FROM i EXCEPT SELECT k FROM m)`,
			with, m[1], m[2], from("main"), from("init"))
	}
	tv.guard = guardSQL(t, tv.kind)
	tv.point = [2]string{pointSQL(m[1], m[2], "main", t), pointSQL(m[1], m[2], "init", t)}
	return tv
}

// trackedRowid names the column of written rowids in the tracked queries
// (a table with a column of that name has no tracked path).
const trackedRowid = "wasmenv_tracked_rowid"

// fewTrackedRows is the most written rows a table's tracked query reads by
// rowid, driving a join (see restrictSQL; a variable for the tests, which
// run both forms).
var fewTrackedRows = 64

// restrictSQL is the WITH clause and the FROM clause (with its WHERE), per
// schema, that read a table's written rows, two ways.
//
// few: the rowids drive a join, which needs no temporary table. Each
// IN (list) would build one, and SQLite preallocates 20 pages of cache
// for each: with four of them an episode's connection kept ~400 KiB more
// after one diff (the heap of a connection never shrinks).
//
// many: read in key order, as the full scan reads them, so that EXCEPT
// sorts only within equal keys; in rowid order it sorted every written
// record (16,000 rows of 1 KB: 80 MB allocated where the scan took
// 75 KiB). An INTEGER PRIMARY KEY table is read at the written rowids
// (rowid order is key order); any other, through its key's index, at the
// keys the written rowids hold on either side: the same rows (under the
// guard, no other row holds one of those keys).
func restrictSQL(t *tableInfo, few bool) (with string, from func(schema string) string) {
	tbl := quoteIdent(t.name)
	with = `WITH tracked_rows(` + trackedRowid + `) AS (SELECT value FROM json_each(?1))`
	if few {
		return with, func(schema string) string {
			return fmt.Sprintf("tracked_rows CROSS JOIN %s.%s AS wasmenv_tracked_table WHERE wasmenv_tracked_table.%s = %s", schema, tbl, t.rowid, trackedRowid)
		}
	}
	if t.ipk {
		return with, func(schema string) string {
			return fmt.Sprintf("%s.%s WHERE %s IN tracked_rows", schema, tbl, t.rowid)
		}
	}
	pk := make([]string, len(t.pk))
	for i, c := range t.pk {
		pk[i] = quoteIdent(c)
	}
	cols := strings.Join(pk, ", ")
	with += fmt.Sprintf(`,
tracked_keys AS (SELECT %[1]s FROM main.%[2]s WHERE %[3]s IN tracked_rows UNION ALL SELECT %[1]s FROM init.%[2]s WHERE %[3]s IN tracked_rows)`, cols, tbl, t.rowid)
	return with, func(schema string) string {
		return fmt.Sprintf("%s.%s WHERE (%s) IN (SELECT * FROM tracked_keys)", schema, tbl, cols)
	}
}

// guardSQL selects the types of the written rows' key columns on both
// sides (tag 0) and, for a one-column key rendered as text, of init's
// least and greatest non-NULL key (tag 1).
func guardSQL(t *tableInfo, kind guardKind) string {
	if kind == guardNone {
		return ""
	}
	tbl := quoteIdent(t.name)
	with, from := restrictSQL(t, true)
	types := make([]string, len(t.pk))
	for i, c := range t.pk {
		types[i] = "typeof(" + quoteIdent(c) + ")"
	}
	cols := strings.Join(types, ", ")
	sql := fmt.Sprintf(`%s
SELECT 0, %s FROM %s UNION ALL SELECT 0, %[2]s FROM %[4]s`, with, cols, from("main"), from("init"))
	if kind == guardSingle {
		k := quoteIdent(t.pk[0])
		sql += fmt.Sprintf(`
UNION ALL SELECT 1, (SELECT typeof(%[1]s) FROM init.%[2]s WHERE %[1]s IS NOT NULL ORDER BY %[1]s LIMIT 1)
UNION ALL SELECT 1, (SELECT typeof(%[1]s) FROM init.%[2]s WHERE %[1]s IS NOT NULL ORDER BY %[1]s DESC LIMIT 1)`, k, tbl)
	}
	return sql
}

// typeCodes maps SQL typeof() to the type codes.
var typeCodes = map[string]sqlite3.Datatype{"integer": sqlite3.INTEGER, "real": sqlite3.FLOAT, "text": sqlite3.TEXT, "blob": sqlite3.BLOB, "null": sqlite3.NULL}

// guardOK runs a tracked view's guard on the written rows ids (see the
// top of this file): false sends the view to the full scan.
func (ep *Episode) guardOK(tv *trackedView, ids []byte) (bool, error) {
	if tv.kind == guardNone {
		return true, nil
	}
	gs, err := ep.prepareGuest(tv.guard)
	if err != nil {
		return false, err
	}
	stmt := gs.stmt
	defer stmt.ClearBindings()
	defer stmt.Reset()
	if err := stmt.BindRawText(1, ids); err != nil {
		return false, err
	}
	var written, initial [6]bool // by SQLite type code
	for stmt.Step() {
		for i := 1; i < stmt.ColumnCount(); i++ {
			if stmt.ColumnType(i) == sqlite3.NULL {
				continue // init's least or greatest key of an empty column
			}
			typ, ok := typeCodes[stmt.ColumnText(i)]
			if !ok {
				return false, nil
			}
			if stmt.ColumnInt(0) == 0 {
				written[typ] = true
			} else {
				initial[typ] = true
			}
		}
	}
	if err := stmt.Err(); err != nil {
		return false, err
	}
	text, integer, float, blob, null := sqlite3.TEXT, sqlite3.INTEGER, sqlite3.FLOAT, sqlite3.BLOB, sqlite3.NULL
	switch tv.kind {
	case guardNotNull: // one type, so that the keys' text (Diff's keys) stays apart too
		return !written[null] && !written[float] && !written[blob] && !(written[text] && written[integer]), nil
	case guardComposite:
		return !written[null] && !written[float] && !written[blob], nil
	}
	// guardSingle
	switch {
	case !written[integer] && !written[float] && !written[blob] && !written[null]:
		return !initial[integer] && !initial[float] && !initial[blob], nil // text (or nothing written)
	case written[integer] && !written[text] && !written[float] && !written[blob] && !written[null]:
		return !initial[text] && !initial[blob], nil
	}
	return false, nil
}
