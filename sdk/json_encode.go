package sdk

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/wasmenv/wasmenv/sdk/wire"
)

// Encoder appends JSON to a byte slice without reflection.
// Commas between values are inserted automatically.
type Encoder struct {
	buf   []byte
	comma []bool // per open container: a value was already written
	key   bool   // a key was just written, the next value follows it
	err   error
}

// Bytes returns the encoded JSON.
func (e *Encoder) Bytes() []byte { return e.buf }

// Reset empties the encoder for reuse, keeping its buffer.
func (e *Encoder) Reset() {
	e.buf, e.comma, e.key, e.err = e.buf[:0], e.comma[:0], false, nil
}

// Err reports a value that could not be encoded (for example NaN).
func (e *Encoder) Err() error { return e.err }

func (e *Encoder) sep() {
	if e.key {
		e.key = false
		return
	}
	if n := len(e.comma); n > 0 {
		if e.comma[n-1] {
			e.buf = append(e.buf, ',')
		}
		e.comma[n-1] = true
	}
}

// BeginObject writes '{'.
func (e *Encoder) BeginObject() {
	e.sep()
	e.buf = append(e.buf, '{')
	e.comma = append(e.comma, false)
}

// EndObject writes '}'.
func (e *Encoder) EndObject() { e.comma = e.comma[:len(e.comma)-1]; e.buf = append(e.buf, '}') }

// BeginArray writes '['.
func (e *Encoder) BeginArray() { e.sep(); e.buf = append(e.buf, '['); e.comma = append(e.comma, false) }

// EndArray writes ']'.
func (e *Encoder) EndArray() { e.comma = e.comma[:len(e.comma)-1]; e.buf = append(e.buf, ']') }

// Key writes an object key; the next value belongs to it.
func (e *Encoder) Key(k string) {
	e.sep()
	e.buf = appendQuoted(e.buf, k)
	e.buf = append(e.buf, ':')
	e.key = true
}

// QuotedKey writes an object key given already quoted with its colon
// (`"name":`), as generated encoders do; the next value belongs to it.
func (e *Encoder) QuotedKey(k string) {
	e.sep()
	e.buf = append(e.buf, k...)
	e.key = true
}

// String writes a JSON string.
func (e *Encoder) String(s string) { e.sep(); e.buf = appendQuoted(e.buf, s) }

// Int writes an integer.
func (e *Encoder) Int(v int64) { e.sep(); e.buf = strconv.AppendInt(e.buf, v, 10) }

// Uint writes an unsigned integer.
func (e *Encoder) Uint(v uint64) { e.sep(); e.buf = strconv.AppendUint(e.buf, v, 10) }

// Bool writes true or false.
func (e *Encoder) Bool(v bool) { e.sep(); e.buf = strconv.AppendBool(e.buf, v) }

// Null writes null.
func (e *Encoder) Null() { e.sep(); e.buf = append(e.buf, "null"...) }

// Raw writes already-encoded JSON.
func (e *Encoder) Raw(b []byte) { e.sep(); e.buf = append(e.buf, b...) }

// Float writes a float the way encoding/json does. NaN and infinities are
// not JSON: they are written as null and recorded in Err.
func (e *Encoder) Float(f float64) {
	e.sep()
	if math.IsNaN(f) || math.IsInf(f, 0) {
		if e.err == nil {
			e.err = errNonFinite
		}
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = appendFloat(e.buf, f)
}

// Any writes a dynamic value: nil, bool, the integer and float kinds, string,
// []byte (as a string), []any, []string, []int, []int64, []float64,
// map[string]any and map[string]string (keys sorted), Row, Rows, Marshaler.
// Anything else is recorded in Err and written as null.
func (e *Encoder) Any(v any) {
	switch x := v.(type) {
	case nil:
		e.Null()
	case bool:
		e.Bool(x)
	case int:
		e.Int(int64(x))
	case int8:
		e.Int(int64(x))
	case int16:
		e.Int(int64(x))
	case int32:
		e.Int(int64(x))
	case int64:
		e.Int(x)
	case uint:
		e.Uint(uint64(x))
	case uint8:
		e.Uint(uint64(x))
	case uint16:
		e.Uint(uint64(x))
	case uint32:
		e.Uint(uint64(x))
	case uint64:
		e.Uint(x)
	case float32:
		e.Float(float64(x))
	case float64:
		e.Float(x)
	case string:
		e.String(x)
	case []byte:
		e.String(string(x))
	case RawJSON:
		e.Raw(x)
	case Number:
		e.Raw([]byte(x))
	case Marshaler:
		x.MarshalJSONTo(e)
	case []any:
		encodeSlice(e, x, e.Any)
	case []string:
		encodeSlice(e, x, e.String)
	case []int:
		encodeSlice(e, x, func(v int) { e.Int(int64(v)) })
	case []int64:
		encodeSlice(e, x, e.Int)
	case []float64:
		encodeSlice(e, x, e.Float)
	case map[string]any:
		encodeMap(e, x, e.Any)
	case map[string]string:
		encodeMap(e, x, e.String)
	default:
		if e.err == nil {
			e.err = errUnsupported
		}
		e.Null()
	}
}

func encodeSlice[T any](e *Encoder, xs []T, enc func(T)) {
	e.BeginArray()
	for _, x := range xs {
		enc(x)
	}
	e.EndArray()
}

// encodeMap writes an object with sorted keys, so output is deterministic.
func encodeMap[T any](e *Encoder, m map[string]T, enc func(T)) {
	e.BeginObject()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		e.Key(k)
		enc(m[k])
	}
	e.EndObject()
}

// Marshaler is implemented by values that encode themselves.
type Marshaler interface {
	MarshalJSONTo(e *Encoder)
}

// RawJSON is already-encoded JSON, written as is by Encoder.Any.
type RawJSON []byte

// Number is a JSON number argument as the caller wrote it ("5", "5.0",
// "1e3"), for tools that must tell an integer from a float the way a
// dynamically typed tool (Python's json module) would. Its schema type is
// "number"; Encoder.Any writes it as is.
type Number string

// JSON encodes v (see Encoder.Any for the supported types).
func JSON(v any) (string, error) {
	var e Encoder
	e.Any(v)
	return string(e.buf), e.err
}

// appendQuoted and appendFloat are the wire package's, which the host
// uses to render rows: the same bytes on both sides.
func appendQuoted(b []byte, s string) []byte { return wire.AppendJSONString(b, s) }
func appendFloat(b []byte, f float64) []byte { return wire.AppendJSONFloat(b, f) }

// RawString writes s to the output as is: a tool's string result is the
// agent's text, not a JSON string.
func (e *Encoder) RawString(s string) { e.sep(); e.buf = append(e.buf, s...) }
