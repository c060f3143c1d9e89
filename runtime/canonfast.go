package runtime

import (
	"bytes"
	"slices"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// appendCanon is the fast path of a record's canonical JSON: for a valid
// JSON text, it appends exactly what json.Marshal writes for the value
// encoding/json decodes from it with UseNumber (keys sorted, the last of
// duplicate keys kept, strings unescaped then escaped as Marshal does,
// numbers as written, no whitespace), without building that value. It
// reports false, having appended garbage to dst[len(dst):], for anything
// else (invalid JSON, nesting past encoding/json's limit): callers then
// take encoding/json's path, so that results never depend on which path
// ran. FuzzCanonMatchesEncodingJSON holds the two together.
//
// It exists for the diff and the state hash of large records (a τ-bench
// retail order is ~1.5 KB of nested JSON): decoding into maps and
// marshalling again was ~40% of a retail episode's CPU (docs/BENCHMARKS-taubench.md).
func appendCanon(dst, src []byte) ([]byte, bool) {
	if !utf8.Valid(src) { // encoding/json would turn bad bytes into U+FFFD
		return dst, false
	}
	p := canonParsers.Get().(*canonParser)
	defer p.release()
	p.src, p.i = src, 0
	p.ws()
	dst, ok := p.value(dst, 0)
	if !ok {
		return dst, false
	}
	p.ws()
	return dst, p.i == len(src)
}

// canonParsers keeps parsers with their scratch (a record has a dozen
// objects, each of which needed its own member list and copy).
var canonParsers = sync.Pool{New: func() any { return new(canonParser) }}

// release returns p to the pool, dropping scratch grown past maxCanonScratch.
func (p *canonParser) release() {
	p.src = nil
	if cap(p.key)+cap(p.body)+16*cap(p.ms) > maxCanonScratch {
		p.key, p.body, p.ms = nil, nil, nil
	}
	p.key, p.body, p.ms = p.key[:0], p.body[:0], p.ms[:0]
	canonParsers.Put(p)
}

const maxCanonScratch = 64 << 10

// maxCanonDepth is encoding/json's nesting limit: deeper is an error there.
const maxCanonDepth = 10000

type canonParser struct {
	src  []byte
	i    int
	key  []byte   // scratch: decoded object keys
	ms   []member // scratch: the members of the objects being read, outermost first
	body []byte   // scratch: an object's members while they are rewritten in order
}

func (p *canonParser) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *canonParser) value(dst []byte, depth int) ([]byte, bool) {
	if p.i >= len(p.src) {
		return dst, false
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(dst, depth+1)
	case c == '[':
		return p.array(dst, depth+1)
	case c == '"':
		start := len(dst)
		dst, ok := p.str(dst) // decoded, then escaped in place
		if !ok {
			return dst, false
		}
		s := string(dst[start:])
		return appendJSONString(dst[:start], s), true
	case c == '-' || c >= '0' && c <= '9':
		return p.number(dst)
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(p.src[p.i:], []byte(lit)) {
			p.i += len(lit)
			return append(dst, lit...), true
		}
	}
	return dst, false
}

func (p *canonParser) array(dst []byte, depth int) ([]byte, bool) {
	if depth > maxCanonDepth {
		return dst, false
	}
	p.i++ // [
	dst = append(dst, '[')
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		return append(dst, ']'), true
	}
	for {
		var ok bool
		p.ws()
		if dst, ok = p.value(dst, depth); !ok {
			return dst, false
		}
		p.ws()
		if p.i >= len(p.src) {
			return dst, false
		}
		switch p.src[p.i] {
		case ',':
			p.i++
			dst = append(dst, ',')
		case ']':
			p.i++
			return append(dst, ']'), true
		default:
			return dst, false
		}
	}
}

// member is one object member: its decoded key (in p.key) and its
// canonical "key":value text (in dst), by offsets.
type member struct{ k0, k1, m0, m1 int }

