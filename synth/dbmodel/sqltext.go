package dbmodel

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text from a database's schema (declared types, DEFAULTs, CHECKs, the SQL
// of indexes, views and triggers) is data written by whoever made the
// database: SQLite stores some of it unparsed. These helpers decide what
// of it may be written back into an environment's SQL.

// stripComments removes SQL comments (-- to the end of the line, /* */)
// outside string literals and quoted identifiers, and reports whether the
// text is one balanced piece: every literal and comment closed, parentheses
// balanced and never closed before they open, and no ';' outside literals.
// A text that fails can end the statement it is pasted into.
func stripComments(s string) (string, bool) { return strip(s, false) }

// StripStatement removes the comments of a whole statement (a trigger's
// body holds ';'), and reports whether its literals, comments and
// parentheses are closed.
func StripStatement(s string) (string, bool) { return strip(s, true) }

func strip(s string, semicolons bool) (string, bool) {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := byte(c)
			if c == '[' {
				end = ']'
			}
			j := i + 1
			for {
				k := strings.IndexByte(s[j:], end)
				if k < 0 {
					return "", false
				}
				j += k + 1
				// '' inside '…' (and "" inside "…") is an escaped quote.
				if end != ']' && j < len(s) && s[j] == end {
					j++
					continue
				}
				break
			}
			b.WriteString(s[i:j])
			i = j - 1
		case c == '-' && strings.HasPrefix(s[i:], "--"):
			k := strings.IndexByte(s[i:], '\n')
			if k < 0 {
				i = len(s)
			} else {
				i += k
			}
			b.WriteByte(' ')
		case c == '/' && strings.HasPrefix(s[i:], "/*"):
			k := strings.Index(s[i+2:], "*/")
			if k < 0 {
				return "", false
			}
			i += k + 3
			b.WriteByte(' ')
		case c == ';' && !semicolons:
			return "", false
		case c == '(':
			depth++
			b.WriteByte(c)
		case c == ')':
			depth--
			if depth < 0 {
				return "", false
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	if depth != 0 {
		return "", false
	}
	return strings.TrimSpace(b.String()), true
}

// typeNameRE is SQLite's type-name: one or more names, optionally with
// one or two signed numbers in parentheses ("VARCHAR(40)", "DECIMAL(10,
// 2)", "UNSIGNED BIG INT").
var typeNameRE = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*(?:\s+[\p{L}_][\p{L}\p{N}_]*)*\s*(?:\(\s*[+-]?\d+(?:\.\d+)?\s*(?:,\s*[+-]?\d+(?:\.\d+)?\s*)?\))?$`)

// ValidType reports whether a declared type can be written back as is.
func ValidType(decl string) bool { return decl == "" || typeNameRE.MatchString(decl) }

// affinityType is the plain type name of a kind, for a declared type that
// cannot be written back.
func affinityType(k Kind) string {
	switch k {
	case Integer:
		return "INTEGER"
	case Real:
		return "REAL"
	case Text:
		return "TEXT"
	}
	return "BLOB"
}

// CleanDefault returns a DEFAULT as it may be written after the keyword
// DEFAULT: a literal, a keyword, or an expression in parentheses, without
// comments. ok is false for text that is none of these.
func CleanDefault(d string) (string, bool) {
	d, ok := stripComments(d)
	if !ok || d == "" {
		return "", false
	}
	switch d[0] {
	case '\'', '(', '-', '+', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if d[0] == '(' && matchParen(d, 0) == len(d)-1 {
			return d, true
		}
		if d[0] != '(' && literalDefaultRE.MatchString(d) {
			return d, true
		}
	case 'X', 'x':
		if literalDefaultRE.MatchString(d) {
			return d, true
		}
	case '"':
		// DEFAULT "" or "none": a DEFAULT names no column, so SQLite read
		// the double-quoted word as a string (its legacy double-quoted
		// strings); a database built without them refuses it. The same
		// string, single-quoted.
		if j := skipQuoted(d, 0); j == len(d)-1 {
			inner := strings.ReplaceAll(d[1:j], `""`, `"`)
			return "'" + strings.ReplaceAll(inner, "'", "''") + "'", true
		}
	}
	switch strings.ToUpper(d) {
	case "NULL", "TRUE", "FALSE", "CURRENT_TIMESTAMP", "CURRENT_DATE", "CURRENT_TIME":
		return d, true
	}
	// Anything else (a bare word SQLite took as a string) becomes an
	// expression in parentheses; SQLite then decides whether it is one.
	return "(" + d + ")", true
}

var literalDefaultRE = regexp.MustCompile(`^(?:'(?:[^']|'')*'|[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|0[xX][0-9a-fA-F]+|[xX]'[0-9a-fA-F]*')$`)

// CommentText makes text safe for a one-line comment (SQL "--" or Go
// "//") and a terminal: control characters, line and paragraph separators
// become spaces, and format characters (Unicode category Cf: bidi
// overrides, zero-width characters), which can make text display as other
// text, are written as escapes (\u202e).
func CommentText(s string) string {
	if strings.IndexFunc(s, isFormatChar) < 0 {
		return strings.Map(commentRune, s)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case isFormatChar(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case isFormatChar(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(commentRune(r))
		}
	}
	return b.String()
}

func commentRune(r rune) rune {
	if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || r == '\u0085' {
		return ' '
	}
	return r
}

func isFormatChar(r rune) bool { return unicode.Is(unicode.Cf, r) }

// FormatChar returns the first format character (Unicode category Cf) in
// s, or -1. A source object whose name or SQL holds one is left out: SQL
// cannot escape it in an identifier, and generated code, comments and
// task instructions would carry it raw (issue 37 finding 11).
func FormatChar(s string) rune {
	if i := strings.IndexFunc(s, isFormatChar); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return r
	}
	return -1
}
