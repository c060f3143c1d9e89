package dbmodel

import (
	"strconv"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// queryRows runs a query and returns every row as Go values. On a guarded
// connection (Guard) the query has its own work limit, and an interrupted
// query returns why (cancelled, or over its limit).
func queryRows(conn *sqlite3.Conn, sql string, args ...any) (rows [][]any, err error) {
	Fresh(conn)
	defer func() {
		if err != nil {
			if why := Interrupted(conn); why != nil {
				rows, err = nil, why
			}
		}
	}()
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	for i, a := range args {
		if err := Bind(stmt, i+1, a); err != nil {
			return nil, err
		}
	}
	for stmt.Step() {
		n := stmt.ColumnCount()
		row := make([]any, n)
		for i := range n {
			row[i] = ColumnValue(stmt, i)
		}
		rows = append(rows, row)
	}
	return rows, stmt.Err()
}

func queryStrings(conn *sqlite3.Conn, sql string, args ...any) ([]string, error) {
	rows, err := queryRows(conn, sql, args...)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, asString(r[0]))
	}
	return out, nil
}

// ColumnValue returns column i of the current row as nil, int64, float64,
// string or []byte.
func ColumnValue(stmt *sqlite3.Stmt, i int) any {
	switch stmt.ColumnType(i) {
	case sqlite3.INTEGER:
		return stmt.ColumnInt64(i)
	case sqlite3.FLOAT:
		return stmt.ColumnFloat(i)
	case sqlite3.TEXT:
		return stmt.ColumnText(i)
	case sqlite3.BLOB:
		return stmt.ColumnBlob(i, nil)
	}
	return nil
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

func asString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return ""
}

// ContainsAny reports whether s contains any of words: the naming
// heuristics ask it of lower-cased table and column names.
func ContainsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
