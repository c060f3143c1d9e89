package sdk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// Rows is a query's result set. It is read-only: the rows a tool returns
// go to the agent as the host rendered them (see result), and what its
// methods hand out are copies.
type Rows struct{ res *result }

// Row is one result row.
type Row struct {
	res *result
	i   int
}

// result is a query's response, kept as the host sent it (wire.OpQueryJSON):
// the rows already written as JSON, and their typed values, which are
// decoded only when tool code reads one. A tool that returns what it
// queried hands the JSON on as is, without boxing and re-encoding every
// value in the guest.
type result struct {
	block []byte   // the column block as sent (names decoded on first use)
	cols  []string // the names, shared with columnSets: never modified, copied out
	n     int      // rows
	json  []byte   // the rows as a JSON array; nil when the host could not write them
	offs  []byte   // n × 4-byte little-endian offset of each row's object in json
	vals  []byte   // n × len(cols) wire values
	cells []cell   // vals decoded, on first use
}

// cell is one decoded value without boxing: text and blobs alias the
// response, which nothing modifies.
type cell struct {
	tag byte
	n   int64 // the integer, the float's bits, or the text's offset in vals
	len int   // the text's length
}

var errMalformed = errors.New("sdk: malformed query response")

// inlineResponse is the largest response kept inside its result (a few
// rows of a few columns: a point read's).
const inlineResponse = 256

// scopedResult is a result with the memory of its response.
type scopedResult struct {
	result
	kept  bool                 // in callResults.kept (else this call's alone)
	size  int                  // the response's length, zeroed by reset
	big   []byte               // a response over inlineResponse, kept when small enough
	small [inlineResponse]byte // the response, when it fits
}

// response is the buffer for a response of n bytes.
func (r *scopedResult) response(n int) []byte {
	r.size = n
	if n <= inlineResponse {
		return r.small[:n]
	}
	if !r.kept {
		return make([]byte, n)
	}
	if cap(r.big) < n {
		callResults.keptBig -= cap(r.big)
		r.big = make([]byte, n)
		if callResults.keptBig+n > maxKeptBig {
			b := r.big
			r.big = nil // this call's alone: not kept
			return b
		}
		callResults.keptBig += n
	}
	return r.big[:n]
}

// resultScope holds the results of the call in progress. A result
// cannot outlive its call (tool code keeps nothing between calls: no
// package-level variables, no goroutines, and the dispatcher encodes what
// a tool returns before the call ends), so the next call takes the same
// memory back instead of allocating it: an allocation with pointers, its
// heap bits and its share of a GC cycle were a fifth of the guest's time
// in a point read. reset zeroes what the last call used, so nothing of
// one call (or one episode) is visible to the next.
type resultScope struct {
	kept    []*scopedResult // reused from call to call
	used    int             // kept[:used] hold this call's results
	keptBig int             // bytes of the big buffers kept, at most maxKeptBig
}

const (
	// maxScopedResults bounds the results kept between calls (~80 KiB
	// of small ones); a call that runs more queries allocates the rest.
	maxScopedResults = 256
	// maxKeptBig bounds the bytes of larger responses kept between calls.
	maxKeptBig = 1 << 20
)

var callResults resultScope

// take is a zeroed result for this call.
func (s *resultScope) take() *scopedResult {
	if s.used < len(s.kept) {
		r := s.kept[s.used]
		s.used++
		return r
	}
	r := &scopedResult{}
	if len(s.kept) < maxScopedResults {
		r.kept = true
		s.kept = append(s.kept, r)
		s.used++
	}
	return r
}

// reset zeroes the results the last call used, for the next call.
func (s *resultScope) reset() {
	for _, r := range s.kept[:s.used] {
		r.result = result{}
		if r.size <= inlineResponse {
			clear(r.small[:r.size])
		} else if r.size <= cap(r.big) {
			clear(r.big[:r.size])
		}
		r.size = 0
	}
	s.used = 0
}

