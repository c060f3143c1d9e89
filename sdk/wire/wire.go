// Package wire is the byte format of the host ABI between a tool module (guest)
// and the wasmenv runtime (host): SQL requests with typed parameters, and
// result sets, encoded compactly so that a point query crosses the boundary
// without JSON or reflection. Both sides import this package; it uses only the
// standard library so that it compiles for wasip1.
//
// Values are a tag byte followed by a payload:
//
//	0 null
//	1 int64   zig-zag varint
//	2 float64 8 bytes little-endian IEEE 754
//	3 text    uvarint length, UTF-8 bytes
//	4 blob    uvarint length, bytes
//
// A request is: op byte, uvarint len + SQL text, uvarint n, n values.
// A response is: status byte (0 ok, 1 error); on error, uvarint len + message;
// for a query, uvarint ncols, ncols × (uvarint len + name), uvarint nrows,
// nrows × ncols values; for an exec, varint rows affected, varint last insert id.
//
// OpQueryJSON answers a query with its rows also rendered as JSON by the
// host, so that a tool returning them does not decode and re-encode each
// value: uvarint len + a column block (uvarint ncols, ncols × (uvarint
// len + name)), which the guest reads once per query shape, uvarint nrows,
// uvarint len + the rows as a JSON array of objects in column order (written
// as the guest's encoder writes them; empty when a value cannot be JSON,
// such as an infinite float), nrows × 4-byte little-endian offset of each
// row's object in that array, then nrows × ncols values as for OpQuery.
//
// OpQueryValues answers as OpQueryJSON does with the JSON left empty: for a
// query whose rows tool code reads rather than returns (a stored document's
// text, which the JSON would carry a second time, escaped).
package wire

import (
	"encoding/binary"
	"errors"
	"math"
)

// Value tags.
const (
	TagNull  = 0
	TagInt   = 1
	TagFloat = 2
	TagText  = 3
	TagBlob  = 4
)

// Request operations.
const (
	OpQuery       = 0
	OpExec        = 1
	OpQueryJSON   = 2 // a query whose response carries the rows as JSON too
	OpQueryValues = 3 // OpQueryJSON's response without the JSON (ABI 3)
)

// Response status bytes.
const (
	StatusOK    = 0
	StatusError = 1
)

// The module's exports (the tool module is a wasip1 reactor built from
// the generated main and the sdk) and the host module it imports.
const (
	ExportBuffer = "wasmenv_buffer" // (n i32) -> ptr i32: room for n bytes of arguments
	ExportCall   = "wasmenv_call"   // (tool, n i32) -> i64: output addr<<32 | len

	HostModule = "wasmenv" // the host functions below, which the sdk imports

	ImportSQL    = "sql"    // (req ptr, n i32) -> i32: run a request, return the response size (-1: unreadable)
	ImportTake   = "take"   // (dst ptr i32): copy the response there
	ImportClock  = "clock"  // () -> i64: the episode clock, unix ns
	ImportRandom = "random" // () -> i64: 64 bits from the episode's seeded generator
	ImportLog    = "log"    // (msg ptr, n i32): a line for the operator's log
)

// Call statuses: the first byte of a tool call's output (wasmenv_call).
// The rest is the result text, or the error message.
const (
	CallOK          = 0 // the tool returned a result
	CallError       = 1 // the tool returned an error
	CallInvalidArgs = 2 // the arguments did not decode into the tool's argument type
	CallPanic       = 3 // the tool panicked (recovered in the guest)
)

// ErrShort is returned when a buffer ends before the value it promises.
var ErrShort = errors.New("wire: truncated message")

