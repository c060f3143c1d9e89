package sdk

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// ErrNoRows is returned by QueryRow when the query returns nothing.
var ErrNoRows = errors.New("sdk: no rows in result set")

// ErrNoHost is returned outside the wasmenv guest (go test on the host).
var ErrNoHost = errors.New("sdk: not running inside wasmenv")

// Rows is a query's result set.
type Rows struct {
	Columns []string
	Values  [][]any // per row, per column: nil, int64, float64, string or []byte
}

// Len is the number of rows.
func (r Rows) Len() int { return len(r.Values) }

// Row returns row i.
func (r Rows) Row(i int) Row { return Row{cols: r.Columns, vals: r.Values[i]} }

// All returns every row.
func (r Rows) All() []Row {
	out := make([]Row, len(r.Values))
	for i := range r.Values {
		out[i] = r.Row(i)
	}
	return out
}

// MarshalJSONTo encodes the rows as an array of objects.
func (r Rows) MarshalJSONTo(e *Encoder) {
	e.BeginArray()
	for i := range r.Values {
		r.Row(i).MarshalJSONTo(e)
	}
	e.EndArray()
}

// Row is one result row.
type Row struct {
	cols []string
	vals []any
}

// Columns are the column names in query order.
func (r Row) Columns() []string { return r.cols }

// Value is the raw value of a column (nil if absent or NULL).
func (r Row) Value(col string) any {
	for i, c := range r.cols {
		if c == col {
			return r.vals[i]
		}
	}
	return nil
}

// Has reports whether the row has the column.
func (r Row) Has(col string) bool {
	for _, c := range r.cols {
		if c == col {
			return true
		}
	}
	return false
}

// IsNull reports whether a column is NULL or absent.
func (r Row) IsNull(col string) bool { return r.Value(col) == nil }

// must is the value of a column the row has. A column the row lacks is
// a mistake in the tool (a misspelled name), not data: it panics, which
// the agent sees as a tool error and `wasmenv test` reports.
func (r Row) must(col string) any {
	for i, c := range r.cols {
		if c == col {
			return r.vals[i]
		}
	}
	panic(fmt.Sprintf("sdk: row has no column %q (columns: %s)", col, strings.Join(r.cols, ", ")))
}

// String returns a column as text ("" for NULL). It panics if the row
// has no such column.
func (r Row) String(col string) string {
	switch v := r.must(col).(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case int64:
		return fmt.Sprint(v)
	case float64:
		return fmt.Sprint(v)
	}
	return ""
}

