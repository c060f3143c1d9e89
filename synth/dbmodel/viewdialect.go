package dbmodel

import (
	"strconv"
	"strings"
)

// addsTextLiteral reports whether a view's SQL uses + on a string literal
// that is not a number: SQL Server's string concatenation
// (FirstName + ' ' + LastName). SQLite reads + as addition and turns the
// text into 0, so such a view runs without an error and computes a number
// where its author meant a name (Northwind's Invoices.Salesperson). A view
// like that is skipped with this reason rather than offered as a tool whose
// column is silently wrong.
func addsTextLiteral(sql string) bool {
	s, ok := stripComments(sql)
	if !ok {
		return false
	}
	prevText, afterPlus := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '\'':
			j := i + 1
			for j < len(s) {
				if s[j] == '\'' {
					if j+1 < len(s) && s[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			lit := strings.ReplaceAll(s[i+1:min(j, len(s))], "''", "'")
			text := !numeric(lit)
			if afterPlus && text {
				return true
			}
			prevText, afterPlus = text, false
			i = j
		case c == '"' || c == '`' || c == '[':
			end := byte(c)
			if c == '[' {
				end = ']'
			}
			if k := strings.IndexByte(s[i+1:], end); k >= 0 {
				i += k + 1
			}
			prevText, afterPlus = false, false
		case c == '+':
			if prevText {
				return true
			}
			prevText, afterPlus = false, true
		default:
			prevText, afterPlus = false, false
		}
	}
	return false
}

// numeric reports whether SQLite's + reads a text as the number it spells.
func numeric(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}
