package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// The composed changes made with the edit tool, where no action is for
// the chosen rows: one value for every row, a flag turned the other way,
// or a change that hangs on a condition over the rows.

// composeEdit sets one column of every row of g to the same value with
// the table's edit tool, where no action is for them.
func (w *walker) composeEdit(c *chain, child *dbmodel.Table, g group, first *entity, fk string, owner *entity) (envpkg.Task, string, error) {
	if shared, err := w.sharedPlace(first); err != nil || shared {
		return envpkg.Task{}, "", errors.Join(err, errDeadEnd)
	}
	desc := first.desc
	if col := child.Column(g.col); col != nil && (g.value == "0" || g.value == "1") {
		return w.flipAll(c, child, g, col, desc)
	}
	ed, err := w.setOne(c, first, false)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	if len(ed.ch.cols) != 1 || ed.col.Name == g.col {
		return envpkg.Task{}, "", errDeadEnd // an address moves as one; the chosen rows keep what chose them
	}
	tool := w.toolFor(toolgen.Update, child.Name)
	p := setParam(tool.Params, ed.col.Name)
	if p == nil {
		return envpkg.Task{}, "", errDeadEnd
	}
	if w.rng.IntN(2) == 0 {
		// The value the user wants may be one some of the chosen rows
		// hold already: the data, not the request, then decides that
		// nothing changes (refuseIfNone).
		if err := w.valueOfAnother(c, g, ed, p); err != nil {
			return envpkg.Task{}, "", err
		}
	}
	attr := attrOf(child, ed.col.Name)
	shown := showCol(ed.col, ed.new)
	c.reason += " [set " + ed.col.Name + "]"
	if day, ok := midnight(ed.new); ok {
		shown = day
	}
	verb := oneOf(w.rng, fmt.Sprintf("change the %s of %s to %s", attr, desc, shown), fmt.Sprintf("set the %s of %s to %s", attr, desc, shown))
	var cond composed
	if len(ed.col.Enum) > 2 && sayable(ed.old) && w.rng.IntN(2) == 0 {
		// "If the cabin of my two most recent reservations is still
		// basic economy on all of them, change it to economy; otherwise
		// change nothing and tell me on how many it is": the data
		// decides the branch.
		old := fmt.Sprint(sqlValue(ed.old))
		same := !slices.ContainsFunc(g.rows, func(r map[string]any) bool { return fmt.Sprint(sqlValue(r[ed.col.Name])) != old })
		expect := old
		if !same || w.rng.IntN(2) == 0 {
			for _, v := range ed.col.Enum {
				if same && v != old && v != fmt.Sprint(ed.new) {
					expect = v
					break
				}
			}
		}
		n := 0
		for _, r := range g.rows {
			if fmt.Sprint(sqlValue(r[ed.col.Name])) == expect {
				n++
			}
		}
		cond = composed{group: desc, verb: fmt.Sprintf("change it to %s on all of them", shown),
			cond: fmt.Sprintf("the %s of %s is still %s on all of them", attr, desc, showCol(ed.col, expect)),
			tell: fmt.Sprintf("on how many of them it is %s", showCol(ed.col, expect))}
		c.reason += fmt.Sprintf(" [if all are %s: %d are]", expect, n)
		if n < len(g.rows) {
			// The condition does not hold: nothing may change.
			c.wrong = append(c.wrong, append([]envpkg.Call{}, c.calls...))
			c.calls = c.calls[:len(c.calls)-1]
			answer, err := countAnswer(fmt.Sprint(n))
			if err != nil {
				return envpkg.Task{}, "", err
			}
			c.said = fmt.Sprint(n)
			c.distractors = append(c.distractors, fmt.Sprint(len(g.rows)))
			return envpkg.Task{Instruction: composedInstruction(w, cond), Checks: keepChecks(w.spec.Model), Answer: answer}, "refuse-if-all", nil
		}
	}
	if t, ok, err := w.refuseIfNone(c, g, ed, desc, attr, shown); ok || err != nil {
		return t, "refuse-if-none", err
	}
	changes := []change{ed.ch}
	for _, r := range g.rows[1:] {
		if fmt.Sprint(sqlValue(r[ed.col.Name])) == fmt.Sprint(ed.new) || !inBand(child, r, ed.col.Name, ed.new) || beforeEvent(child, r, ed.col.Name, ed.new) {
			return envpkg.Task{}, "", errDeadEnd // the change must be one on every row
		}
		args, ok := keyArgs(tool, r)
		if !ok {
			return envpkg.Task{}, "", errDeadEnd
		}
		args[p.Name] = argValue(ed.new, p.Type)
		if ed.col.Bool {
			args[p.Name] = ed.new == int64(1)
		}
		if _, err := w.call(c, tool.Name, args); err != nil {
			return envpkg.Task{}, "", err
		}
		changes = append(changes, change{table: child, kind: "update", row: r, cols: map[string]any{ed.col.Name: ed.new}, name: ed.ch.name})
	}
	distinctNames(changes)
	checks, err := w.writeChecks(changes...)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	if cond.cond != "" {
		return envpkg.Task{Instruction: composedInstruction(w, cond), Checks: checks}, "update-all-if", nil
	}
	r := composed{group: desc, verb: verb}
	if a := action(ed.col, desc, ed.new); a != "" {
		r.verb = a
	}
	return envpkg.Task{Instruction: composedInstruction(w, r), Checks: checks}, "update-all", nil
}

