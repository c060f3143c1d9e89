package dbmodel

import (
	"regexp"
	"strings"
)

// triggerWriteRE finds the tables a trigger's body writes.
var triggerWriteRE = regexp.MustCompile("(?i)\\b(INSERT\\s+(?:OR\\s+\\w+\\s+)?INTO|REPLACE\\s+INTO|UPDATE(?:\\s+OR\\s+\\w+)?|DELETE\\s+FROM)\\s+(\"(?:[^\"]|\"\")*\"|\\[[^\\]]*\\]|`[^`]*`|[\\p{L}_][\\p{L}\\p{N}_$]*)")

// TriggerTargets returns the tables the body of a CREATE TRIGGER statement
// writes (a rough parse; a miss only offers a write tool that a trigger
// also uses). The body starts at the first BEGIN keyword outside literals
// and quoted names, whatever the layout around it: a line break, a tab, a
// WHEN clause, UPDATE OF columns or comments before it.
func TriggerTargets(sql string) []string { return triggerWrites(sql, false) }

// TriggerLogs returns the tables the trigger adds rows to (INSERT or
// REPLACE INTO): an audit log, a history. A table it only updates or
// deletes from (a counter column, a cleanup) is an ordinary table too.
func TriggerLogs(sql string) []string { return triggerWrites(sql, true) }

func triggerWrites(sql string, insertsOnly bool) []string {
	s, ok := StripStatement(sql)
	if !ok {
		return nil
	}
	body, ok := triggerBody(s)
	if !ok {
		return nil
	}
	var out []string
	for _, m := range triggerWriteRE.FindAllStringSubmatch(body, -1) {
		verb := strings.ToUpper(m[1][:6])
		if insertsOnly && verb != "INSERT" && verb != "REPLAC" {
			continue
		}
		name := m[2]
		switch name[0] {
		case '"':
			name = strings.ReplaceAll(name[1:len(name)-1], `""`, `"`)
		case '[', '`':
			name = name[1 : len(name)-1]
		}
		if !containsFold(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// triggerBody returns the comment-free statement s from its BEGIN keyword
// on, with the text of its string literals blanked (a literal reading
// "UPDATE x" writes nothing); false when it has no BEGIN.
func triggerBody(s string) (string, bool) {
	var b strings.Builder
	begun := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := c
			if c == '[' {
				end = ']'
			}
			j := i + 1
			for j < len(s) {
				if s[j] == end {
					if end != ']' && j+1 < len(s) && s[j+1] == end {
						j += 2 // a doubled quote inside the quotes
						continue
					}
					break
				}
				j++
			}
			if begun {
				if c == '\'' {
					b.WriteString("''")
				} else {
					b.WriteString(s[i:min(j+1, len(s))])
				}
			}
			i = j
		case !begun && isWordByte(c) && (i == 0 || !isWordByte(s[i-1])):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			if strings.EqualFold(s[i:j], "BEGIN") {
				begun = true
				b.WriteString(s[i:j])
			}
			i = j - 1
		default:
			if begun {
				b.WriteByte(c)
			}
		}
	}
	return b.String(), begun
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// MarkMaintained records that trigger, on table on, adds rows to the
// tables its body inserts into (other than on itself): an audit log, a
// history. Tools do not offer to write such a table by hand.
func (m *Model) MarkMaintained(trigger, on, sql string) {
	for _, target := range TriggerLogs(sql) {
		if strings.EqualFold(target, on) {
			continue
		}
		for _, t := range m.Tables {
			if strings.EqualFold(t.Name, target) && t.MaintainedBy == "" {
				t.MaintainedBy = trigger
			}
		}
	}
}
