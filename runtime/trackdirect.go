package runtime

import (
	"bytes"
	"fmt"
	"math"

	"github.com/ncruces/go-sqlite3"
)

// The direct form of a custom view's tracked path: with few rows written,
// the view's rows at those rowids are read one by one on each side (a
// point read by rowid, main and init) and the restricted diff query's
// answer is computed here, instead of by the query (its json_each, EXCEPT
// and join cost more than the reads: ~35% of a τ-bench retail episode's
// DiffAndHash). The answer is the query's, row for row:
//
//	c = M EXCEPT I            (key, record) pairs, as SQLite compares them
//	c LEFT JOIN I ON key      each changed record with its initial one
//	keys(I) EXCEPT keys(M)    deleted keys
//
// where M and I are the (key, record) of the written rowids on each side,
// under the same guard as the query's (guardOK: keys never NULL, REAL or
// BLOB, not text and integers both), so that keys compare as plain values.
// TestTrackedDiffEqualsFullScan runs it against the full scan.

// directTracked turns the direct form on (tests run the query form too).
var directTracked = true

// sqlValue is one column value as SQLite holds it, and its text as
// sqlite3_column_text renders it (what the query form hands on).
type sqlValue struct {
	typ  sqlite3.Datatype
	i    int64
	f    float64
	text []byte // TEXT and BLOB bytes; a number's text
}

// sideRow is a view's row at a rowid on one side.
type sideRow struct{ key, rec sqlValue }

// pointSQL is the point read of a custom view's row at a rowid.
func pointSQL(key, col, schema string, t *tableInfo) string {
	return fmt.Sprintf("SELECT %s, %s FROM %s.%s WHERE %s = ?1", key, col, schema, quoteIdent(t.name), t.rowid)
}

// readSide reads the view's rows at rowids on one side (point[0] main,
// point[1] init), appending to rows.
func (ep *Episode) readSide(sql string, rowids []int64, rows []sideRow) ([]sideRow, error) {
	gs, err := ep.prepareGuest(sql)
	if err != nil {
		return nil, err
	}
	stmt := gs.stmt
	defer stmt.ClearBindings()
	for _, id := range rowids {
		if err := stmt.BindInt64(1, id); err != nil {
			return nil, err
		}
		if stmt.Step() {
			rows = append(rows, sideRow{columnValue(stmt, 0), columnValue(stmt, 1)})
		}
		if err := stmt.Err(); err != nil {
			stmt.Reset()
			return nil, err
		}
		if err := stmt.Reset(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// columnValue copies column i (its type read first: reading the text of a
// number converts it in place).
func columnValue(stmt *sqlite3.Stmt, i int) sqlValue {
	v := sqlValue{typ: stmt.ColumnType(i)}
	switch v.typ {
	case sqlite3.INTEGER:
		v.i = stmt.ColumnInt64(i)
	case sqlite3.FLOAT:
		v.f = stmt.ColumnFloat(i)
	case sqlite3.BLOB:
		v.text = bytes.Clone(stmt.ColumnRawBlob(i))
		return v
	case sqlite3.NULL:
		return v
	}
	v.text = bytes.Clone(stmt.ColumnRawText(i))
	return v
}

// sqlEqual is SQLite's comparison of two values under BINARY collation,
// as EXCEPT and a BINARY '=' between values without affinity apply it:
// NULL equals NULL, numbers compare by value (an integer and a REAL
// exactly), text and BLOBs by bytes, and no two storage classes meet.
func sqlEqual(a, b sqlValue) bool {
	switch {
	case a.typ == sqlite3.INTEGER && b.typ == sqlite3.INTEGER:
		return a.i == b.i
	case a.typ == sqlite3.FLOAT && b.typ == sqlite3.FLOAT:
		return a.f == b.f
	case a.typ == sqlite3.INTEGER && b.typ == sqlite3.FLOAT:
		return intEqualsFloat(a.i, b.f)
	case a.typ == sqlite3.FLOAT && b.typ == sqlite3.INTEGER:
		return intEqualsFloat(b.i, a.f)
	case a.typ != b.typ:
		return false
	case a.typ == sqlite3.NULL:
		return true
	}
	return bytes.Equal(a.text, b.text)
}

// intEqualsFloat is exact: 2^53+1 is not the double 2^53.
func intEqualsFloat(i int64, f float64) bool {
	if f != math.Trunc(f) || f < -0x1p63 || f >= 0x1p63 {
		return false
	}
	return int64(f) == i
}

// directGuard is guardOK's guardNotNull on the rows read (guardNone, the
// rowid as key, needs none).
func directGuard(kind guardKind, sides ...[]sideRow) bool {
	if kind == guardNone {
		return true
	}
	var text, integer bool
	for _, rows := range sides {
		for _, r := range rows {
			switch r.key.typ {
			case sqlite3.TEXT:
				text = true
			case sqlite3.INTEGER:
				integer = true
			default:
				return false
			}
		}
	}
	return !(text && integer)
}

// scanDirect is scanView's tracked query in its direct form. handled is
// false when the guard sends the view to the full scan.
func (ep *Episode) scanDirect(tv *trackedView, rowids []int64, emit func(key string, rec, init []byte, hasRec, hasInit bool) error) (handled bool, err error) {
	ms, err := ep.readSide(tv.point[0], rowids, ep.directRows[:0])
	if err != nil {
		return false, err
	}
	n := len(ms)
	all, err := ep.readSide(tv.point[1], rowids, ms)
	if err != nil {
		return false, err
	}
	defer func() { clear(all); ep.directRows = all[:0] }() // no record kept past the scan
	ms, is := all[:n], all[n:]
	if !directGuard(tv.kind, ms, is) {
		return false, nil
	}
	for j, m := range ms {
		if containsRow(is, m) || containsRow(ms[:j], m) {
			continue // unchanged, or a pair already seen (EXCEPT is distinct)
		}
		joined := false
		for _, i := range is {
			if sqlEqual(i.key, m.key) {
				joined = true
				if err := emit(string(m.key.text), m.rec.text, i.rec.text, m.rec.typ != sqlite3.NULL, i.rec.typ != sqlite3.NULL); err != nil {
					return true, err
				}
			}
		}
		if !joined {
			if err := emit(string(m.key.text), m.rec.text, nil, m.rec.typ != sqlite3.NULL, false); err != nil {
				return true, err
			}
		}
	}
	for j, i := range is {
		if containsKey(ms, i.key) || containsKey(is[:j], i.key) {
			continue
		}
		if err := emit(string(i.key.text), nil, nil, false, false); err != nil {
			return true, err
		}
	}
	return true, nil
}

func containsRow(rows []sideRow, r sideRow) bool {
	for _, x := range rows {
		if sqlEqual(x.key, r.key) && sqlEqual(x.rec, r.rec) {
			return true
		}
	}
	return false
}

func containsKey(rows []sideRow, k sqlValue) bool {
	for _, x := range rows {
		if sqlEqual(x.key, k) {
			return true
		}
	}
	return false
}
