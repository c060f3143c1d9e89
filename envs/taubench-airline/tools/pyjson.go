package tools

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jv is a JSON value that behaves like a Python object loaded by json.load:
// objects keep their key order (Python dicts are insertion-ordered), numbers
// keep whether they were ints or floats, and encode() writes exactly what
// Python's json.dumps writes (", " and ": " separators, ensure_ascii,
// float repr).
type jv struct {
	kind byte     // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null, 'r' raw (see parseLazy)
	str  string   // string value, or number text (an int literal or a float repr)
	b    bool     // bool value
	keys []string // object keys in insertion order
	vals []*jv    // object values (parallel to keys) or array elements
}

func jString(s string) *jv { return &jv{kind: 's', str: s} }

func jNum(n pyNum) *jv { return &jv{kind: 'n', str: n.text()} }

func jObject() *jv { return &jv{kind: 'o'} }

func jStrings(ss []string) *jv {
	a := &jv{kind: 'a'}
	for _, s := range ss {
		a.vals = append(a.vals, jString(s))
	}
	return a
}

// get returns obj[key], or nil when v is not an object or has no such key.
// A raw member (parseLazy) is parsed on first access.
func (v *jv) get(key string) *jv {
	if v == nil || v.kind != 'o' {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			if x := v.vals[i]; x.kind == 'r' {
				x.force()
			}
			return v.vals[i]
		}
	}
	return nil
}

// force parses a raw value in place.
func (v *jv) force() {
	p, err := parseJV(v.str)
	if err != nil {
		*v = jv{kind: 'z'}
		return
	}
	*v = *p
}

// parseLazy parses a record stored as json.dumps text: the top-level object
// only, each member value kept as its raw text until get asks for it, and
// written back as it is by encode. A write tool touches a few members of a
// record, so this saves parsing, and re-encoding, the rest: the guest's
// largest cost.
func parseLazy(s string) (*jv, error) {
	p := &jparser{s: s, slab: make([]jv, 24)}
	p.ws()
	if !p.lit("{") {
		return parseJV(s)
	}
	o := p.node('o', "")
	o.keys, o.vals = make([]string, 0, 16), make([]*jv, 0, 16)
	p.ws()
	if p.lit("}") {
		return o, nil
	}
	for {
		p.ws()
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		p.ws()
		if !p.lit(":") {
			return nil, errJSON()
		}
		p.ws()
		start := p.i
		if err := p.skip(); err != nil {
			return nil, err
		}
		o.set(k, p.node('r', p.s[start:p.i]))
		p.ws()
		if p.lit("}") {
			break
		}
		if !p.lit(",") {
			return nil, errJSON()
		}
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, errors.New("json: trailing data")
	}
	return o, nil
}

// skip moves past one value: strings with their escapes, nested brackets.
func (p *jparser) skip() error {
	depth := 0
	for p.i < len(p.s) {
		switch c := p.s[p.i]; c {
		case '"':
			p.i++
			for p.i < len(p.s) && p.s[p.i] != '"' {
				if p.s[p.i] == '\\' {
					p.i++
				}
				p.i++
			}
			if p.i >= len(p.s) {
				return errJSON()
			}
			p.i++
		case '{', '[':
			depth++
			p.i++
			continue
		case '}', ']':
			if depth == 0 {
				return nil
			}
			depth--
			p.i++
		case ',':
			if depth == 0 {
				return nil
			}
			p.i++
			continue
		default:
			p.i++
			continue
		}
		if depth == 0 {
			return nil
		}
	}
	if depth != 0 {
		return errJSON()
	}
	return nil
}

// set assigns obj[key] like Python: an existing key keeps its position, a new
// key is appended at the end.
func (v *jv) set(key string, val *jv) {
	for i, k := range v.keys {
		if k == key {
			v.vals[i] = val
			return
		}
	}
	v.keys = append(v.keys, key)
	v.vals = append(v.vals, val)
}

// text is the string value ("" for a non-string).
func (v *jv) text() string {
	if v == nil || v.kind != 's' {
		return ""
	}
	return v.str
}

// isStr reports whether v is the string s.
func (v *jv) isStr(s string) bool { return v != nil && v.kind == 's' && v.str == s }

// truthy is Python's bool(v).
func (v *jv) truthy() bool {
	if v == nil {
		return false
	}
	switch v.kind {
	case 'b':
		return v.b
	case 's':
		return v.str != ""
	case 'n':
		n, _ := v.num()
		return !n.isZero()
	case 'o':
		return len(v.keys) > 0
	case 'a':
		return len(v.vals) > 0
	}
	return false
}

// num returns the value of a number.
func (v *jv) num() (pyNum, bool) {
	if v == nil || v.kind != 'n' {
		return pyNum{}, false
	}
	return parsePyNum(v.str), true
}

// encode writes v as Python's json.dumps(v) would.
func (v *jv) encode() string {
	return string(v.appendTo(make([]byte, 0, 1024)))
}

// appendTo appends json.dumps(v) to b. A number's text is already Python's
// (parseJV and jNum store it so).
func (v *jv) appendTo(b []byte) []byte {
	switch v.kind {
	case 'o':
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendPyString(b, k)
			b = append(b, ": "...)
			b = v.vals[i].appendTo(b)
		}
		return append(b, '}')
	case 'a':
		b = append(b, '[')
		for i, e := range v.vals {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = e.appendTo(b)
		}
		return append(b, ']')
	case 's':
		return appendPyString(b, v.str)
	case 'n', 'r':
		return append(b, v.str...)
	case 'b':
		if v.b {
			return append(b, "true"...)
		}
		return append(b, "false"...)
	}
	return append(b, "null"...)
}

const hexDigits = "0123456789abcdef"

