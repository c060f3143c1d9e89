package py

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// ParseLazy parses a record stored as json.dumps text: the top-level object
// only, each member value kept as its raw text until get asks for it, and
// written back as it is by Encode. A write tool touches a few members of a
// record, so this saves parsing, and re-encoding, the rest: the guest's
// largest cost.
func ParseLazy(s string) (*Value, error) {
	p := &jparser{s: s}
	p.ws()
	if !p.lit("{") {
		return Parse(s)
	}
	// the record keeps its text (as force's objects do): Encode writes it
	// back while nothing in it changed, and sizes its buffer by it
	o := p.node('o', s)
	o.keys, o.vals = p.members(16)
	if err := p.object(o, 0, true); err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, errors.New("json: trailing data")
	}
	o.dirty = false // object's Set marked it
	return o, nil
}

// object reads an object's members into o, after its '{'. lazy keeps each
// member value as its raw text (ParseLazy); otherwise values are parsed.
// A repeated key keeps its first position and its last value, as in Python.
func (p *jparser) object(o *Value, depth int, lazy bool) error {
	p.ws()
	if p.lit("}") {
		return nil
	}
	for {
		p.ws()
		k, err := p.string()
		if err != nil {
			return err
		}
		p.ws()
		if !p.lit(":") {
			return errJSON()
		}
		var val *Value
		if lazy {
			p.ws()
			start := p.i
			if err := p.skip(); err != nil {
				return err
			}
			val = p.node('r', p.s[start:p.i])
		} else if val, err = p.value(depth + 1); err != nil {
			return err
		}
		o.Set(k, val)
		p.ws()
		if p.lit("}") {
			return nil
		}
		if !p.lit(",") {
			return errJSON()
		}
	}
}

// skipClass sorts the bytes skip stops at, by byte value: 1 a string's
// quote, 2 an opening bracket, 3 a closing one, 4 a comma; 0 anything else
// (a constant: guest packages keep no variables; TestSkipClass checks it).
const skipClass = "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x03\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// skip moves past one value: strings with their escapes, nested brackets.
// A lazily parsed record is scanned byte by byte here, so the loop keeps
// its position in a local and looks each byte up once (in the guest a
// field write per byte and a six-way comparison cost ~2x).
func (p *jparser) skip() error {
	s, i, depth := p.s, p.i, 0
	for i < len(s) {
		c := skipClass[s[i]]
		if c == 0 {
			i++
			continue
		}
		switch c {
		case 1:
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i >= len(s) {
				p.i = i
				return errJSON()
			}
			i++
		case 2:
			depth++
			i++
			continue
		case 3:
			if depth == 0 {
				p.i = i
				return nil
			}
			depth--
			i++
		case 4:
			if depth == 0 {
				p.i = i
				return nil
			}
			i++
			continue
		}
		if depth == 0 {
			p.i = i
			return nil
		}
	}
	p.i = i
	if depth != 0 {
		return errJSON()
	}
	return nil
}

// isFloatRepr reports whether t is a float literal that Python's repr
// writes back unchanged: fixed notation (no exponent), an integer part
// without leading zeros, at least one fraction digit and no trailing zero
// (except "x.0"), at most 15 significant digits (any two such decimals are
// distinct doubles, so none shorter reads back the same), and a magnitude
// in [1e-4, 1e15), where repr uses fixed notation. The data's prices and
// amounts are such literals; the rest takes the float round trip.
func isFloatRepr(t string) bool {
	i := 0
	if i < len(t) && t[i] == '-' {
		i++
	}
	intStart := i
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	intDigits := i - intStart
	if intDigits == 0 || (intDigits > 1 && t[intStart] == '0') || i >= len(t) || t[i] != '.' {
		return false
	}
	i++
	fracStart := i
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	frac := t[fracStart:i]
	if i != len(t) || len(frac) == 0 {
		return false
	}
	if frac == "0" {
		return intDigits <= 15
	}
	if frac[len(frac)-1] == '0' {
		return false
	}
	sig := intDigits + len(frac)
	if t[intStart] == '0' { // 0.xxx: leading fraction zeros are not significant
		zeros := 0
		for zeros < len(frac) && frac[zeros] == '0' {
			zeros++
		}
		if zeros > 3 {
			return false // below 1e-4: exponent notation
		}
		sig = len(frac) - zeros
	}
	return sig <= 15
}

// Parse parses a JSON document, keeping key order and number text.
func Parse(s string) (*Value, error) {
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
	s string
	i int
	// keepRaw: each object and list keeps its text (Value.str), which
	// Encode writes back while it is unchanged (force: a stored record's
	// member, json.dumps text)
	keepRaw bool
}

// members returns empty key and value slices of capacity n for an object
// (carved from the call's arena).
func (p *jparser) members(n int) ([]string, []*Value) { return callArena().members(n) }

// node returns a new value (carved from the call's arena).
func (p *jparser) node(kind byte, str string) *Value { return newValue(kind, str) }

// keep records a parsed object's or list's text, from start to the
// parser's position, where the parser keeps them (keepRaw).
func (p *jparser) keep(v *Value, start int) {
	if p.keepRaw {
		v.str = p.s[start:p.i]
		v.dirty = false // object's Set marked it
	}
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

func (p *jparser) value(depth int) (*Value, error) {
	if depth > 200 {
		return nil, errJSON()
	}
	p.ws()
	if p.i >= len(p.s) {
		return nil, errJSON()
	}
	switch c := p.s[p.i]; {
	case c == '{':
		start := p.i
		p.i++
		o := p.node('o', "")
		o.keys, o.vals = p.members(8)
		if err := p.object(o, depth, false); err != nil {
			return nil, err
		}
		p.keep(o, start)
		return o, nil
	case c == '[':
		start := p.i
		p.i++
		a := p.node('a', "")
		a.vals = callArena().elems(8)
		p.ws()
		if p.lit("]") {
			p.keep(a, start)
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
				p.keep(a, start)
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
		if isFloatRepr(t) {
			return p.node('n', t), nil // already Python's spelling: no float round trip
		}
		if _, err := strconv.ParseFloat(t, 64); err != nil {
			return nil, errJSON()
		}
		return p.node('n', ParseNum(t).Text()), nil // Python's spelling of the value json.loads gives
	}
	return nil, errJSON()
}

func (p *jparser) string() (string, error) {
	if !p.lit(`"`) {
		return "", errJSON()
	}
	// fast path: no escape before the closing quote, a substring of the input
	// (a byte loop: the data's strings are short, and a call to IndexByte
	// costs more than scanning them in Go compiled to wasm)
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
