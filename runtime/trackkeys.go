package runtime

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"
)

// Change tracking of WITHOUT ROWID tables (issue 35). Their rows have no
// rowid, so the hook records the written rows' primary keys instead, as
// JSON arrays ([k1, k2]): what WrittenFunc returns for such a table, and a
// check reads the rows whose key is among them. A key is recorded only
// when JSON carries it exactly, an integer or valid UTF-8 text; a row
// keyed by anything else (a real, a BLOB) sends the table to the whole
// scan, as too many written rows do.

// keyedTable is a WITHOUT ROWID table's key: its columns' indexes as the
// pre-update hook numbers them (the table's columns in order).
type keyedTable []int

// readKeyedTables reads main's WITHOUT ROWID tables and their keys, by
// name as SQLite spells it.
func readKeyedTables(conn *sqlite3.Conn) (map[string]keyedTable, error) {
	keyed := map[string]keyedTable{}
	err := eachRow(conn, `SELECT l.name, c.cid FROM pragma_table_list AS l, pragma_table_xinfo(l.name) AS c
		WHERE l.schema = 'main' AND l.type = 'table' AND l.wr AND c.pk > 0 ORDER BY l.name, c.pk`,
		func(stmt *sqlite3.Stmt) {
			name := stmt.ColumnText(0)
			keyed[name] = append(keyed[name], stmt.ColumnInt(1))
		})
	return keyed, err
}

// keyHook records the keys of the row a keyed table's write touches.
func (t *rowTracker) keyHook(d sqlite3.PreUpdateData, tr *tableRows, key keyedTable) {
	if d.Op != sqlite3.AUTH_INSERT {
		t.recordKey(tr, key, d.Old)
	}
	if d.Op != sqlite3.AUTH_DELETE && !tr.all {
		t.recordKey(tr, key, d.New)
	}
	if len(tr.keys) > maxTrackedRows {
		tr.keys, tr.all = nil, true
	}
}

func (t *rowTracker) recordKey(tr *tableRows, key keyedTable, value func(int) (sqlite3.Value, error)) {
	b := append(t.buf[:0], '[')
	for i, col := range key {
		v, err := value(col)
		if err != nil {
			tr.keys, tr.all = nil, true
			return
		}
		if i > 0 {
			b = append(b, ',')
		}
		switch v.Type() {
		case sqlite3.INTEGER:
			b = strconv.AppendInt(b, v.Int64(), 10)
		case sqlite3.TEXT:
			s := v.Text()
			if !utf8.ValidString(s) {
				tr.keys, tr.all = nil, true
				return
			}
			q, _ := json.Marshal(s) // valid UTF-8: JSON gives back these bytes
			b = append(b, q...)
		default:
			tr.keys, tr.all = nil, true
			return
		}
	}
	b = append(b, ']')
	t.buf = b
	if tr.keys == nil {
		tr.keys = map[string]struct{}{}
	}
	tr.keys[string(b)] = struct{}{}
}

// writtenKeys returns the JSON array of a keyed table's written keys, or
// ok false when the table must be scanned whole.
func (t *rowTracker) writtenKeys(table string) (ids []byte, ok bool) {
	tr := t.tables[table]
	if !t.on || tr != nil && tr.all {
		return nil, false
	}
	b := append(t.buf[:0], '[')
	if tr != nil {
		for k := range tr.keys {
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = append(b, k...)
		}
	}
	b = append(b, ']')
	t.buf = b
	return b, true
}