// flipAll sets the flag that chose the rows of g the other way on each
// ("mark the products of the supplier X that are not discontinued as
// discontinued").
func (w *walker) flipAll(c *chain, child *dbmodel.Table, g group, col *dbmodel.Column, desc string) (envpkg.Task, string, error) {
	tool := w.toolFor(toolgen.Update, child.Name)
	if tool == nil {
		return envpkg.Task{}, "", errDeadEnd
	}
	p := setParam(settable(child, tool), col.Name)
	if p == nil {
		return envpkg.Task{}, "", errDeadEnd
	}
	nv := int64(1)
	if g.value == "1" {
		nv = 0
	}
	verb := action(col, desc, nv)
	if verb == "" {
		return envpkg.Task{}, "", errDeadEnd
	}
	var changes []change
	for _, r := range g.rows {
		args, ok := keyArgs(tool, r)
		if !ok {
			return envpkg.Task{}, "", errDeadEnd
		}
		args[p.Name] = argValue(nv, p.Type)
		if col.Bool || p.Type == "boolean" {
			args[p.Name] = nv == 1
		}
		if _, err := w.call(c, tool.Name, args); err != nil {
			return envpkg.Task{}, "", err
		}
		changes = append(changes, change{table: child, kind: "update", row: r, cols: map[string]any{col.Name: nv}, name: fmt.Sprintf("%s set to %s", attrOf(child, col.Name), showCol(col, nv))})
	}
	distinctNames(changes)
	checks, err := w.writeChecks(changes...)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	return envpkg.Task{Instruction: composedInstruction(w, composed{group: desc, verb: verb}), Checks: checks}, "update-all", nil
}

// refuseIfNone: some of the chosen rows already hold the value the user
// wants on all of them, and the user asked for the change only if none
// does ("If none of my two most recent reservations is already in
// business, change them all to business; otherwise change nothing and
// tell me how many are"): the policy's condition, which only reading
// every row tells, decides that nothing changes. The change made on the
// first row in the episode is the wrong trajectory. ok is false when no
// row holds the value (the change is made on all, as asked).
func (w *walker) refuseIfNone(c *chain, g group, ed *edit, desc, attr, shown string) (envpkg.Task, bool, error) {
	already := 0
	for _, r := range g.rows[1:] {
		if fmt.Sprint(sqlValue(r[ed.col.Name])) == fmt.Sprint(ed.new) {
			already++
		}
	}
	if already == 0 || !sayable(ed.new) {
		return envpkg.Task{}, false, nil
	}
	c.reason += fmt.Sprintf(" [if none is already: %d are]", already)
	c.wrong = append(c.wrong, append([]envpkg.Call{}, c.calls...))
	c.calls = c.calls[:len(c.calls)-1]
	answer, err := countAnswer(fmt.Sprint(already))
	if err != nil {
		return envpkg.Task{}, false, err
	}
	c.said = fmt.Sprint(already)
	c.distractors = append(c.distractors, fmt.Sprint(len(g.rows)))
	r := composed{group: desc, verb: fmt.Sprintf("set the %s to %s on all of them", attr, shown),
		cond: fmt.Sprintf("none of %s has %s %s yet", desc, attr, shown),
		tell: fmt.Sprintf("how many of them already have %s %s", attr, shown)}
	return envpkg.Task{Instruction: composedInstruction(w, r), Checks: keepChecks(w.spec.Model), Answer: answer}, true, nil
}

// valueOfAnother makes ed's new value one another chosen row of g holds
// (and the first one does not), where there is one to say: the first
// row's change (the chain's last call) is made with it instead.
func (w *walker) valueOfAnother(c *chain, g group, ed *edit, p *toolgen.Param) error {
	if ed.col.Bool || len(c.calls) == 0 {
		return nil
	}
	for _, r := range g.rows[1:] {
		v := r[ed.col.Name]
		if v == nil || !sayable(v) || fmt.Sprint(sqlValue(v)) == fmt.Sprint(sqlValue(ed.old)) || fmt.Sprint(sqlValue(v)) == fmt.Sprint(sqlValue(ed.new)) {
			continue
		}
		last := &c.calls[len(c.calls)-1]
		var args map[string]any
		if err := json.Unmarshal(last.Arguments, &args); err != nil {
			return err
		}
		if _, ok := args[p.Name]; !ok {
			return nil
		}
		args[p.Name] = argValue(v, p.Type)
		raw, err := json.Marshal(args)
		if err != nil {
			return err
		}
		last.Arguments = raw
		ed.new = v
		ed.ch.cols = map[string]any{ed.col.Name: v}
		return nil
	}
	return nil
}
