package py

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Encode writes v as Python's json.dumps(v) would.
func (v *Value) Encode() string {
	// sized by the stored text of a record (ParseLazy): one buffer
	return string(v.AppendTo(make([]byte, 0, max(1024, len(v.str)+256))))
}

// AppendTo appends json.dumps(v) to b. A number's text is already Python's
// (Parse and Number store it so).
func (v *Value) AppendTo(b []byte) []byte {
	switch v.kind {
	case 'o':
		if v.str != "" && v.clean() {
			return append(b, v.str...) // as stored (force), unchanged
		}
		b = append(b, '{')
		for i, k := range v.keys {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = AppendString(b, k)
			b = append(b, ": "...)
			b = v.vals[i].AppendTo(b)
		}
		return append(b, '}')
	case 'a':
		if v.str != "" && v.clean() {
			return append(b, v.str...)
		}
		b = append(b, '[')
		for i, e := range v.vals {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = e.AppendTo(b)
		}
		return append(b, ']')
	case 's':
		return AppendString(b, v.str)
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

// AppendString quotes s like json.dumps with ensure_ascii=True.
func AppendString(b []byte, s string) []byte {
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
