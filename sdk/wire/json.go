package wire

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// The JSON text of result values, shared by the guest's encoder (sdk.Encoder)
// and the host, which renders query rows for OpQueryJSON: one implementation,
// so a row rendered on the host is byte for byte what the guest would write.

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string: '"', '\\' and control
// characters escaped (\n, \r, \t by name, others as \u00XX), invalid UTF-8
// replaced by \ufffd, everything else (HTML characters, U+2028) as is.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// AppendJSONFloat appends a finite float the way encoding/json writes it
// (shortest representation; exponent form below 1e-6 and from 1e21). The
// caller handles NaN and infinities, which JSON cannot write.
func AppendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
