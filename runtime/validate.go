package runtime

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// fastSchema is a tool's argument schema compiled for the hot path: one
// pass over the argument bytes, no decoding into maps, no allocation. It
// covers the JSON Schema subset the compiler emits (type, properties,
// required, additionalProperties, items, enum of strings, integer
// minimum/maximum, description) and only ever answers "valid" when
// jsonschema would: anything it is unsure of (a null, escapes where an
// enum must compare, big or fractional numbers, duplicate keys, invalid
// JSON) goes to the jsonschema path, which also writes the agent's error
// message. TestFastSchemaAgreesWithJSONSchema is the differential test.
type fastSchema struct {
	kind       byte // 'o' object, 'a' array, 's' string, 'i' integer, 'n' number, 'b' boolean, '*' anything
	props      map[string]*fastSchema
	required   []string
	extra      *fastSchema // additionalProperties schema; nil = none allowed
	items      *fastSchema
	enum       []string
	min, max   int64
	hasMin     bool
	hasMax     bool
	extraFalse bool
}

// compileFast compiles a schema, or returns nil if it uses anything
// outside the subset.
func compileFast(raw []byte) *fastSchema {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	s := &fastSchema{kind: '*'}
	for k, v := range m {
		switch k {
		case "description":
		case "type":
			var t string
			if json.Unmarshal(v, &t) != nil {
				return nil
			}
			switch t {
			case "object", "array", "string", "integer", "number", "boolean":
				s.kind = map[string]byte{"object": 'o', "array": 'a', "string": 's', "integer": 'i', "number": 'n', "boolean": 'b'}[t]
			default:
				return nil
			}
		case "properties":
			var ps map[string]json.RawMessage
			if json.Unmarshal(v, &ps) != nil {
				return nil
			}
			s.props = map[string]*fastSchema{}
			for name, p := range ps {
				if s.props[name] = compileFast(p); s.props[name] == nil {
					return nil
				}
			}
		case "required":
			if json.Unmarshal(v, &s.required) != nil {
				return nil
			}
		case "additionalProperties":
			if string(v) == "false" {
				s.extraFalse = true
			} else if s.extra = compileFast(v); s.extra == nil {
				return nil
			}
		case "items":
			if s.items = compileFast(v); s.items == nil {
				return nil
			}
		case "enum":
			if json.Unmarshal(v, &s.enum) != nil || len(s.enum) == 0 {
				return nil
			}
		case "minimum", "maximum":
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil {
				return nil
			}
			if k == "minimum" {
				s.min, s.hasMin = n, true
			} else {
				s.max, s.hasMax = n, true
			}
		default:
			return nil
		}
	}
	// Keywords whose meaning depends on the type they sit beside.
	if (s.props != nil || s.required != nil || s.extra != nil || s.extraFalse) && s.kind != 'o' ||
		s.items != nil && s.kind != 'a' || (s.hasMin || s.hasMax) && s.kind != 'i' ||
		s.enum != nil && s.kind != 's' {
		return nil
	}
	return s
}

// valid reports whether args certainly satisfy the schema; false means
// "ask jsonschema".
func (s *fastSchema) valid(args []byte) bool {
	p := fastParser{b: args}
	p.space()
	if !p.value(s, 0) {
		return false
	}
	p.space()
	return p.i == len(p.b)
}

type fastParser struct {
	b []byte
	i int
}

const fastMaxDepth = 32

func (p *fastParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *fastParser) value(s *fastSchema, depth int) bool {
	if p.i >= len(p.b) || depth > fastMaxDepth {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return (s.kind == 'o' || s.kind == '*') && p.object(s, depth)
	case c == '[':
		return (s.kind == 'a' || s.kind == '*') && p.array(s, depth)
	case c == '"':
		str, escaped, ok := p.str()
		if !ok || s.kind != 's' && s.kind != '*' {
			return false
		}
		if s.enum == nil {
			return true
		}
		if escaped {
			return false // compare decoded text on the slow path
		}
		for _, e := range s.enum {
			if string(str) == e {
				return true
			}
		}
		return false
	case c == 't' || c == 'f':
		lit := "true"
		if c == 'f' {
			lit = "false"
		}
		if len(p.b)-p.i < len(lit) || string(p.b[p.i:p.i+len(lit)]) != lit {
			return false
		}
		p.i += len(lit)
		return s.kind == 'b' || s.kind == '*'
	case c == '-' || c >= '0' && c <= '9':
		return p.number(s)
	case c == 'n':
		// A null a tool's own argument may be dropped as absent (see
		// Episode.Call): only nulls nested in free-form values stay here.
		if len(p.b)-p.i < 4 || string(p.b[p.i:p.i+4]) != "null" || s.kind != '*' || depth < 2 {
			return false
		}
		p.i += 4
		return true
	}
	return false // not JSON
}

