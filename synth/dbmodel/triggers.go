package dbmodel

import (
	"regexp"
	"strings"
)

// triggerWriteRE finds the tables a trigger's body writes.
var triggerWriteRE = regexp.MustCompile("(?i)\\b(?:INSERT\\s+(?:OR\\s+\\w+\\s+)?INTO|REPLACE\\s+INTO|UPDATE\\s+(?:OR\\s+\\w+\\s+)?|DELETE\\s+FROM)\\s+(\"(?:[^\"]|\"\")*\"|\\[[^\\]]*\\]|`[^`]*`|[\\p{L}_][\\p{L}\\p{N}_$]*)")

// TriggerTargets returns the tables the body of a CREATE TRIGGER statement
// writes (a rough parse of comment-free SQL; a miss only offers a write
// tool that a trigger also uses).
func TriggerTargets(sql string) []string {
	s, ok := StripStatement(sql)
	if !ok {
		return nil
	}
	up := strings.ToUpper(s)
	begin := strings.Index(up, " BEGIN")
	if begin < 0 {
		return nil
	}
	var out []string
	for _, m := range triggerWriteRE.FindAllStringSubmatch(s[begin:], -1) {
		name := m[1]
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

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// MarkMaintained records that trigger, on table on, writes the tables its
// body names (other than on itself): an audit log, a counter. Tools do
// not offer to write such a table by hand.
func (m *Model) MarkMaintained(trigger, on, sql string) {
	for _, target := range TriggerTargets(sql) {
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
