package dbmodel

import "strings"

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
