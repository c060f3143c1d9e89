package dbmodel

import (
	"strings"
	"unicode/utf8"
)

// Words renders an identifier for prose ("order_items" → "order items").
func Words(s string) string { return strings.ReplaceAll(s, "_", " ") }

// IsNatural reports whether col is one of t's natural keys (false for a
// nil table).
func (t *Table) IsNatural(col string) bool {
	if t == nil {
		return false
	}
	for _, n := range t.NaturalKeys {
		if n == col {
			return true
		}
	}
	return false
}

// Article puts "a" or "an" before a noun phrase ("an audit log", "a user").
func Article(s string) string {
	l := strings.ToLower(s)
	r, _ := utf8.DecodeRuneInString(l)
	if strings.ContainsRune("aeio", r) || r == 'u' && !strings.HasPrefix(l, "us") && !strings.HasPrefix(l, "uni") {
		return "an " + s
	}
	return "a " + s
}
