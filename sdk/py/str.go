package py

import (
	"errors"
	"strings"
	"unicode"
)

// KeyError is the message of Python's KeyError(key), as τ-bench's
// environment reports an exception raised by a tool ("Error: 'x'").
func KeyError(key string) error { return errors.New(StrRepr(key)) }

// StrRepr is Python's repr of a str (printable characters assumed).
func StrRepr(s string) string {
	q := "'"
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = `"`
	}
	var sb strings.Builder
	sb.WriteString(q)
	for _, r := range s {
		switch {
		case r == '\\':
			sb.WriteString(`\\`)
		case string(r) == q:
			sb.WriteString(`\` + q)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteString(q)
	return sb.String()
}

// Lower is Python's str.lower() (Go's ToLower except for U+0130, which
// Python lowers to "i" followed by U+0307).
func Lower(s string) string {
	if !strings.ContainsRune(s, 'İ') {
		return strings.ToLower(s)
	}
	var sb strings.Builder
	for _, r := range s {
		if r == 'İ' {
			sb.WriteString("i\u0307")
		} else {
			sb.WriteRune(unicode.ToLower(r))
		}
	}
	return sb.String()
}
