package tasks

import (
	"fmt"
	"slices"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Two goals, the second depending on the first (issue 34 round 8): "cancel
// my most recent order that is still pending; if I have none, tell me the
// total of my orders instead". Which branch is right is decided when the
// task is made, from the data: where some row may take the action, the
// most recent of them (by a date, held by it alone) changes and nothing
// else; where none may, nothing changes and the answer is the figure.
// Acting on another row (the second most recent), or answering when a
// row could be changed, does not pass.

// twoGoals makes the task over owner's rows; errDeadEnd when they have no
// action with a date to pick the most recent by.
func (w *walker) twoGoals(c *chain, owner *entity) (envpkg.Task, string, error) {
	l, err := w.listRows(c, owner)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	probe := &entity{table: l.child, row: l.items[0], parent: owner}
	var acts []*toolgen.Tool
	for _, a := range w.actionsOn(probe) {
		if (a.Action.Rule == toolgen.RuleStatus || a.Action.Rule == toolgen.RuleMilestone) && a.Table == l.child.Name {
			acts = append(acts, a)
		}
	}
	if len(acts) == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	act := acts[w.rng.IntN(len(acts))]
	var date string
	for _, col := range l.child.Columns {
		if dateName(col.Name) && !l.child.IsKey(col.Name) && !col.ByMachine() && col.Name != act.Action.Column &&
			!slices.ContainsFunc(l.items, func(r map[string]any) bool { return !calendarDate(r[col.Name]) }) {
			date = col.Name
			break
		}
	}
	col := l.child.Column(act.Action.Column)
	if date == "" || col == nil {
		return envpkg.Task{}, "", errDeadEnd
	}
	cands := slices.DeleteFunc(slices.Clone(l.items), func(r map[string]any) bool { return !applies(act.Action, r) })
	at := func(r map[string]any) string { return fmt.Sprint(sqlValue(r[date])) }
	slices.SortStableFunc(cands, func(a, b map[string]any) int { return -cmpString(at(a), at(b)) })
	if len(cands) >= 2 && at(cands[0]) == at(cands[1]) {
		return envpkg.Task{}, "", errDeadEnd // no one most recent
	}
	_, rows := rowWords(w.spec.Model, l.child, l.fk, owner.table)
	single, _ := rowWords(w.spec.Model, l.child, l.fk, owner.table)
	mine := rowsOf(rows, l.fk, owner)
	target := "my most recent " + single + " " + appliesWords(l.child, act.Action)
	if !owner.person {
		target = "the most recent of " + mine + " " + appliesWords(l.child, act.Action)
	}
	if after := byDate(l.child, l.items, date); after != "" {
		target += " (" + after + ")"
	}
	verb := actionWords(col, target, act.Action)
	if verb == "" {
		return envpkg.Task{}, "", errDeadEnd
	}
	// The figure the user wants when nothing may change: the total of a
	// number of their rows, else how many they have.
	figure, said := "how many "+rows+" I have", fmt.Sprint(len(l.items))
	if !owner.person {
		figure = "how many " + mine + " there are"
	}
	for _, nc := range l.child.Columns {
		if !numericCol(nc) || !w.isMeasure(l.child, nc.Name) || l.child.IsKey(nc.Name) || l.child.ForeignKeyOf(nc.Name) != nil || nc.ByMachine() {
			continue
		}
		total, ints, ok := sumOf(l.items, nc.Name)
		if ok && total != 0 {
			figure, said = "the total "+attrWords(nc.Name)+" of "+mine, number(total, ints)
			break
		}
	}
	if len(cands) == 0 {
		// Where the rows have rows of their own, the figure is about the
		// most recent one's (its payments, its lines): one more list.
		if f, v, ok, err := w.latestFigure(c, l, date, owner, single); err != nil {
			return envpkg.Task{}, "", err
		} else if ok {
			figure, said = f, v
		}
	}
	instr := oneOf(w.rng,
		fmt.Sprintf("Please %s. If there is no such %s, change nothing and tell me %s instead.", verb, single, figure),
		fmt.Sprintf("Could you %s? If I have none, just tell me %s.", verb, figure))
	c.countRows(l.child, l.items...)
	first := &entity{table: l.child, row: l.items[0], tool: l.tool.Name, parent: owner, mine: owner.mine, desc: target}
	c.entities = append(c.entities, first)
	if len(cands) == 0 {
		// The second goal: nothing may change; the figure is the answer.
		answer, err := countAnswer(said)
		if err != nil {
			return envpkg.Task{}, "", err
		}
		c.said = said
		c.distractors = append(c.distractors, fmt.Sprint(len(l.items)-1))
		c.reason = fmt.Sprintf("[two goals: none to %s; %s]", act.Name, figure)
		return envpkg.Task{Instruction: instr, Checks: keepChecks(w.spec.Model), Answer: answer}, "goals-answer", nil
	}
	first.row = cands[0]
	args, ok := keyArgs(act, cands[0])
	if !ok {
		return envpkg.Task{}, "", errDeadEnd
	}
	mark := len(c.calls)
	checks, err := w.callAction(c, act, args)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	if len(cands) > 1 {
		if wrong, ok := w.onAnother(c.calls[mark], cands[1]); ok {
			c.wrong = append(c.wrong, append(slices.Clone(c.calls[:mark]), wrong))
		}
		first.others = append(first.others, cands[1])
	}
	c.reason = fmt.Sprintf("[two goals: %s the most recent of %d]", act.Name, len(cands))
	return envpkg.Task{Instruction: instr, Checks: checks}, "goals-act", nil
}

// sumOf adds col over rows; false when a row has no number there.
func sumOf(rows []map[string]any, col string) (float64, bool, bool) {
	var total float64
	ints := true
	for _, r := range rows {
		f, ok := toFloat(r[col])
		if !ok {
			return 0, false, false
		}
		total += f
		ints = ints && f == float64(int64(f))
	}
	return total, ints, true
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// latestFigure lists the rows of owner's most recent row (by date, held by
// it alone) and says their total amount, else how many there are: the
// figure and its value; false when the rows have none of their own.
func (w *walker) latestFigure(c *chain, l listed, date string, owner *entity, single string) (string, string, bool, error) {
	var subs []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind == toolgen.Children && t.Parent == l.child.Name && t.Table != owner.table.Name && countable(w.spec.Model.Table(t.Table), l.child) &&
			ownRole(roleFor(t.Via.Columns[0], l.child), l.child) {
			subs = append(subs, t)
		}
	}
	if len(subs) == 0 {
		return "", "", false, nil
	}
	rs := slices.Clone(l.items)
	at := func(r map[string]any) string { return fmt.Sprint(sqlValue(r[date])) }
	slices.SortStableFunc(rs, func(a, b map[string]any) int { return -cmpString(at(a), at(b)) })
	// The two most recent, where they are clear (a third is older), else
	// the most recent.
	n := 1
	if len(rs) >= 3 && at(rs[1]) != at(rs[2]) {
		n = 2
	}
	if at(rs[0]) == at(rs[1]) {
		return "", "", false, nil
	}
	sub := subs[w.rng.IntN(len(subs))]
	var items []map[string]any
	for _, r := range rs[:n] {
		key := r[sub.Via.RefColumns[0]]
		if key == nil {
			return "", "", false, nil
		}
		part, err := w.listAll(c, sub, key)
		if err != nil {
			return "", "", false, err
		}
		items = append(items, part...)
	}
	if len(items) == 0 {
		return "", "", false, nil
	}
	grand := w.spec.Model.Table(sub.Table)
	c.countRows(grand, items...)
	_, what := rowWords(w.spec.Model, grand, sub.Via.Columns[0], l.child)
	latest := "my most recent " + single
	if n == 2 {
		latest = "my two most recent " + plural(l.child)
		if _, rows := rowWords(w.spec.Model, l.child, l.fk, owner.table); rows != "" {
			latest = "my two most recent " + rows
		}
	}
	if !owner.person {
		latest = "the most recent of " + rowsOf(plural(l.child), l.fk, owner)
		if n == 2 {
			latest = "the two most recent of " + rowsOf(plural(l.child), l.fk, owner)
		}
	}
	for _, gc := range grand.Columns {
		if numericCol(gc) && w.isMeasure(grand, gc.Name) && !grand.IsKey(gc.Name) && grand.ForeignKeyOf(gc.Name) == nil && !gc.ByMachine() {
			if total, ints, ok := sumOf(items, gc.Name); ok && total != 0 {
				return fmt.Sprintf("the total %s of the %s of %s", attrWords(gc.Name), what, latest), number(total, ints), true, nil
			}
		}
	}
	if n == 2 {
		return fmt.Sprintf("how many %s %s have together", what, latest), fmt.Sprint(len(items)), true, nil
	}
	return fmt.Sprintf("how many %s %s has", what, latest), fmt.Sprint(len(items)), true, nil
}
