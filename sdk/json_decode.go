package sdk

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

var (
	errNonFinite   = errors.New("sdk: NaN or infinity is not JSON")
	errUnsupported = errors.New("sdk: value type not supported by the JSON encoder")
)

// maxDepth bounds nesting in Decoder.Any so hostile input cannot exhaust the stack.
const maxDepth = 512

// Decoder reads JSON from a byte slice without reflection. Generated argument
// decoders call it; tool code may use it, or ParseJSON, for JSON columns.
type Decoder struct {
	b       []byte
	i       int
	depth   int
	scratch []byte // strings with escapes are decoded here
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{b: b} }

// SyntaxError is a malformed document, with the byte offset.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("json: %s at offset %d", e.Msg, e.Offset) }

func (d *Decoder) errorf(format string, args ...any) error {
	return &SyntaxError{Offset: d.i, Msg: fmt.Sprintf(format, args...)}
}

func (d *Decoder) ws() {
	// The loops of the decoder read d.b and d.i into locals: through the
	// pointer each step would load and store them again (the guest's
	// compiled code cannot keep them in registers), which made key and
	// number scanning cost several times what they do now.
	b, i := d.b, d.i
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			d.i = i
			return
		}
	}
	d.i = i
}

func (d *Decoder) peek() byte {
	d.ws()
	if d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

// Kind returns the first byte of the next value: '{', '[', '"', 't', 'f',
// 'n', a digit or '-', or 0 at the end of input.
func (d *Decoder) Kind() byte { return d.peek() }

// End reports an error unless only whitespace remains.
func (d *Decoder) End() error {
	if d.i == len(d.b) { // inline: the arguments end at their '}'
		return nil
	}
	return d.end()
}

func (d *Decoder) end() error {
	if d.ws(); d.i < len(d.b) {
		return d.errorf("unexpected data after value")
	}
	return nil
}

// Null consumes a null and reports whether there was one.
func (d *Decoder) Null() bool {
	if d.peek() == 'n' && d.lit("null") {
		return true
	}
	return false
}

func (d *Decoder) lit(s string) bool {
	if len(d.b)-d.i >= len(s) && string(d.b[d.i:d.i+len(s)]) == s {
		d.i += len(s)
		return true
	}
	return false
}

// Object calls field for each key; field must consume the key's value.
func (d *Decoder) Object(field func(key string) error) error {
	if d.peek() != '{' {
		return d.errorf("expected object")
	}
	if d.depth++; d.depth > maxDepth {
		return d.errorf("nesting too deep")
	}
	d.i++
	if d.peek() == '}' {
		d.i++
		d.depth--
		return nil
	}
	for {
		key, err := d.String()
		if err != nil {
			return err
		}
		if d.peek() != ':' {
			return d.errorf("expected ':'")
		}
		d.i++
		if err := field(key); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case '}':
			d.i++
			d.depth--
			return nil
		default:
			return d.errorf("expected ',' or '}'")
		}
	}
}

// ObjectStart consumes the '{' of an object whose keys ObjectKey reads: the
// loop form of Object, which generated decoders use (no closure per call).
func (d *Decoder) ObjectStart() error {
	if d.peek() != '{' {
		return d.errorf("expected object")
	}
	if d.depth++; d.depth > maxDepth {
		return d.errorf("nesting too deep")
	}
	d.i++
	return nil
}

// ObjectKey reads the next key of an object begun with ObjectStart, and
// the ':' after it; the caller then consumes the key's value. first says
// no key was read yet. After the closing '}' it returns ok = false. The
// key aliases the input or the decoder's scratch: it is valid until the
// next ObjectKey.
func (d *Decoder) ObjectKey(first bool) (key []byte, ok bool, err error) {
	switch c := d.peek(); {
	case c == '}':
		d.i++
		d.depth--
		return nil, false, nil
	case first:
	case c == ',':
		d.i++
	default:
		return nil, false, d.errorf("expected ',' or '}'")
	}
	// The common key, without escapes and followed by its ':', is read
	// here: a call costs the guest more than the scan (see ws).
	if b, i := d.b, d.i; i < len(b) && b[i] == '"' {
		for j := i + 1; j < len(b); j++ {
			if c := b[j]; c == '"' {
				if j+1 < len(b) && b[j+1] == ':' {
					d.i = j + 2
					return b[i+1 : j : j], true, nil
				}
				break
			} else if c == '\\' || c < 0x20 {
				break
			}
		}
	}
	if key, err = d.stringBytes(); err != nil {
		return nil, false, err
	}
	if d.peek() != ':' {
		return nil, false, d.errorf("expected ':'")
	}
	d.i++
	return key, true, nil
}

// ArrayStart consumes the '[' of an array whose elements ArrayNext steps
// through: the loop form of Array.
func (d *Decoder) ArrayStart() error {
	if d.peek() != '[' {
		return d.errorf("expected array")
	}
	if d.depth++; d.depth > maxDepth {
		return d.errorf("nesting too deep")
	}
	d.i++
	return nil
}

// ArrayNext reports whether another element follows (the caller then
// consumes it); after the closing ']' it returns false. first says no
// element was read yet.
func (d *Decoder) ArrayNext(first bool) (bool, error) {
	switch c := d.peek(); {
	case c == ']':
		d.i++
		d.depth--
		return false, nil
	case first:
		return true, nil
	case c == ',':
		d.i++
		return true, nil
	}
	return false, d.errorf("expected ',' or ']'")
}