// parse reads an OpQueryJSON response, status byte included; an error
// status is the host's message. The column names are not decoded here: a
// tool that returns the rows never needs them. Everything is read in this
// one function (the lengths by uvarint, inlined): in the guest a call
// costs more than reading a varint.
func (q *result) parse(resp []byte) error {
	if len(resp) == 0 || resp[0] == wire.StatusError {
		return status(resp)
	}
	b := resp[1:]
	var l, n uint64
	var w int
	if len(b) > 0 && b[0] < 0x80 {
		l, w = uint64(b[0]), 1
	} else {
		l, w = binary.Uvarint(b)
	}
	if w <= 0 || l > uint64(len(b)-w) {
		return errMalformed
	}
	block, b := b[w:w+int(l)], b[w+int(l):]
	if len(b) > 0 && b[0] < 0x80 {
		n, w = uint64(b[0]), 1
	} else {
		n, w = binary.Uvarint(b)
	}
	if w <= 0 {
		return errMalformed
	}
	b = b[w:]
	if len(b) > 0 && b[0] < 0x80 {
		l, w = uint64(b[0]), 1
	} else if len(b) > 1 && b[1] < 0x80 { // JSON of 128 B to 16 KiB
		l, w = uint64(b[0]&0x7f)|uint64(b[1])<<7, 2
	} else {
		l, w = binary.Uvarint(b)
	}
	if w <= 0 || l > uint64(len(b)-w) {
		return errMalformed
	}
	jsonText, b := b[w:w+int(l)], b[w+int(l):]
	if n > uint64(len(b))/4 {
		return errMalformed
	}
	q.block, q.n, q.offs, q.vals = block, int(n), b[:4*n], b[4*n:]
	if len(jsonText) > 0 {
		q.json = jsonText
	}
	return nil
}

// columns are the result's column names.
func (q *result) columns() []string {
	if q.cols == nil {
		q.cols = columns(q.block)
		if q.cols == nil {
			panic(errMalformed)
		}
	}
	return q.cols
}

// decode fills cells from vals.
func (q *result) decode() {
	if q.cells != nil || q.n == 0 {
		return
	}
	cells := make([]cell, q.n*len(q.columns()))
	b, at := q.vals, 0
	for k := range cells {
		if at >= len(b) {
			panic(errMalformed)
		}
		c := &cells[k]
		c.tag = b[at]
		at++
		switch c.tag {
		case wire.TagNull:
		case wire.TagInt:
			v, w := binary.Varint(b[at:])
			if w <= 0 {
				panic(errMalformed)
			}
			c.n, at = v, at+w
		case wire.TagFloat:
			if len(b)-at < 8 {
				panic(errMalformed)
			}
			c.n, at = int64(binary.LittleEndian.Uint64(b[at:])), at+8
		case wire.TagText, wire.TagBlob:
			l, w := binary.Uvarint(b[at:])
			if w <= 0 || l > uint64(len(b)-at-w) {
				panic(errMalformed)
			}
			c.n, c.len, at = int64(at+w), int(l), at+w+int(l)
		default:
			panic(errMalformed)
		}
	}
	q.cells = cells
}

// text is a text or blob cell's bytes as a string (aliasing the response).
func (q *result) text(c *cell) string {
	if c.len == 0 {
		return ""
	}
	return unsafe.String(&q.vals[c.n], c.len)
}

// value boxes a cell as Row.Value returns it.
func (q *result) value(c *cell) any {
	switch c.tag {
	case wire.TagInt:
		return c.n
	case wire.TagFloat:
		return math.Float64frombits(uint64(c.n))
	case wire.TagText:
		return q.text(c)
	case wire.TagBlob:
		return []byte(q.text(c))
	}
	return nil
}

// Len is the number of rows.
func (r Rows) Len() int {
	if r.res == nil {
		return 0
	}
	return r.res.n
}

// Row returns row i. It panics if i is out of range.
func (r Rows) Row(i int) Row {
	if i < 0 || i >= r.Len() {
		panicRowRange(i, r.Len())
	}
	return Row{r.res, i}
}

// panicRowRange is Row's panic, out of line so that Row inlines.
//
//go:noinline
func panicRowRange(i, n int) { panic(fmt.Sprintf("sdk: row %d of %d", i, n)) }

// All returns every row.
func (r Rows) All() []Row {
	out := make([]Row, r.Len())
	for i := range out {
		out[i] = Row{r.res, i}
	}
	return out
}

// Columns are the column names in query order (a copy).
func (r Rows) Columns() []string {
	if r.res == nil {
		return nil
	}
	return append([]string(nil), r.res.columns()...)
}

// Values are the rows' values, per row, per column: nil, int64, float64,
// string or []byte (a copy).
func (r Rows) Values() [][]any {
	out := make([][]any, r.Len())
	for i := range out {
		out[i] = Row{r.res, i}.values()
	}
	return out
}

// MarshalJSONTo encodes the rows as an array of objects.
func (r Rows) MarshalJSONTo(e *Encoder) {
	if r.res != nil && r.res.json != nil {
		e.Raw(r.res.json)
		return
	}
	e.BeginArray()
	for i := range r.Len() {
		Row{r.res, i}.MarshalJSONTo(e)
	}
	e.EndArray()
}

// cells are the row's decoded values.
func (r Row) cells() []cell {
	if r.res == nil {
		return nil
	}
	r.res.decode()
	k := len(r.res.columns())
	return r.res.cells[r.i*k : (r.i+1)*k]
}

func (r Row) values() []any {
	cells := r.cells()
	out := make([]any, len(cells))
	for j := range cells {
		out[j] = r.res.value(&cells[j])
	}
	return out
}

