package tasks

import (
	"fmt"
	"math"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Arithmetic over rows, answered (issue 34 round 8): a total, a
// difference or an average of a number of the owner's rows, chosen by a
// condition ("how much did I pay in total on my invoices from 2010",
// "how much more was my largest order than my smallest"). No call gives
// the figure: the agent lists the rows, picks those the condition names
// and does the arithmetic. The rule is the exact number (a number rule:
// the gates' sprays and pasted outputs fail it); the figures an agent
// that skipped a step would give (the total of every row, one row's
// value, the largest alone) are its distractors.

// arith asks for a figure over owner's rows; errDeadEnd when they have no
// amount to work on.
func (w *walker) arith(c *chain, owner *entity) (envpkg.Task, string, error) {
	l, err := w.listRows(c, owner)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	var cols []*dbmodel.Column
	for _, col := range l.child.Columns {
		if numericCol(col) && w.isMeasure(l.child, col.Name) && !l.child.IsKey(col.Name) && l.child.ForeignKeyOf(col.Name) == nil && !col.ByMachine() {
			if _, _, ok := sumOf(l.items, col.Name); ok {
				cols = append(cols, col)
			}
		}
	}
	if len(cols) == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	col := cols[w.rng.IntN(len(cols))]
	attr := attrWords(col.Name)
	single, rows := rowWords(w.spec.Model, l.child, l.fk, owner.table)
	total, ints, _ := sumOf(l.items, col.Name)
	if w.rng.IntN(3) == 0 {
		// The difference between the largest and the smallest.
		hi, lo := math.Inf(-1), math.Inf(1)
		for _, r := range l.items {
			f, _ := toFloat(r[col.Name])
			hi, lo = max(hi, f), min(lo, f)
		}
		if hi == lo {
			return envpkg.Task{}, "", errDeadEnd
		}
		said := number(hi-lo, ints)
		answer, err := countAnswer(said)
		if err != nil {
			return envpkg.Task{}, "", err
		}
		c.countRows(l.child, l.items...)
		c.said = said
		c.distractors = append(c.distractors, number(hi, ints), number(lo, ints), number(total, ints))
		first := &entity{table: l.child, row: l.items[0], tool: l.tool.Name, parent: owner, mine: owner.mine, desc: rowsOf(rows, l.fk, owner)}
		c.entities = append(c.entities, first)
		c.reason = fmt.Sprintf("[difference of %s over %d rows]", col.Name, len(l.items))
		mine := rowsOf(rows, l.fk, owner)
		q := oneOf(w.rng,
			fmt.Sprintf("Of %s, how much more is the %s of the one with the highest %s than that of the one with the lowest?", mine, attr, attr),
			fmt.Sprintf("Looking at %s, what is the difference between the largest and the smallest %s of %s?", mine, attr, dbmodel.Article(single)))
		return envpkg.Task{Instruction: q, Answer: answer}, "arith-diff", nil
	}
	g, first, err := w.choose(c, owner, l, nil)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	if g.col == col.Name || len(g.rows) == len(l.items) {
		return envpkg.Task{}, "", errDeadEnd // the figure over the rows the amount chose, or over all: no choice to make
	}
	sum, sints, ok := sumOf(g.rows, col.Name)
	if !ok || sum == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	var each []string
	for _, r := range g.rows {
		f, _ := toFloat(r[col.Name])
		each = append(each, number(f, sints))
	}
	said, kind := number(sum, sints), "arith-sum"
	q := oneOf(w.rng,
		fmt.Sprintf("How much is the %s of %s, all together?", attr, first.desc),
		fmt.Sprintf("What do the %ss of %s add up to?", attr, first.desc))
	if avg := sum / float64(len(g.rows)); w.rng.IntN(2) == 0 && math.Abs(avg*100-math.Round(avg*100)) < 1e-6 && avg != math.Trunc(avg) || w.rng.IntN(4) == 0 && avg == math.Trunc(avg) {
		// An average, where it is exact to the cent.
		said, kind = number(avg, false), "arith-avg"
		q = fmt.Sprintf("What is the average %s of %s?", attr, first.desc)
		each = append(each, number(sum, sints))
	}
	answer, err := countAnswer(said)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	c.said = said
	c.distractors = append(c.distractors, each...)
	if total != sum {
		c.distractors = append(c.distractors, number(total, ints))
	}
	c.reason += " [" + kind + " " + col.Name + "]"
	return envpkg.Task{Instruction: q, Answer: answer}, kind, nil
}