// appendPyString quotes s like json.dumps with ensure_ascii=True.
func appendPyString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x20 && c < 0x80 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '"':
			b = append(b, `\"`...)
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r >= 0x10000:
			r1, r2 := utf16.EncodeRune(r)
			b = appendU(appendU(b, r1), r2)
		default: // control characters, non-ASCII, and invalid bytes (U+FFFD)
			b = appendU(b, r)
		}
		i += size - 1
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func appendU(b []byte, r rune) []byte {
	b = append(b, `\u`...)
	for shift := 12; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[(r>>uint(shift))&0xF])
	}
	return b
}

// parseJV parses a JSON document, keeping key order and number text.
func parseJV(s string) (*jv, error) {
	p := &jparser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, errors.New("json: trailing data")
	}
	return v, nil
}

type jparser struct {
	s    string
	i    int
	slab []jv // values are carved from chunks: fewer allocations for the guest's GC
}

func (p *jparser) node(kind byte, str string) *jv {
	if len(p.slab) == 0 {
		// about one value per 12 bytes of JSON text, at least 16: one
		// allocation for most documents (each allocation is costly in the guest)
		p.slab = make([]jv, max(16, (len(p.s)-p.i)/12))
	}
	v := &p.slab[0]
	p.slab = p.slab[1:]
	v.kind, v.str = kind, str
	return v
}

func errJSON() error { return errors.New("json: malformed document") }

func (p *jparser) ws() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\n' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}

func (p *jparser) lit(l string) bool {
	if strings.HasPrefix(p.s[p.i:], l) {
		p.i += len(l)
		return true
	}
	return false
}

func (p *jparser) value(depth int) (*jv, error) {
	if depth > 200 {
		return nil, errJSON()
	}
	p.ws()
	if p.i >= len(p.s) {
		return nil, errJSON()
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		o := p.node('o', "")
		o.keys, o.vals = make([]string, 0, 8), make([]*jv, 0, 8)
		p.ws()
		if p.lit("}") {
			return o, nil
		}
		for {
			p.ws()
			k, err := p.string()
			if err != nil {
				return nil, err
			}
			p.ws()
			if !p.lit(":") {
				return nil, errJSON()
			}
			val, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o.set(k, val) // a repeated key keeps its first position, last value (as in Python)
			p.ws()
			if p.lit("}") {
				return o, nil
			}
			if !p.lit(",") {
				return nil, errJSON()
			}
		}
	case c == '[':
		p.i++
		a := p.node('a', "")
		p.ws()
		if p.lit("]") {
			return a, nil
		}
		for {
			val, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a.vals = append(a.vals, val)
			p.ws()
			if p.lit("]") {
				return a, nil
			}
			if !p.lit(",") {
				return nil, errJSON()
			}
		}
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return p.node('s', s), nil
	case p.lit("true"):
		v := p.node('b', "")
		v.b = true
		return v, nil
	case p.lit("false"):
		return p.node('b', ""), nil
	case p.lit("null"):
		return p.node('z', ""), nil
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		plainInt := true
		p.i++
		for p.i < len(p.s) {
			d := p.s[p.i]
			if d >= '0' && d <= '9' {
				p.i++
				continue
			}
			if d == '.' || d == 'e' || d == 'E' || d == '+' || d == '-' {
				plainInt = false
				p.i++
				continue
			}
			break
		}
		t := p.s[start:p.i]
		if plainInt && t != "-" && t != "-0" && len(t) <= 18 && (t[0] != '0' || len(t) == 1) {
			return p.node('n', t), nil // an int literal: Python writes it back the same
		}
		if _, err := strconv.ParseFloat(t, 64); err != nil {
			return nil, errJSON()
		}
		return p.node('n', parsePyNum(t).text()), nil // Python's spelling of the value json.loads gives
	}
	return nil, errJSON()
}

func (p *jparser) string() (string, error) {
	if !p.lit(`"`) {
		return "", errJSON()
	}
	// fast path: no escape before the closing quote, a substring of the input
	for j := p.i; j < len(p.s); j++ {
		if c := p.s[j]; c == '"' {
			out := p.s[p.i:j]
			p.i = j + 1
			return out, nil
		} else if c == '\\' {
			break
		}
	}
	var sb strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return sb.String(), nil
		case c == '\\':
			if p.i+1 >= len(p.s) {
				return "", errJSON()
			}
			e := p.s[p.i+1]
			p.i += 2
			switch e {
			case '"', '\\', '/':
				sb.WriteByte(e)
			case 'b':
				sb.WriteByte('\b')
			case 'f':
				sb.WriteByte('\f')
			case 'n':
				sb.WriteByte('\n')
			case 'r':
				sb.WriteByte('\r')
			case 't':
				sb.WriteByte('\t')
			case 'u':
				r, ok := p.hex4()
				if !ok {
					return "", errJSON()
				}
				if utf16.IsSurrogate(r) && strings.HasPrefix(p.s[p.i:], `\u`) {
					save := p.i
					p.i += 2
					if r2, ok := p.hex4(); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
						r = utf16.DecodeRune(r, r2)
					} else {
						p.i = save
					}
				}
				sb.WriteRune(r)
			default:
				return "", errJSON()
			}
		default:
			sb.WriteByte(c)
			p.i++
		}
	}
	return "", errJSON()
}

func (p *jparser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

// del removes obj[key] (Python's del), keeping the other keys' order.
func (v *jv) del(key string) {
	for i, k := range v.keys {
		if k == key {
			v.keys = append(v.keys[:i], v.keys[i+1:]...)
			v.vals = append(v.vals[:i], v.vals[i+1:]...)
			return
		}
	}
}

// update is Python's dict.update(other): existing keys keep their place.
func (v *jv) update(other *jv) {
	for i, k := range other.keys {
		v.set(k, other.vals[i])
	}
}