// column is the index of a column, or -1.
func (r Row) column(col string) int {
	if r.res == nil {
		return -1
	}
	for j, c := range r.res.columns() {
		if c == col {
			return j
		}
	}
	return -1
}

// Columns are the column names in query order (a copy).
func (r Row) Columns() []string {
	if r.res == nil {
		return nil
	}
	return append([]string(nil), r.res.columns()...)
}

// Value is the raw value of a column (nil if absent or NULL): nil, int64,
// float64, string or []byte.
func (r Row) Value(col string) any {
	j := r.column(col)
	if j < 0 {
		return nil
	}
	return r.res.value(&r.cells()[j])
}

// Has reports whether the row has the column.
func (r Row) Has(col string) bool { return r.column(col) >= 0 }

// IsNull reports whether a column is NULL or absent.
func (r Row) IsNull(col string) bool {
	j := r.column(col)
	return j < 0 || r.cells()[j].tag == wire.TagNull
}

// must is a column the row has. A column the row lacks is a mistake in
// the tool (a misspelled name), not data: it panics, which the agent sees
// as a tool error and `wasmenv test` reports.
func (r Row) must(col string) *cell {
	j := r.column(col)
	if j < 0 {
		var cols []string
		if r.res != nil {
			cols = r.res.columns()
		}
		panic(fmt.Sprintf("sdk: row has no column %q (columns: %s)", col, strings.Join(cols, ", ")))
	}
	return &r.cells()[j]
}

// String returns a column as text ("" for NULL). It panics if the row
// has no such column.
func (r Row) String(col string) string { return r.str(r.must(col)) }

// str is a cell as String returns it.
func (r Row) str(c *cell) string {
	switch c.tag {
	case wire.TagText, wire.TagBlob:
		return r.res.text(c)
	case wire.TagInt:
		return strconv.FormatInt(c.n, 10)
	case wire.TagFloat:
		return fmt.Sprint(math.Float64frombits(uint64(c.n)))
	}
	return ""
}

// Int returns a column as an integer (0 for NULL). It panics if the row
// has no such column.
func (r Row) Int(col string) int64 {
	c := r.must(col)
	switch c.tag {
	case wire.TagInt:
		return c.n
	case wire.TagFloat:
		return int64(math.Float64frombits(uint64(c.n)))
	}
	return 0
}

// Float returns a column as a float (0 for NULL). It panics if the row
// has no such column.
func (r Row) Float(col string) float64 {
	c := r.must(col)
	switch c.tag {
	case wire.TagInt:
		return float64(c.n)
	case wire.TagFloat:
		return math.Float64frombits(uint64(c.n))
	}
	return 0
}

// Bool returns a column as a boolean (non-zero integer). It panics if
// the row has no such column.
func (r Row) Bool(col string) bool { return r.Int(col) != 0 }

// Map returns the row as a map from column to value.
func (r Row) Map() map[string]any {
	if r.res == nil {
		return map[string]any{}
	}
	cells := r.cells()
	m := make(map[string]any, len(cells))
	for j, c := range r.res.columns() {
		m[c] = r.res.value(&cells[j])
	}
	return m
}

// MarshalJSONTo encodes the row as an object in column order.
func (r Row) MarshalJSONTo(e *Encoder) {
	if q := r.res; q != nil && q.json != nil {
		start := binary.LittleEndian.Uint32(q.offs[4*r.i:])
		end := uint32(len(q.json) - 1) // the array's ']'
		if r.i+1 < q.n {
			end = binary.LittleEndian.Uint32(q.offs[4*r.i+4:]) - 1 // the ','
		}
		if start < end && end <= uint32(len(q.json)) {
			e.Raw(q.json[start:end])
			return
		}
	}
	e.BeginObject()
	if r.res != nil {
		cells := r.cells()
		for j, c := range r.res.columns() {
			e.Key(c)
			e.Any(r.res.value(&cells[j]))
		}
	}
	e.EndObject()
}

// columnSets caches the column names of the result sets seen: a tool runs
// the same few queries, whose names would otherwise be allocated per query.
// Results share the slices and never change them; tool code gets copies.
var columnSets = map[string][]string{}

const maxColumnSets = 256

// columns decodes a column block: the names, looked up by the block's
// bytes and decoded only for a shape not seen yet (nil if malformed).
func columns(span []byte) []string {
	if cols, ok := columnSets[string(span)]; ok {
		return cols
	}
	names := wire.NewReader(span)
	n := names.Uvarint()
	if n > uint64(len(span)) {
		return nil
	}
	cols := make([]string, n)
	for i := range cols {
		cols[i] = names.String()
	}
	if names.Err() != nil || names.Len() != 0 {
		return nil
	}
	if len(columnSets) >= maxColumnSets {
		clear(columnSets)
	}
	columnSets[string(span)] = cols
	return cols
}
