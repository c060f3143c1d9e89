package gates

import "strings"

// stripComments removes SQL comments (-- to the end of the line, /* ... */)
// outside string literals and quoted identifiers, so that what a check
// reads is judged by its SQL, not by its comments.
func stripComments(sql string) string {
	var b strings.Builder
	for i := 0; i < len(sql); {
		switch ch := sql[i]; {
		case ch == '\'' || ch == '"' || ch == '`' || ch == '[':
			end := ch
			if ch == '[' {
				end = ']'
			}
			j := i + 1
			for j < len(sql) && sql[j] != end {
				j++
			}
			j = min(j+1, len(sql))
			b.WriteString(sql[i:j])
			i = j
		case strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return b.String()
			}
			b.WriteByte(' ')
			i += j
		case strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return b.String()
			}
			b.WriteByte(' ')
			i += j + 4
		default:
			b.WriteByte(ch)
			i++
		}
	}
	return b.String()
}
