package dbmodel

import (
	"fmt"
	"strings"
)

// computedExprs finds the expression of every generated column of t in
// its CREATE TABLE statement (SQLite's pragmas do not give it).
func computedExprs(sql string, t *Table) error {
	var want []*Column
	for _, c := range t.Columns {
		if c.Computed != 0 {
			want = append(want, c)
		}
	}
	if len(want) == 0 {
		return nil
	}
	defs := columnDefs(sql)
	for _, c := range want {
		def, ok := defs[strings.ToLower(c.Name)]
		if !ok {
			return fmt.Errorf("generated column %s: definition not found", c.Name)
		}
		up := strings.ToUpper(def)
		found := false
		for i := 0; i < len(def) && !found; i++ {
			if j := skipQuoted(def, i); j > i {
				i = j
				continue
			}
			if !strings.HasPrefix(up[i:], "AS") || (i > 0 && isWord(def[i-1])) || (i+2 < len(def) && isWord(def[i+2])) {
				continue
			}
			k := i + 2
			for k < len(def) && strings.IndexByte(" \t\r\n", def[k]) >= 0 {
				k++
			}
			if k < len(def) && def[k] == '(' {
				if end := matchParen(def, k); end > k {
					if e, ok := stripComments(def[k+1 : end]); ok && e != "" {
						c.Expr, found = e, true
					}
				}
			}
		}
		if !found {
			return fmt.Errorf("generated column %s: expression not found", c.Name)
		}
	}
	return nil
}

// columnDefs splits the body of a CREATE TABLE statement into its column
// definitions, by lower-cased column name.
func columnDefs(sql string) map[string]string {
	out := map[string]string{}
	sql, ok := stripComments(sql)
	if !ok {
		return out
	}
	open := -1
	for i := 0; i < len(sql); i++ {
		if j := skipQuoted(sql, i); j > i {
			i = j
			continue
		}
		if sql[i] == '(' {
			open = i
			break
		}
	}
	if open < 0 {
		return out
	}
	end := matchParen(sql, open)
	if end < 0 {
		return out
	}
	body := sql[open+1 : end]
	start, depth := 0, 0
	var parts []string
	for i := 0; i < len(body); i++ {
		if j := skipQuoted(body, i); j > i {
			i = j
			continue
		}
		switch body[i] {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, body[start:i])
				start = i + 1
			}
		}
	}
	parts = append(parts, body[start:])
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		name := ""
		if j := skipQuoted(p, 0); j > 0 {
			q := p[0]
			name = p[1:j]
			if q != '[' {
				name = strings.ReplaceAll(name, string([]byte{q, q}), string(q))
			}
		} else {
			k := 0
			for k < len(p) && !strings.ContainsRune(" \t\r\n(", rune(p[k])) {
				k++
			}
			name = p[:k]
		}
		switch strings.ToUpper(name) {
		case "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN":
			continue
		}
		out[strings.ToLower(name)] = p
	}
	return out
}
