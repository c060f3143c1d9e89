package dbmodel

import (
	"strings"
	"unicode"
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

// Foreign reports whether an identifier holds a letter outside ASCII
// ("tragfähigkeit", "função", "город"): no English name does, so a
// sentence cannot say it as an English word ("the tragfähigkeit of the
// bridge"). The
// signal is the script, not a list of any language's words; a foreign name
// written in ASCII ("prezzo", "cidade") is not told apart.
func Foreign(name string) bool {
	for _, r := range name {
		if r > unicode.MaxASCII && unicode.IsLetter(r) {
			return true
		}
	}
	return false
}

// FieldWords is a column said in a sentence: Words(col), or for a Foreign
// name the name as written, quoted as the label of a field
// (`the "tragfähigkeit" of the bridge`), so that it reads as the database's
// own word rather than as English.
func FieldWords(col string) string {
	if Foreign(col) {
		return `"` + CommentText(col) + `"`
	}
	return Words(col)
}
