package compiler

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Source positions: every mistake in env.yaml, tasks.yaml or tasks.jsonl
// is reported as FILE:LINE, the line of the key or list item at fault.

var (
	yamlLineRE   = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	yamlFieldRE  = regexp.MustCompile(`^\s*line (\d+): (.*)$`)
	yamlGoTypeRE = regexp.MustCompile(` in type [\w.\[\]*]+`)
)

// yamlError turns a yaml.v3 error into FILE:LINE errors. yaml.v3 reports
// a syntax error at the line where the enclosing block starts, often a
// line or more before the mistake; the mistake's line is found as the
// shortest prefix of the file that fails with the same message.
func yamlError(path string, src []byte, err error) error {
	if te, ok := err.(*yaml.TypeError); ok {
		var list ErrorList
		for _, e := range te.Errors {
			if m := yamlFieldRE.FindStringSubmatch(e); m != nil {
				list = append(list, &Error{Pos: path + ":" + m[1], Msg: yamlGoTypeRE.ReplaceAllString(m[2], "")})
			} else {
				list = append(list, &Error{Pos: path, Msg: yamlGoTypeRE.ReplaceAllString(e, "")})
			}
		}
		return list
	}
	m := yamlLineRE.FindStringSubmatch(err.Error())
	if m == nil {
		return errAt(path, "%s", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	reported, _ := strconv.Atoi(m[1])
	msg := m[2]
	lines := strings.SplitAfter(string(src), "\n")
	for n := max(reported, 1); n <= len(lines) && n < reported+500; n++ {
		var v any
		perr := yaml.Unmarshal([]byte(strings.Join(lines[:n], "")), &v)
		if pm := yamlLineRE.FindStringSubmatch(fmt.Sprint(perr)); perr != nil && pm != nil && pm[2] == msg {
			return errAt(fmt.Sprintf("%s:%d", path, n), "%s", msg)
		}
	}
	return errAt(fmt.Sprintf("%s:%d", path, reported), "%s", msg)
}

// yamlRoot parses src into a node tree (for positions only).
func yamlRoot(src []byte) *yaml.Node {
	var doc yaml.Node
	if yaml.Unmarshal(src, &doc) != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return &yaml.Node{}
	}
	return doc.Content[0]
}

// keyLine is the line of key in mapping n, or of n itself when absent.
func keyLine(n *yaml.Node, path ...string) int {
	line := n.Line
	for _, key := range path {
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return line
		}
	}
	return line
}

// taskPos is where a task and its parts are in the source.
type taskPos struct {
	file   string
	line   int            // the task's list item (YAML) or line (JSONL)
	keys   map[string]int // lines of the task's keys (YAML)
	calls  []int          // lines of the calls
	checks []int          // lines of the checks' sql
}

// at is FILE:LINE of a part: a key of the task, else the task itself.
func (p taskPos) at(key string) string {
	if l, ok := p.keys[key]; ok {
		return fmt.Sprintf("%s:%d", p.file, l)
	}
	return fmt.Sprintf("%s:%d", p.file, p.line)
}

func (p taskPos) call(i int) string  { return p.item(p.calls, i) }
func (p taskPos) check(i int) string { return p.item(p.checks, i) }

func (p taskPos) item(lines []int, i int) string {
	if i < len(lines) {
		return fmt.Sprintf("%s:%d", p.file, lines[i])
	}
	return fmt.Sprintf("%s:%d", p.file, p.line)
}

// yamlTaskPos reads the positions of the tasks in a tasks.yaml node tree.
func yamlTaskPos(path string, root *yaml.Node) []taskPos {
	var out []taskPos
	if root.Kind != yaml.SequenceNode {
		return out
	}
	for _, item := range root.Content {
		p := taskPos{file: path, line: item.Line, keys: map[string]int{}}
		if item.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(item.Content); i += 2 {
				k, v := item.Content[i], item.Content[i+1]
				p.keys[k.Value] = k.Line
				switch k.Value {
				case "calls":
					for _, c := range v.Content {
						p.calls = append(p.calls, c.Line)
					}
				case "checks":
					for _, c := range v.Content {
						p.checks = append(p.checks, keyLine(c, "sql"))
					}
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// TaskPlace is FILE:LINE of a task in the environment source dir, or of
// its call-th ground-truth call (1-based; 0 for the task itself), for
// reporting problems found after the build. It is "" when the task is not
// found.
func TaskPlace(dir, taskID string, call int) string {
	tasks, pos, err := loadTasks(dir)
	if err != nil {
		return ""
	}
	for i, t := range tasks {
		if t.ID == taskID {
			if call > 0 {
				return pos[i].call(call - 1)
			}
			return pos[i].at("id")
		}
	}
	return ""
}