// Array calls elem for each element; elem must consume it.
func (d *Decoder) Array(elem func() error) error {
	if d.peek() != '[' {
		return d.errorf("expected array")
	}
	if d.depth++; d.depth > maxDepth {
		return d.errorf("nesting too deep")
	}
	d.i++
	if d.peek() == ']' {
		d.i++
		d.depth--
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch d.peek() {
		case ',':
			d.i++
		case ']':
			d.i++
			d.depth--
			return nil
		default:
			return d.errorf("expected ',' or ']'")
		}
	}
}

// Bool reads true or false.
func (d *Decoder) Bool() (bool, error) {
	d.ws()
	if d.lit("true") {
		return true, nil
	}
	if d.lit("false") {
		return false, nil
	}
	return false, d.errorf("expected boolean")
}

// number scans the JSON number grammar strictly:
// -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
func (d *Decoder) number() (string, error) {
	d.ws()
	start := d.i
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	lead := d.i
	if n := digits(); n == 0 || (n > 1 && d.b[lead] == '0') {
		d.i = start
		return "", d.errorf("expected number")
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return "", d.errorf("bad number")
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return "", d.errorf("bad number")
		}
	}
	return string(d.b[start:d.i]), nil
}

// Int reads an integer. A number with a fraction or exponent is accepted
// when its value is integral (JSON Schema's "integer" allows 1.0).
func (d *Decoder) Int() (int64, error) {
	// An integer of at most 18 digits, without fraction or exponent, is
	// read here with no allocation and no call; anything else by number.
	d.ws()
	b, i, neg := d.b, d.i, false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	start := i
	var v int64
	for ; i < len(b) && i-start < 18; i++ {
		c := b[i]
		if c < '0' || c > '9' {
			break
		}
		v = v*10 + int64(c-'0')
	}
	if n := i - start; n > 0 && (n == 1 || b[start] != '0') {
		if i == len(b) {
			return d.small(i, v, neg), nil
		}
		switch c := b[i]; {
		case c >= '0' && c <= '9', c == '.', c == 'e', c == 'E':
		default:
			return d.small(i, v, neg), nil
		}
	}
	s, err := d.number()
	if err != nil {
		return 0, err
	}
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, d.errorf("expected integer, got %s", s)
	}
	return int64(f), nil
}

// small ends a small integer read by Int at i.
func (d *Decoder) small(i int, v int64, neg bool) int64 {
	d.i = i
	if neg {
		return -v
	}
	return v
}

// Number reads a number and returns its text as written.
func (d *Decoder) Number() (Number, error) {
	s, err := d.number()
	return Number(s), err
}

// Float reads a number.
func (d *Decoder) Float() (float64, error) {
	s, err := d.number()
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, d.errorf("bad number %s", s)
	}
	return f, nil
}

// String reads a string, decoding escapes.
func (d *Decoder) String() (string, error) {
	b, err := d.stringBytes()
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// stringBytes reads a string, decoding escapes. The result aliases the
// input, or the decoder's scratch when there were escapes: it is valid
// until the next read.
func (d *Decoder) stringBytes() ([]byte, error) {
	if d.peek() != '"' {
		return nil, d.errorf("expected string")
	}
	start := d.i + 1
	// fast path: no escapes
	b, i := d.b, start
	for ; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			d.i = i + 1
			return b[start:i:i], nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	d.i = i
	return d.escapedString(start)
}

// escapedString reads the rest of a string from d.i on, which has an
// escape (or ends badly), decoding it into the scratch from start on.
func (d *Decoder) escapedString(start int) ([]byte, error) {
	out := append(d.scratch[:0], d.b[start:d.i]...)
	defer func() { d.scratch = out[:0] }()
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return out, nil
		case c < 0x20:
			return nil, d.errorf("control character in string")
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		d.i++
		if d.i >= len(d.b) {
			break
		}
		e := d.b[d.i]
		d.i++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil, d.errorf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r2 := rune(-1)
				if d.lit(`\u`) {
					r2, _ = d.hex4()
				}
				r = utf16.DecodeRune(r, r2)
			}
			out = utf8.AppendRune(out, r)
		default:
			return nil, d.errorf("bad escape")
		}
	}
	return nil, d.errorf("unterminated string")
}

func (d *Decoder) hex4() (rune, bool) {
	if len(d.b)-d.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(d.b[d.i:d.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	d.i += 4
	return rune(v), true
}

// Skip consumes the next value whatever it is.
func (d *Decoder) Skip() error {
	_, err := d.Any()
	return err
}

// Any reads the next value as nil, bool, float64, string, []any or
// map[string]any, as encoding/json would.
func (d *Decoder) Any() (any, error) {
	switch c := d.peek(); {
	case c == '{':
		m := map[string]any{}
		err := d.Object(func(k string) error {
			v, err := d.Any()
			m[k] = v
			return err
		})
		return m, err
	case c == '[':
		a := []any{}
		err := d.Array(func() error {
			v, err := d.Any()
			a = append(a, v)
			return err
		})
		return a, err
	case c == '"':
		return d.String()
	case c == 't' || c == 'f':
		return d.Bool()
	case c == 'n':
		if d.Null() {
			return nil, nil
		}
	case c == '-' || (c >= '0' && c <= '9'):
		return d.Float()
	case d.i >= len(d.b):
		return nil, d.errorf("unexpected end of input")
	}
	return nil, d.errorf("unexpected character %q", d.b[d.i])
}

// ParseJSON decodes a whole document with Decoder.Any.
func ParseJSON(s string) (any, error) {
	d := NewDecoder([]byte(s))
	v, err := d.Any()
	if err != nil {
		return nil, err
	}
	return v, d.End()
}