// AppendValue appends v, which must be nil, an integer kind, a float kind,
// bool, string or []byte. Other types are an error the caller reports.
func AppendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, TagNull), nil
	case int:
		return AppendInt(b, int64(x)), nil
	case int64:
		return AppendInt(b, x), nil
	case int32:
		return AppendInt(b, int64(x)), nil
	case int16:
		return AppendInt(b, int64(x)), nil
	case int8:
		return AppendInt(b, int64(x)), nil
	case uint8:
		return AppendInt(b, int64(x)), nil
	case uint16:
		return AppendInt(b, int64(x)), nil
	case uint32:
		return AppendInt(b, int64(x)), nil
	case uint:
		return AppendInt(b, int64(x)), nil
	case uint64:
		return AppendInt(b, int64(x)), nil
	case bool:
		if x {
			return AppendInt(b, 1), nil
		}
		return AppendInt(b, 0), nil
	case float64:
		return AppendFloat(b, x), nil
	case float32:
		return AppendFloat(b, float64(x)), nil
	case string:
		return AppendText(b, x), nil
	case []byte:
		return AppendBlob(b, x), nil
	}
	return b, errors.New("unsupported SQL parameter type")
}

// AppendInt appends an int64 value.
func AppendInt(b []byte, v int64) []byte {
	return binary.AppendVarint(append(b, TagInt), v)
}

// AppendFloat appends a float64 value.
func AppendFloat(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(append(b, TagFloat), math.Float64bits(v))
}

// AppendText appends a text value.
func AppendText(b []byte, s string) []byte {
	b = append(b, TagText)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendString appends a length-prefixed string with no tag (SQL text,
// column names, error messages).
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendTextBytes appends a text value given as bytes.
func AppendTextBytes(b []byte, s []byte) []byte {
	b = append(b, TagText)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendBlob appends a blob value.
func AppendBlob(b []byte, x []byte) []byte {
	b = append(b, TagBlob)
	b = binary.AppendUvarint(b, uint64(len(x)))
	return append(b, x...)
}

// AppendUvarint appends an untagged unsigned varint (counts, lengths).
func AppendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }

// AppendVarint appends an untagged signed varint (an exec's counts).
func AppendVarint(b []byte, v int64) []byte { return binary.AppendVarint(b, v) }

// FixedUvarintLen is the width of a uvarint slot written by PutFixedUvarint.
const FixedUvarintLen = 5

// PutFixedUvarint writes v (< 2^35) into a FixedUvarintLen-byte slot as a
// uvarint with padded continuation bits, which Uvarint reads like any
// other: a count that is known only after what follows it.
func PutFixedUvarint(b []byte, v uint64) {
	for i := 0; i < FixedUvarintLen-1; i++ {
		b[i] = byte(v&0x7f) | 0x80
		v >>= 7
	}
	b[FixedUvarintLen-1] = byte(v)
}

// Reader decodes a message. The first error sticks; check Err at the end.
type Reader struct {
	buf []byte
	err error
}

// NewReader reads b.
func NewReader(b []byte) *Reader { return &Reader{buf: b} }

// Err is the first decoding error, if any.
func (r *Reader) Err() error { return r.err }

// Len is the number of unread bytes.
func (r *Reader) Len() int { return len(r.buf) }

func (r *Reader) fail() {
	if r.err == nil {
		r.err = ErrShort
	}
	r.buf = nil
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.buf) < 1 {
		r.fail()
		return 0
	}
	c := r.buf[0]
	r.buf = r.buf[1:]
	return c
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.buf)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

// Varint reads a signed varint.
func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.buf)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

// Bytes reads a length-prefixed byte slice that aliases the buffer.
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if uint64(len(r.buf)) < n {
		r.fail()
		return nil
	}
	b := r.buf[:n:n]
	r.buf = r.buf[n:]
	return b
}

// String reads a length-prefixed string (copied).
func (r *Reader) String() string { return string(r.Bytes()) }

// Float reads 8 bytes of IEEE 754.
func (r *Reader) Float() float64 {
	if len(r.buf) < 8 {
		r.fail()
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.buf))
	r.buf = r.buf[8:]
	return v
}

// Value reads a tagged value as nil, int64, float64, string or []byte.
func (r *Reader) Value() any {
	switch r.Byte() {
	case TagNull:
		return nil
	case TagInt:
		return r.Varint()
	case TagFloat:
		return r.Float()
	case TagText:
		return r.String()
	case TagBlob:
		return append([]byte(nil), r.Bytes()...)
	}
	if r.err == nil {
		r.err = errors.New("wire: unknown value tag")
	}
	r.buf = nil
	return nil
}
