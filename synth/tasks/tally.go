package tasks

import (
	"fmt"
	"math"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// A tally is a composed question: the rows the user names by a condition
// ("my two most recent orders") are listed, then the rows of each of
// them, and the answer adds them up across both ("how many lines do they
// have together", "what is the total quantity"): arithmetic over rows
// that no one call gives, one call per chosen row.

// tally asks for a count or a sum over the rows of the rows chosen from
// owner's; errDeadEnd when they have none to add up.
func (w *walker) tally(c *chain, owner *entity) (envpkg.Task, string, error) {
	if t, kind, done, err := w.reasoned(c, owner, w.arith); done {
		return t, kind, err // arithmetic over the rows themselves (arith.go)
	}
	l, err := w.listRows(c, owner)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	var subs []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind == toolgen.Children && t.Parent == l.child.Name && t.Table != owner.table.Name && countable(w.spec.Model.Table(t.Table), l.child) &&
			ownRole(roleFor(t.Via.Columns[0], l.child), l.child) {
			subs = append(subs, t)
		}
	}
	if len(subs) == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	sub := subs[w.rng.IntN(len(subs))]
	grand := w.spec.Model.Table(sub.Table)
	g, first, err := w.choose(c, owner, l, nil)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	// What is added: a quantity or an amount of the rows, else the rows.
	var col *dbmodel.Column
	for _, gc := range grand.Columns {
		if numericCol(gc) && w.isMeasure(grand, gc.Name) && !grand.IsKey(gc.Name) && grand.ForeignKeyOf(gc.Name) == nil && !gc.ByMachine() && w.rng.IntN(2) == 0 {
			col = gc
			break
		}
	}
	_, what := rowWords(w.spec.Model, grand, sub.Via.Columns[0], l.child)
	// Rows called by what they refer to ("orders" for a product's order
	// lines) are counted as those: distinct orders, not lines.
	by := namedByReference(w.spec.Model, grand, sub.Via.Columns[0], what)
	if col != nil {
		by = nil
	}
	seen := map[string]bool{}
	lines := 0
	var total float64
	ints := true
	var each []string
	for _, r := range g.rows {
		key := r[sub.Via.RefColumns[0]]
		if key == nil {
			return envpkg.Task{}, "", errDeadEnd
		}
		items, err := w.listAll(c, sub, key)
		if err != nil {
			return envpkg.Task{}, "", err
		}
		c.countRows(grand, items...)
		part := float64(len(items))
		if by != nil {
			part = 0
			for _, it := range items {
				k := fmt.Sprint(sqlValue(it[by.Columns[0]]))
				if it[by.Columns[0]] == nil {
					return envpkg.Task{}, "", errDeadEnd
				}
				if !seen[k] {
					part++ // a row only the first of its parents counts
				}
				seen[k] = true
			}
		}
		if col != nil {
			part = 0
			for _, it := range items {
				f, ok := toFloat(it[col.Name])
				if !ok {
					return envpkg.Task{}, "", errDeadEnd // a missing amount: no sum a person would state
				}
				part += f
				ints = ints && f == math.Trunc(f)
			}
		}
		total += part
		lines += len(items)
		each = append(each, number(part, ints))
	}
	if by != nil {
		c.counted = nil // the lines' keys are no names of the orders
	}
	if total == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	said := number(total, ints)
	answer, err := countAnswer(said)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	c.said = said
	// The figure of one row alone is the likeliest wrong answer.
	c.distractors = append(c.distractors, each...)
	if by != nil {
		c.distractors = append(c.distractors, fmt.Sprint(lines)) // the lines counted as orders
	}
	var q string
	if col != nil {
		attr := attrWords(col.Name)
		q = oneOf(w.rng,
			fmt.Sprintf("What is the total %s of the %s of %s, all together?", attr, what, first.desc),
			fmt.Sprintf("Adding up the %s of %s, what is their total %s?", what, first.desc, attr))
	} else {
		q = oneOf(w.rng,
			fmt.Sprintf("How many %s do %s have together?", what, first.desc),
			fmt.Sprintf("Counting them all, how many %s are there on %s?", what, first.desc))
	}
	kind := "tally-count"
	c.reason += " [" + sub.Name + "]"
	if col != nil {
		kind = "tally-sum"
		c.reason += " [sum " + col.Name + "]"
	}
	return envpkg.Task{Instruction: q, Answer: answer}, kind, nil
}
