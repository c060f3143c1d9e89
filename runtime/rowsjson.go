package runtime

import (
	"encoding/binary"
	"math"
	"strconv"
	"sync"
	"unsafe"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// appendRowsJSON steps a query and appends its rows in OpQueryJSON's form
// (sdk/wire): the rows as a JSON array, each row's offset in it, and the
// typed values. A tool that returns the rows then hands the JSON back as
// is; the guest decodes the values only if tool code reads them. The JSON
// is written with the guest encoder's own functions (wire.AppendJSON*),
// so it is the text the guest would have produced. Without withJSON
// (OpQueryValues) the JSON is left empty, as for a value JSON cannot hold.
func appendRowsJSON(out []byte, gs *guestStmt, withJSON bool) []byte {
	if !withJSON {
		return appendRowValues(out, gs)
	}
	stmt := gs.stmt
	shape := gs.rowShape()
	out = append(out, shape.columns...)
	keys := shape.keys
	countAt := len(out)
	out = append(out, make([]byte, 2*wire.FixedUvarintLen)...) // row count, JSON length
	jsonAt := len(out)
	sc := rowScratch.Get().(*rowBuffers)
	defer rowScratch.Put(sc)
	offs, vals := sc.offs[:0], sc.vals[:0]
	finite := true
	out = append(out, '[')
	rows := 0
	for stmt.Step() {
		if rows > 0 {
			out = append(out, ',')
		}
		rows++
		offs = binary.LittleEndian.AppendUint32(offs, uint32(len(out)-jsonAt))
		out = append(out, '{')
		for i, key := range keys {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, key...)
			switch stmt.ColumnType(i) {
			case sqlite3.NULL:
				out = append(out, "null"...)
				vals = append(vals, wire.TagNull)
			case sqlite3.INTEGER:
				v := stmt.ColumnInt64(i)
				out = strconv.AppendInt(out, v, 10)
				vals = wire.AppendInt(vals, v)
			case sqlite3.FLOAT:
				f := stmt.ColumnFloat(i)
				if math.IsNaN(f) || math.IsInf(f, 0) {
					finite = false // the guest's encoder reports it
					out = append(out, "null"...)
				} else {
					out = wire.AppendJSONFloat(out, f)
				}
				vals = wire.AppendFloat(vals, f)
			case sqlite3.TEXT:
				b := stmt.ColumnRawText(i)
				out = wire.AppendJSONString(out, unsafe.String(unsafe.SliceData(b), len(b)))
				vals = wire.AppendTextBytes(vals, b)
			default:
				b := stmt.ColumnRawBlob(i)
				out = wire.AppendJSONString(out, unsafe.String(unsafe.SliceData(b), len(b)))
				vals = wire.AppendBlob(vals, b)
			}
		}
		out = append(out, '}')
		if len(out)+len(offs)+len(vals) > maxResponse {
			return errorResponse(out[:0], errTooLarge)
		}
	}
	out = append(out, ']')
	if err := stmt.Err(); err != nil {
		return errorResponse(out[:0], err.Error())
	}
	if !finite {
		out = out[:jsonAt] // no JSON: the guest encodes the values itself
	}
	wire.PutFixedUvarint(out[countAt:], uint64(rows))
	wire.PutFixedUvarint(out[countAt+wire.FixedUvarintLen:], uint64(len(out)-jsonAt))
	out = append(out, offs...)
	out = append(out, vals...)
	if cap(offs)+cap(vals) <= maxKeptScratch {
		sc.offs, sc.vals = offs, vals
	}
	return out
}

// appendRowValues is appendRowsJSON without the JSON (OpQueryValues).
func appendRowValues(out []byte, gs *guestStmt) []byte {
	stmt := gs.stmt
	out = append(out, gs.rowShape().columns...)
	countAt := len(out)
	out = append(out, make([]byte, 2*wire.FixedUvarintLen)...) // row count, JSON length (0)
	sc := rowScratch.Get().(*rowBuffers)
	defer rowScratch.Put(sc)
	vals := sc.vals[:0]
	rows := 0
	for stmt.Step() {
		rows++
		for i := range stmt.ColumnCount() {
			vals = appendCell(vals, stmt, i)
		}
		if len(out)+4*rows+len(vals) > maxResponse {
			return errorResponse(out[:0], errTooLarge)
		}
	}
	if err := stmt.Err(); err != nil {
		return errorResponse(out[:0], err.Error())
	}
	wire.PutFixedUvarint(out[countAt:], uint64(rows))
	wire.PutFixedUvarint(out[countAt+wire.FixedUvarintLen:], 0)
	out = append(out, make([]byte, 4*rows)...) // row offsets into the (empty) JSON: unused
	out = append(out, vals...)
	if cap(vals) <= maxKeptScratch {
		sc.vals = vals
	}
	return out
}

// appendCell appends column i of the current row as a typed wire value
// (OpQuery's and OpQueryValues' cells).
func appendCell(b []byte, stmt *sqlite3.Stmt, i int) []byte {
	switch stmt.ColumnType(i) {
	case sqlite3.NULL:
		return append(b, wire.TagNull)
	case sqlite3.INTEGER:
		return wire.AppendInt(b, stmt.ColumnInt64(i))
	case sqlite3.FLOAT:
		return wire.AppendFloat(b, stmt.ColumnFloat(i))
	case sqlite3.TEXT:
		return wire.AppendTextBytes(b, stmt.ColumnRawText(i))
	default:
		return wire.AppendBlob(b, stmt.ColumnRawBlob(i))
	}
}

// rowBuffers are appendRowsJSON's scratch: the row offsets and the values
// wait there while the JSON is written into the response.
type rowBuffers struct{ offs, vals []byte }

var rowScratch = sync.Pool{New: func() any { return new(rowBuffers) }}

// maxKeptScratch bounds the scratch a pooled rowBuffers keeps.
const maxKeptScratch = 1 << 20

// rowShape is what OpQueryJSON writes of a statement's columns: the
// column block the guest caches its names by, and the JSON object keys.
type rowShape struct {
	columns []byte   // uvarint length + (uvarint ncols, ncols × (uvarint len + name))
	keys    [][]byte // `"name":` per column
}

func (gs *guestStmt) rowShape() *rowShape {
	if gs.shape == nil {
		n := gs.stmt.ColumnCount()
		names := wire.AppendUvarint(nil, uint64(n))
		keys := make([][]byte, n)
		for i := range n {
			name := gs.stmt.ColumnName(i)
			names = wire.AppendString(names, name)
			keys[i] = append(wire.AppendJSONString(nil, name), ':')
		}
		gs.shape = &rowShape{columns: wire.AppendString(nil, string(names)), keys: keys}
	}
	return gs.shape
}