func (p *fastParser) object(s *fastSchema, depth int) bool {
	p.i++ // {
	var seen [16][]byte
	n := 0
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return p.requiredIn(s, seen[:0])
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return false
		}
		key, escaped, ok := p.str()
		if !ok || escaped {
			return false
		}
		for _, k := range seen[:n] {
			if string(k) == string(key) {
				return false // duplicate key
			}
		}
		if n == len(seen) {
			return false
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.space()
		sub := s.props[string(key)]
		if sub == nil {
			sub = s.extra
		}
		if sub == nil {
			if s.extraFalse {
				return false
			}
			sub = anySchema
		}
		if !p.value(sub, depth+1) {
			return false
		}
		seen[n] = key
		n++
		p.space()
		if p.i >= len(p.b) {
			return false
		}
		if p.b[p.i] == '}' {
			p.i++
			return p.requiredIn(s, seen[:n])
		}
		if p.b[p.i] != ',' {
			return false
		}
		p.i++
	}
}

var anySchema = &fastSchema{kind: '*'}

func (p *fastParser) requiredIn(s *fastSchema, seen [][]byte) bool {
next:
	for _, r := range s.required {
		for _, k := range seen {
			if string(k) == r {
				continue next
			}
		}
		return false
	}
	return true
}

func (p *fastParser) array(s *fastSchema, depth int) bool {
	p.i++ // [
	item := s.items
	if item == nil {
		item = anySchema
	}
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return true
	}
	for {
		p.space()
		if !p.value(item, depth+1) {
			return false
		}
		p.space()
		if p.i >= len(p.b) {
			return false
		}
		if p.b[p.i] == ']' {
			p.i++
			return true
		}
		if p.b[p.i] != ',' {
			return false
		}
		p.i++
	}
}

// str reads a string and returns its raw bytes, and whether it has escapes
// (then the bytes are not its text).
func (p *fastParser) str() (raw []byte, escaped, ok bool) {
	start := p.i + 1
	for j := start; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			raw = p.b[start:j]
			return raw, escaped, utf8.Valid(raw)
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			escaped = true
			if j+1 >= len(p.b) {
				return nil, false, false
			}
			j++
			switch p.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(p.b) {
					return nil, false, false
				}
				for _, h := range p.b[j+1 : j+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return nil, false, false
					}
				}
				j += 4
			default:
				return nil, false, false
			}
		}
	}
	return nil, false, false
}

// number reads a JSON number. Integers are checked exactly when they are
// plain literals of up to 18 digits; anything else an integer schema
// meets goes to the slow path.
func (p *fastParser) number(s *fastSchema) bool {
	start := p.i
	j := p.i
	if p.b[j] == '-' {
		j++
	}
	digits := j
	for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
		j++
	}
	nd := j - digits
	if nd == 0 || nd > 1 && p.b[digits] == '0' {
		return false
	}
	plain := true
	if j < len(p.b) && p.b[j] == '.' {
		plain = false
		j++
		k := j
		for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
			j++
		}
		if j == k {
			return false
		}
	}
	if j < len(p.b) && (p.b[j] == 'e' || p.b[j] == 'E') {
		plain = false
		j++
		if j < len(p.b) && (p.b[j] == '+' || p.b[j] == '-') {
			j++
		}
		k := j
		for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
			j++
		}
		if j == k {
			return false
		}
	}
	p.i = j
	switch s.kind {
	case 'n', '*':
		return true
	case 'i':
		if !plain || nd > 18 {
			return false
		}
		n := int64(0)
		for _, c := range p.b[digits:j] {
			n = n*10 + int64(c-'0')
		}
		if p.b[start] == '-' {
			n = -n
		}
		return (!s.hasMin || n >= s.min) && (!s.hasMax || n <= s.max)
	}
	return false
}
