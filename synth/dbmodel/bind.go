package dbmodel

import (
	"fmt"

	"github.com/ncruces/go-sqlite3"
)

// Bind binds a Go value (nil, int, int64, float64, string, []byte; anything
// else as its text) to parameter i of stmt.
func Bind(stmt *sqlite3.Stmt, i int, a any) error {
	switch v := a.(type) {
	case nil:
		return stmt.BindNull(i)
	case int:
		return stmt.BindInt64(i, int64(v))
	case int64:
		return stmt.BindInt64(i, v)
	case float64:
		return stmt.BindFloat(i, v)
	case string:
		return stmt.BindText(i, v)
	case []byte:
		return stmt.BindBlob(i, v)
	}
	return stmt.BindText(i, fmt.Sprint(a))
}

// QueryInt64 runs a query and returns the first column of its first row as
// an integer (0 when there is no row).
func QueryInt64(conn *sqlite3.Conn, sql string, args ...any) (int64, error) {
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	for i, a := range args {
		if err := Bind(stmt, i+1, a); err != nil {
			return 0, err
		}
	}
	var n int64
	if stmt.Step() {
		n = stmt.ColumnInt64(0)
	}
	return n, stmt.Err()
}
