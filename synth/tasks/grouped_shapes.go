package tasks

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// The shapes over a group's rows (grouped.go).

// groupSubset: a total or an average of measure m over the group's rows
// a second group's value chooses ("the total goals of the matches of
// season 1995 played at home").
func (w *walker) groupSubset(c *chain, gl groupList, g string, m *dbmodel.Column, items []map[string]any, desc string, total float64, ints bool) (envpkg.Task, string, error) {
	var seconds []string
	for col := range gl.groups {
		if col != g {
			seconds = append(seconds, col)
		}
	}
	slices.Sort(seconds)
	if len(seconds) == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	g2 := seconds[w.rng.IntN(len(seconds))]
	// The values of g2 among the rows that choose some, not all, of them.
	byValue := map[string][]map[string]any{}
	var values []string
	for _, r := range items {
		if r[g2] == nil || !sayable(r[g2]) {
			continue
		}
		k := fmt.Sprint(sqlValue(r[g2]))
		if byValue[k] == nil {
			values = append(values, k)
		}
		byValue[k] = append(byValue[k], r)
	}
	values = slices.DeleteFunc(values, func(k string) bool { return len(byValue[k]) < 2 || len(byValue[k]) == len(items) })
	if len(values) == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	v2 := values[w.rng.IntN(len(values))]
	sub := byValue[v2]
	sum, sints, ok := sumOf(sub, m.Name)
	if !ok || sum == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	var each []string
	for _, r := range sub {
		f, _ := toFloat(r[m.Name])
		each = append(each, number(f, sints))
	}
	attr := attrWords(m.Name)
	chosen := fmt.Sprintf("%s and whose %s is %s", desc, attrWords(g2), show(sub[0][g2]))
	said, kind := number(sum, sints), "arith-group-sum"
	q := oneOf(w.rng,
		fmt.Sprintf("What is the total %s of %s?", attr, chosen),
		fmt.Sprintf("What do the %s of %s add up to in all?", attr, chosen))
	if avg := sum / float64(len(sub)); w.rng.IntN(2) == 0 && math.Abs(avg*100-math.Round(avg*100)) < 1e-6 {
		// An average, where it is exact to the cent.
		said, kind = number(avg, avg == math.Trunc(avg)), "arith-group-avg"
		q = fmt.Sprintf("What is the average %s of %s?", attr, chosen)
		each = append(each, number(sum, sints))
	}
	answer, err := countAnswer(said)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	c.said = said
	c.countRows(gl.table, sub...)
	c.distractors = append(c.distractors, each...)
	if total != sum {
		c.distractors = append(c.distractors, number(total, ints))
	}
	c.reason = fmt.Sprintf("[%s of %s over %s, %s=%s, %d of %d rows]", kind, m.Name, g, g2, v2, len(sub), len(items))
	return envpkg.Task{Instruction: q, Answer: answer}, kind, nil
}

// groupExtreme: the row of the group with the largest (or smallest)
// measure, said by the table's label ("which player scored the most goals
// in season 1995").
func (w *walker) groupExtreme(c *chain, gl groupList, m *dbmodel.Column, items []map[string]any, desc string) (envpkg.Task, string, error) {
	t := gl.table
	label := t.Label
	if label == "" || label == m.Name {
		return envpkg.Task{}, "", errDeadEnd
	}
	most := w.rng.IntN(2) == 0
	sorted := slices.Clone(items)
	slices.SortStableFunc(sorted, func(a, b map[string]any) int {
		fa, _ := toFloat(a[m.Name])
		fb, _ := toFloat(b[m.Name])
		if most {
			fa, fb = fb, fa
		}
		switch {
		case fa < fb:
			return -1
		case fa > fb:
			return 1
		}
		return 0
	})
	top, next := sorted[0], sorted[1]
	ft, ok1 := toFloat(top[m.Name])
	fn, ok2 := toFloat(next[m.Name])
	if !ok1 || !ok2 || ft == fn || top[label] == nil || !sayable(top[label]) || fmt.Sprint(top[label]) == fmt.Sprint(next[label]) {
		return envpkg.Task{}, "", errDeadEnd // a tie, or a row with no name: no one answer
	}
	which, kind := "highest", "pick-group-max"
	if !most {
		which, kind = "lowest", "pick-group-min"
	}
	attr := attrWords(m.Name)
	c.entities = append(c.entities, &entity{table: t, row: top, tool: gl.tool.Name, desc: desc})
	c.distractors = append(c.distractors, fmt.Sprint(sqlValue(next[label])))
	c.reason = fmt.Sprintf("[%s %s among %d rows]", kind, m.Name, len(items))
	return envpkg.Task{Instruction: oneOf(w.rng,
		fmt.Sprintf("Among %s, which one has the %s %s? Tell me its %s.", desc, which, attr, attrWords(label)),
		fmt.Sprintf("Of %s, what is the %s of the one with the %s %s?", desc, attrWords(label), which, attr)),
		Answer: c.answer(t, label, top[label])}, kind, nil
}

