package tasks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

var (
	askTemplates   = []string{"What is the %s of %s?", "Could you tell me the %s of %s?", "I need the %s of %s. What is it?"}
	countTemplates = []string{"How many %s does %s have?", "Can you count the %s of %s for me?"}
)

// finishRead ends with a question: an attribute of cur, or how many rows
// refer to it (one more call).
func (w *walker) finishRead(c *chain, cur *entity) (envpkg.Task, string, error) {
	// Questions over the rows referring to cur (one more call), or an
	// attribute of cur.
	switch w.rng.IntN(6) {
	case 0:
		if t, err := w.countChildren(c, cur); err == nil {
			return t, "count", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	case 1:
		if t, err := w.countFiltered(c, cur); err == nil {
			return t, "count-filtered", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	case 2:
		if t, err := w.topChild(c, cur); err == nil {
			return t, "top", nil
		} else if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	}
	cols := describable(cur.table)
	w.rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	for _, col := range cols {
		v := cur.row[col.Name]
		if v == nil || !sayable(v) || strings.Contains(cur.desc, " "+dbmodel.Words(col.Name)+" ") {
			continue
		}
		val := show(v)
		if col.Kind == dbmodel.Text && (len(strings.Trim(val, `"`)) < 2) {
			continue
		}
		match := "contains"
		ans := fmt.Sprint(sqlValue(v))
		if _, isNum := sqlValue(v).(string); !isNum {
			match = "number"
		}
		tmpl := askTemplates[w.rng.IntN(len(askTemplates))]
		return envpkg.Task{Instruction: fmt.Sprintf(tmpl, dbmodel.Words(col.Name), cur.desc),
			Answer: &envpkg.Answer{Value: ans, Match: match}}, "ask", nil
	}
	return envpkg.Task{}, "", errDeadEnd
}

func (w *walker) countChildren(c *chain, cur *entity) (envpkg.Task, error) {
	var tools []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind == toolgen.Children && t.Parent == cur.table.Name {
			tools = append(tools, t)
		}
	}
	if len(tools) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	t := tools[w.rng.IntN(len(tools))]
	v := cur.row[t.Via.RefColumns[0]]
	out, err := w.call(c, t.Name, map[string]any{t.Params[0].Name: argValue(v, t.Params[0].Type)})
	if err != nil {
		return envpkg.Task{}, err
	}
	m, _ := out.(map[string]any)
	total := fmt.Sprint(m["total"])
	what := dbmodel.Words(t.Table)
	if !strings.Contains(t.Name, "_of_") {
		what += " (by " + dbmodel.Words(t.Via.Columns[0]) + ")"
	}
	tmpl := countTemplates[w.rng.IntN(len(countTemplates))]
	return envpkg.Task{Instruction: capitalize(fmt.Sprintf(tmpl, what, cur.desc)), Answer: &envpkg.Answer{Value: total, Match: "number"}}, nil
}