// Int returns a column as an integer (0 for NULL). It panics if the row
// has no such column.
func (r Row) Int(col string) int64 {
	switch v := r.must(col).(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// Float returns a column as a float (0 for NULL). It panics if the row
// has no such column.
func (r Row) Float(col string) float64 {
	switch v := r.must(col).(type) {
	case int64:
		return float64(v)
	case float64:
		return v
	}
	return 0
}

// Bool returns a column as a boolean (non-zero integer). It panics if
// the row has no such column.
func (r Row) Bool(col string) bool { return r.Int(col) != 0 }

// Map returns the row as a map from column to value.
func (r Row) Map() map[string]any {
	m := make(map[string]any, len(r.cols))
	for i, c := range r.cols {
		m[c] = r.vals[i]
	}
	return m
}

// MarshalJSONTo encodes the row as an object in column order.
func (r Row) MarshalJSONTo(e *Encoder) {
	e.BeginObject()
	for i, c := range r.cols {
		e.Key(c)
		e.Any(r.vals[i])
	}
	e.EndObject()
}

// Result is what Exec reports.
type Result struct {
	RowsAffected int64
	LastInsertID int64
}

// Query runs a read statement with ? parameters and returns all rows.
func Query(sql string, args ...any) (Rows, error) {
	resp, err := roundTrip(wire.OpQuery, sql, args)
	if err != nil {
		return Rows{}, err
	}
	r := wire.NewReader(resp)
	rows := Rows{Columns: columns(resp, r)}
	n := r.Uvarint()
	if r.Err() != nil || n > uint64(r.Len()) {
		return Rows{}, errors.New("sdk: malformed query response")
	}
	rows.Values = make([][]any, n)
	flat := make([]any, int(n)*len(rows.Columns))
	for i := range rows.Values {
		row := flat[i*len(rows.Columns) : (i+1)*len(rows.Columns) : (i+1)*len(rows.Columns)]
		for j := range row {
			row[j] = r.Value()
		}
		rows.Values[i] = row
	}
	if r.Err() != nil {
		return Rows{}, errors.New("sdk: malformed query response")
	}
	return rows, nil
}

// columnSets caches the column names of the result sets seen: a tool runs
// the same few queries, whose names would otherwise be allocated per query.
// Each result gets its own copy of the slice (tool code may change it).
var columnSets = map[string][]string{}

const maxColumnSets = 256

// columns reads a result's column names.
func columns(resp []byte, r *wire.Reader) []string {
	start := len(resp) - r.Len()
	n := r.Uvarint()
	for i := uint64(0); i < n && r.Err() == nil; i++ {
		r.Bytes()
	}
	if r.Err() != nil {
		return nil
	}
	span := resp[start : len(resp)-r.Len()]
	if cols, ok := columnSets[string(span)]; ok {
		return append([]string(nil), cols...)
	}
	cols := make([]string, n)
	names := wire.NewReader(span)
	names.Uvarint()
	for i := range cols {
		cols[i] = names.String()
	}
	if len(columnSets) >= maxColumnSets {
		clear(columnSets)
	}
	columnSets[string(span)] = cols
	return append([]string(nil), cols...)
}

// QueryRow runs a query and returns its first row, or ErrNoRows.
func QueryRow(sql string, args ...any) (Row, error) {
	rows, err := Query(sql, args...)
	if err != nil {
		return Row{}, err
	}
	if rows.Len() == 0 {
		return Row{}, ErrNoRows
	}
	return rows.Row(0), nil
}

// Exec runs a write statement with ? parameters.
func Exec(sql string, args ...any) (Result, error) {
	resp, err := roundTrip(wire.OpExec, sql, args)
	if err != nil {
		return Result{}, err
	}
	r := wire.NewReader(resp)
	res := Result{RowsAffected: r.Varint(), LastInsertID: r.Varint()}
	if r.Err() != nil {
		return Result{}, errors.New("sdk: malformed exec response")
	}
	return res, nil
}

func roundTrip(op byte, sql string, args []any) ([]byte, error) {
	req := append(reqBuf[:0], op)
	req = wire.AppendString(req, sql)
	req = wire.AppendUvarint(req, uint64(len(args)))
	for i, a := range args {
		var err error
		if req, err = wire.AppendValue(req, a); err != nil {
			return nil, fmt.Errorf("sdk: SQL parameter %d: %T not supported", i+1, a)
		}
	}
	reqBuf = req
	resp, err := hostSQL(req)
	if err != nil {
		return nil, err
	}
	if len(resp) == 0 {
		return nil, errors.New("sdk: empty response from host")
	}
	if resp[0] == wire.StatusError {
		r := wire.NewReader(resp[1:])
		return nil, errors.New(r.String())
	}
	return resp[1:], nil
}

// reqBuf is reused across requests: a guest runs one call at a time.
var reqBuf []byte

// Now is the episode's clock: it starts at the environment's epoch and
// advances deterministically, so the same seed and calls give the same times.
func Now() time.Time { return time.Unix(0, hostClock()).UTC() }

// Rand returns 64 random bits from the episode's seeded generator.
func Rand() uint64 { return hostRandom() }

// RandIntn returns a random integer in [0, n). It panics if n <= 0.
func RandIntn(n int) int {
	if n <= 0 {
		panic("sdk: RandIntn with n <= 0")
	}
	return int(hostRandom() % uint64(n))
}

// RandFloat returns a random float in [0, 1).
func RandFloat() float64 { return float64(hostRandom()>>11) / (1 << 53) }

// Log writes a line to the episode's log (visible to the operator, not the agent).
func Log(format string, args ...any) { hostLog(fmt.Sprintf(format, args...)) }