// groupCompare: which of two values of the group adds up to more of the
// measure, and its total ("which season had more goals, 1995 or 1996, and
// how many"), perhaps over the rows a second group's value chooses in
// both ("at home"): two lists, two sums, a comparison. The answer is the
// larger total: the smaller one, the difference and the totals without
// the second condition are distractors.
func (w *walker) groupCompare(c *chain, gl groupList, g string, m *dbmodel.Column, v any, items []map[string]any) (envpkg.Task, string, error) {
	v2, items2, err := w.groupRows(c, gl, g, v)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	all1, _, ok1 := sumOf(items, m.Name)
	all2, _, ok2 := sumOf(items2, m.Name)
	if !ok1 || !ok2 {
		return envpkg.Task{}, "", errDeadEnd
	}
	// A second condition on both, where another group splits them.
	cond, rows := "", plural(gl.table)
	var others []string
	for col := range gl.groups {
		if col != g {
			others = append(others, col)
		}
	}
	slices.Sort(others)
	if len(others) > 0 && w.rng.IntN(2) == 0 {
		g2 := others[w.rng.IntN(len(others))]
		pick := items[w.rng.IntN(len(items))][g2]
		in := func(rs []map[string]any) []map[string]any {
			var out []map[string]any
			for _, r := range rs {
				if r[g2] != nil && fmt.Sprint(r[g2]) == fmt.Sprint(pick) {
					out = append(out, r)
				}
			}
			return out
		}
		s1, s2 := in(items), in(items2)
		if pick == nil || !sayable(pick) || len(s1) < 2 || len(s2) < 2 || len(s1) == len(items) && len(s2) == len(items2) {
			return envpkg.Task{}, "", errDeadEnd
		}
		items, items2 = s1, s2
		cond = fmt.Sprintf("Counting only the %s whose %s is %s: ", rows, attrWords(g2), show(pick))
	}
	total, ints, _ := sumOf(items, m.Name)
	total2, ints2, _ := sumOf(items2, m.Name)
	if total == total2 {
		return envpkg.Task{}, "", errDeadEnd
	}
	ints = ints && ints2
	hi, lo := max(total, total2), min(total, total2)
	answer, err := countAnswer(number(hi, ints))
	if err != nil {
		return envpkg.Task{}, "", err
	}
	c.said = number(hi, ints)
	c.distractors = append(c.distractors, number(lo, ints), number(hi-lo, ints), number(total+total2, ints))
	if cond != "" {
		c.distractors = append(c.distractors, number(all1, ints), number(all2, ints))
	}
	c.reason = fmt.Sprintf("[group compare %s over %s: %v or %v; %s]", m.Name, g, v, v2, cond)
	attr, gw := attrWords(m.Name), attrWords(g)
	q := oneOf(w.rng,
		fmt.Sprintf("Which adds up to more %s: the %s whose %s is %s, or those whose %s is %s? Tell me that total.", attr, rows, gw, show(v), gw, show(v2)),
		fmt.Sprintf("Comparing the %s with %s %s and those with %s %s, which have the larger total %s, and what is it?", rows, gw, show(v), gw, show(v2), attr))
	if cond != "" {
		q = cond + strings.ToLower(q[:1]) + q[1:]
	}
	return envpkg.Task{Instruction: q, Answer: answer}, "pick-group-compare", nil
}
