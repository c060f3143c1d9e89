package gates

import (
	"bytes"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/canonjson"
	"github.com/wasmenv/wasmenv/runtime"
)

func failed(s runtime.Score) string {
	var names []string
	for _, r := range s.Checks {
		if !r.Passed {
			n := r.Name
			if r.Error != "" {
				n += " (" + clip(r.Error) + ")"
			}
			names = append(names, n)
		}
	}
	return strings.Join(names, "; ")
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func callsKey(t envpkg.Task) string {
	var b bytes.Buffer
	for _, c := range t.Calls {
		b.WriteString(c.Name)
		b.WriteByte('(')
		b.WriteString(canonjson.Arguments(c.Arguments)) // {"a":null} is {}: the runtime reads them alike
		b.WriteString(")\n")
	}
	return b.String()
}

// checksKey identifies a task's checks and answer; "" for a task with no
// checks, whose answer alone says nothing about sameness (two different
// questions may both have the answer 1).
func checksKey(t envpkg.Task) string {
	sqls := make([]string, 0, len(t.Checks)+1)
	for _, c := range t.Checks {
		if c.Guard {
			continue // "nothing else changed" says nothing about what is asked
		}
		sqls = append(sqls, strings.Join(strings.Fields(c.SQL), " "))
	}
	if len(sqls) == 0 {
		return ""
	}
	sort.Strings(sqls)
	if t.Answer != nil {
		sqls = append(sqls, "answer:"+t.Answer.Match+":"+t.Answer.Value)
	}
	return strings.Join(sqls, "\n")
}

func normInstr(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// canonJSON re-encodes JSON with sorted keys so equal arguments compare equal.
// containsToken reports whether id occurs in s as a whole token: not
// inside a longer run of letters, digits, '-' and '_' ("1479" is not in
// "14790", "978" is not in the ISBN "978-0009061").
func containsToken(s, id string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], id)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(id)
		if (start == 0 || !isAlnum(s[start-1])) && (end == len(s) || !isAlnum(s[end])) {
			return true
		}
		i = start + 1
	}
}

func isAlnum(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80 || b == '-' || b == '_'
}
