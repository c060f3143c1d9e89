package toolgen

import (
	"hash/fnv"
	"strings"
	"unicode"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// ident turns any name into lower snake_case ASCII that round-trips through
// CamelCase (no "_" before a digit), or "" when nothing is left.
func ident(s string) string {
	var b strings.Builder
	under := false
	rs := []rune(s)
	for i, r := range rs {
		// CamelCase words are words: InvoiceLine → invoice_line,
		// customerID → customer_id, HTTPServer → http_server.
		if r >= 'A' && r <= 'Z' && i > 0 && !under && b.Len() > 0 {
			prev := rs[i-1]
			lowerNext := i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z'
			if prev >= 'a' && prev <= 'z' || prev >= '0' && prev <= '9' || prev >= 'A' && prev <= 'Z' && lowerNext {
				b.WriteByte('_')
			}
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if r >= '0' && r <= '9' && under && b.Len() > 0 {
				s := b.String()
				b.Reset()
				b.WriteString(strings.TrimSuffix(s, "_"))
			}
			b.WriteRune(r)
			under = false
		case r >= 'A' && r <= 'Z':
			b.WriteRune(unicode.ToLower(r))
			under = false
		default:
			if !under && b.Len() > 0 {
				b.WriteByte('_')
				under = true
			}
		}
	}
	out := strings.Trim(b.String(), "_")
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = "n" + out
	}
	return out
}

// camel turns snake_case into CamelCase.
func camel(s string) string {
	var b strings.Builder
	for _, p := range strings.Split(s, "_") {
		if p != "" {
			b.WriteString(strings.ToUpper(p[:1]) + p[1:])
		}
	}
	return b.String()
}

// namer hands out unique identifiers within one scope.
type namer map[string]bool

func (n namer) unique(base, fallback string) string {
	if base == "" {
		base = fallback
	}
	name := base
	for i := 2; n[name]; i++ {
		name = base + strings.Repeat("x", i-1) // no digits: keeps the CamelCase round trip simple
	}
	n[name] = true
	return name
}

// plainWords renders an identifier for prose ("order_items" → "order items").
var plainWords = dbmodel.Words

// maxToolName is the longest tool name OpenAI's API takes
// (^[a-zA-Z0-9_-]{1,64}$); a table name of 60 characters makes a longer one.
const maxToolName = 64

// shorten cuts a snake_case name to at most n bytes (n > 8), ending it with
// six letters of a hash of the whole name, so that names sharing a long
// prefix stay apart and the same source gives the same names. A name of n
// bytes or fewer is returned as it is.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(s))
	x := h.Sum32()
	var suffix [6]byte
	for i := range suffix {
		suffix[i] = 'a' + byte(x%26) // letters: no digit after "_" (ident)
		x /= 26
	}
	return strings.TrimRight(s[:n-len(suffix)-1], "_") + "_" + string(suffix[:])
}