func (p *canonParser) object(dst []byte, depth int) ([]byte, bool) {
	if depth > maxCanonDepth {
		return dst, false
	}
	p.i++ // {
	start := len(dst)
	base, keyBase := len(p.ms), len(p.key) // this object's members are p.ms[base:], its keys p.key[keyBase:]
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == '}' {
		p.i++
		return append(dst, '{', '}'), true
	}
	for {
		var ok bool
		p.ws()
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return dst, false
		}
		// The decoded key, kept for the sort; then "key": in dst.
		k0 := len(p.key)
		if p.key, ok = p.str(p.key); !ok {
			return dst, false
		}
		m := member{k0: k0, k1: len(p.key), m0: len(dst)}
		dst = appendJSONString(dst, string(p.key[k0:]))
		dst = append(dst, ':')
		p.ws()
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return dst, false
		}
		p.i++
		p.ws()
		if dst, ok = p.value(dst, depth); !ok {
			return dst, false
		}
		m.m1 = len(dst)
		p.ms = append(p.ms, m)
		p.ws()
		if p.i >= len(p.src) {
			return dst, false
		}
		if p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.src[p.i] != '}' {
			return dst, false
		}
		p.i++
		break
	}
	// Sort by key (a Go map's keys, as Marshal sorts them), the last of
	// equal keys winning (as decoding into a map does), and rewrite.
	ms := p.ms[base:]
	key := func(m member) []byte { return p.key[m.k0:m.k1] }
	slices.SortStableFunc(ms, func(a, b member) int { return bytes.Compare(key(a), key(b)) })
	p.body = append(p.body[:0], dst[start:]...) // the members read (nested objects done: their use of body is over)
	body := p.body
	dst = append(dst[:start], '{')
	first := true
	for j, m := range ms {
		if j+1 < len(ms) && bytes.Equal(key(m), key(ms[j+1])) {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, body[m.m0-start:m.m1-start]...)
	}
	p.key, p.ms = p.key[:keyBase], p.ms[:base]
	return append(dst, '}'), true
}

// str decodes the JSON string at p.i onto dst, as encoding/json unquotes
// it (an invalid surrogate becomes U+FFFD).
func (p *canonParser) str(dst []byte) ([]byte, bool) {
	p.i++ // "
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return dst, true
		case c < ' ':
			return dst, false
		case c != '\\':
			j := p.i + 1
			for j < len(p.src) && p.src[j] != '"' && p.src[j] != '\\' && p.src[j] >= ' ' {
				j++
			}
			dst = append(dst, p.src[p.i:j]...)
			p.i = j
			continue
		}
		if p.i+1 >= len(p.src) {
			return dst, false
		}
		switch e := p.src[p.i+1]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(p.src[p.i:])
			if r < 0 {
				return dst, false
			}
			p.i += 6
			if utf16.IsSurrogate(r) {
				if r1 := hex4(p.src[p.i:]); r1 >= 0 {
					if d := utf16.DecodeRune(r, r1); d != utf8.RuneError {
						p.i += 6
						dst = utf8.AppendRune(dst, d)
						continue
					}
				}
				r = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default:
			return dst, false
		}
		p.i += 2
	}
	return dst, false
}

// hex4 is the rune of a \uXXXX escape at the start of b, or -1.
func hex4(b []byte) rune {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// number copies a JSON number (-?int frac? exp?) as it is written.
func (p *canonParser) number(dst []byte) ([]byte, bool) {
	s, i := p.src, p.i
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if !digits() {
		return dst, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return dst, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return dst, false
		}
	}
	dst = append(dst, s[p.i:i]...)
	p.i = i
	return dst, true
}

// appendJSONString is encoding/json's string encoding with HTML escaping
// (what Marshal writes): <, >, & and control characters as \u00XX (but \b,
// \f, \n, \r, \t), invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= ' ' && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(dst, s[start:]...), '"')
}
