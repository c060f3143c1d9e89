package tasks

import (
	"fmt"
	"math"
	"slices"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Figures over a group (issue 34): reference and statistics data (match
// results, code lists, rates) has no person who owns rows, so the shapes
// that start from an owner (arith.go, pick.go, goals.go) find nothing.
// There a person selects rows by a value they name (a season, a team, a
// country: a group, toolgen.Figures) and asks a figure over them: the
// total, the average or the spread of a measure over the rows a second
// condition chooses, the row with the largest or smallest measure, or
// which of two groups adds up to more. No call gives the figure: the
// agent lists the group's rows through the list tool that filters by it,
// and does the arithmetic or the comparison itself. The answer is the
// exact number (or the one value), executed from the calls; the figures
// an agent that skipped a step would give are its distractors.

// groupList is a list tool that filters a table by its groups, with the
// table's measures.
type groupList struct {
	tool     *toolgen.Tool
	table    *dbmodel.Table
	groups   map[string]*toolgen.Param // group column → its exact filter
	measures []*dbmodel.Column
}

// groupLists are the list tools offering an exact filter on a group of a
// table with a measure, where the table refers to no other: no one owns
// its rows.
func (w *walker) groupLists() []groupList {
	var out []groupList
	for _, tl := range w.spec.Tools {
		t := w.spec.Model.Table(tl.Table)
		if tl.Kind != toolgen.List || t == nil || len(t.ForeignKeys) > 0 {
			// (A table that refers to another has an owner: its rows are
			// that row's, asked about by the owner shapes, arith.go.)
			continue
		}
		gl := groupList{tool: tl, table: t, groups: map[string]*toolgen.Param{}, measures: w.measures(t)}
		for _, g := range w.groupsOf(t) {
			p := paramOf(tl, g, toolgen.OpEq)
			if p == nil {
				continue
			}
			gl.groups[g] = p
		}
		if len(gl.groups) > 0 && len(gl.measures) > 0 {
			out = append(out, gl)
		}
	}
	return out
}

// paramOf is tl's parameter on col with op, or nil.
func paramOf(tl *toolgen.Tool, col string, op toolgen.Op) *toolgen.Param {
	for i := range tl.Params {
		if p := &tl.Params[i]; p.Column == col && p.Op == op {
			return p
		}
	}
	return nil
}

// byDesign: the design named the figures (the model route): it decides
// which numbers add up, and the English word list (additive) is not
// consulted.
func (w *walker) byDesign() bool {
	return w.spec.FiguresBy == toolgen.FiguresByDesign
}

// isMeasure: col of t adds up across rows: a measure the design named,
// or, without a design, a column the word list takes for an amount (the
// no-model fallback; a schema says no more).
func (w *walker) isMeasure(t *dbmodel.Table, col string) bool {
	if w.byDesign() {
		f := w.spec.FiguresOf(t.Name)
		return f != nil && slices.Contains(f.Measures, col)
	}
	return additive(col)
}

// measures are t's number columns that add up (isMeasure), no key, no
// reference, none a machine writes.
func (w *walker) measures(t *dbmodel.Table) []*dbmodel.Column {
	var out []*dbmodel.Column
	for _, c := range t.Columns {
		if numericCol(c) && !c.Bool && !t.IsKey(c.Name) && t.ForeignKeyOf(c.Name) == nil && !c.ByMachine() && w.isMeasure(t, c.Name) {
			out = append(out, c)
		}
	}
	return out
}

// groupsOf are the columns t's rows are selected by (toolgen.Figures).
func (w *walker) groupsOf(t *dbmodel.Table) []string {
	if f := w.spec.FiguresOf(t.Name); f != nil {
		return f.Groups
	}
	return nil
}

// groupRows samples a value of group col shared by 3 to 100 rows of t and
// lists those rows through gl's tool: the value and the rows.
func (w *walker) groupRows(c *chain, gl groupList, col string, not any) (any, []map[string]any, error) {
	q, tn := dbmodel.Quote(col), dbmodel.Quote(gl.table.Name)
	from := fmt.Sprintf(`FROM %s WHERE %s IS NOT NULL GROUP BY %s HAVING count(*) BETWEEN 3 AND 100`, tn, q, q)
	n, err := dbmodel.QueryInt64(w.src, `SELECT count(*) FROM (SELECT 1 `+from+`)`)
	if err != nil || n < 2 {
		return nil, nil, errDeadEnd // one group: nothing to choose by
	}
	v, err := w.sample(`SELECT `+q+` `+from+` ORDER BY `+q+` LIMIT 1 OFFSET ?`, n)
	if err != nil {
		return nil, nil, err
	}
	if !sayable(v) || not != nil && fmt.Sprint(v) == fmt.Sprint(not) {
		return nil, nil, errDeadEnd
	}
	p := gl.groups[col]
	out, err := w.call(c, gl.tool.Name, map[string]any{p.Name: argValue(v, p.Type), "limit": 100})
	if err != nil {
		return nil, nil, err
	}
	items := pageItems(out)
	m, _ := out.(map[string]any)
	if len(items) < 3 || fmt.Sprint(m["total"]) != fmt.Sprint(len(items)) {
		return nil, nil, errDeadEnd
	}
	return v, items, nil
}

// grouped asks a figure over the rows of a group; errDeadEnd when the
// environment names no group with a measure, or the sampled group gives
// no figure worth asking.
func (w *walker) grouped(c *chain, gls []groupList) (envpkg.Task, string, error) {
	gl := gls[w.rng.IntN(len(gls))]
	cols := make([]string, 0, len(gl.groups))
	for g := range gl.groups {
		cols = append(cols, g)
	}
	slices.Sort(cols)
	g := cols[w.rng.IntN(len(cols))]
	m := gl.measures[w.rng.IntN(len(gl.measures))]
	v, items, err := w.groupRows(c, gl, g, nil)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	total, ints, ok := sumOf(items, m.Name)
	if !ok {
		return envpkg.Task{}, "", errDeadEnd // a row with no number: no single figure
	}
	rows := plural(gl.table)
	desc := fmt.Sprintf("the %s whose %s is %s", rows, attrWords(g), show(v))
	e := &entity{table: gl.table, row: items[0], tool: gl.tool.Name, desc: desc, namedBy: g}
	c.entities = append(c.entities, e)
	c.aggregate = true
	attr := attrWords(m.Name)
	switch w.rng.IntN(4) {
	case 0:
		return w.groupSubset(c, gl, g, m, items, desc, total, ints)
	case 1:
		return w.groupExtreme(c, gl, m, items, desc)
	case 2:
		return w.groupCompare(c, gl, g, m, v, items)
	}
	hi, lo := math.Inf(-1), math.Inf(1)
	for _, r := range items {
		f, _ := toFloat(r[m.Name])
		hi, lo = max(hi, f), min(lo, f)
	}
	if hi == lo {
		return envpkg.Task{}, "", errDeadEnd
	}
	answer, err := countAnswer(number(hi-lo, ints))
	if err != nil {
		return envpkg.Task{}, "", err
	}
	c.said = number(hi-lo, ints)
	c.countRows(gl.table, items...)
	c.distractors = append(c.distractors, number(hi, ints), number(lo, ints), number(total, ints))
	c.reason = fmt.Sprintf("[group spread of %s over %s=%v, %d rows]", m.Name, g, v, len(items))
	return envpkg.Task{Instruction: oneOf(w.rng,
		fmt.Sprintf("Among %s, how much higher is the largest %s than the smallest?", desc, attr),
		fmt.Sprintf("Looking at %s, what is the difference between the highest and the lowest %s?", desc, attr)),
		Answer: answer}, "arith-group-diff", nil
}
