package tasks

import (
	"cmp"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Write tasks change what a person would change by hand: a status to
// another of its allowed values, a flag, a detail set to a value the
// column really holds elsewhere; never a timestamp, a count, a total or a
// balance the data derives, and never rows of a ledger or audit table
// (records of what happened). An update may be conditional ("if the order
// is still pending, cancel it"); when the condition does not hold the
// right result is no change and an answer (a refusal task). Two changes
// may be asked at once.

// finishWrite ends with a change to cur (update or delete) or a new row
// referring to it (create).
func (w *walker) finishWrite(c *chain, cur *entity) (envpkg.Task, string, error) {
	if w.spec != nil && !w.spec.Scope.Allows(cur.table.Name) {
		return w.refuseOutOfScope(c, cur) // not the served person's to change (scope.go)
	}
	if len(w.actionsOn(cur)) > 0 && w.rng.IntN(4) > 0 {
		// What a person does in the domain, where the schema has it.
		mark := len(c.calls)
		t, kind, err := w.act(c, cur)
		if !errors.Is(err, errDeadEnd) {
			return t, kind, err
		}
		for _, call := range c.calls[mark:] {
			if tl := w.spec.Tool(call.Name); tl != nil && tl.Kind.Writes() {
				return envpkg.Task{}, "", err // the episode has the write: this chain is done
			}
		}
		c.calls = c.calls[:mark]
	}
	if person(cur.table) && len(c.entities) > 1 && !cur.mine && !cur.person {
		// "the hire date of the employee of order 10386": a person's
		// record is changed starting from that person.
		return envpkg.Task{}, "", errDeadEnd
	}
	for i, e := range c.entities {
		if i < len(c.entities)-1 && person(e.table) && !e.person && person(cur.table) {
			// Not someone's support rep reached through that customer:
			// a change to a person's record starts from that person
			// (their orders may be reached through them).
			return envpkg.Task{}, "", errDeadEnd
		}
	}
	if sharedReference(cur) || soldLine(cur) {
		return envpkg.Task{}, "", errDeadEnd
	}
	if shared, err := w.sharedPlace(cur); err != nil || shared {
		return envpkg.Task{}, "", cmp.Or(err, errDeadEnd)
	}
	if ledger(cur.table) || c.me && !cur.mine || cur.person && worker(cur.table) {
		// A user speaking of themselves changes what is theirs, not their
		// support rep or their job; an employee does not edit their own
		// record.
		return envpkg.Task{}, "", errDeadEnd
	}
	order := []string{"update", "update", "delete", "create"}
	w.rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, k := range order {
		var t envpkg.Task
		kind := k
		var err error
		switch k {
		case "update":
			t, kind, err = w.update(c, cur)
		case "delete":
			t, err = w.delete(c, cur)
		case "create":
			t, err = w.create(c, cur)
		}
		if err == nil {
			return t, kind, nil
		}
		if !errors.Is(err, errDeadEnd) {
			return t, "", err
		}
	}
	return envpkg.Task{}, "", errDeadEnd
}

// update: one change, perhaps conditional (or a refusal when the condition
// does not hold), perhaps with a second change to the row the chain came
// from. It returns the task's kind.
func (w *walker) update(c *chain, cur *entity) (envpkg.Task, string, error) {
	mark := len(c.calls)
	ed, err := w.setOne(c, cur, true)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	attr := attrWords(ed.col.Name)
	if len(ed.col.Enum) > 2 && ed.old != nil && sayable(ed.old) && ed.col.Name != cur.namedBy && w.rng.IntN(2) == 0 {
		// (Not when the row was named by this very value: "if my pending
		// order is still pending".)
		old := fmt.Sprint(sqlValue(ed.old))
		// "If my order is still pending" for a status; "if the size of X
		// is still M" for other values.
		subj, then, its := of(attr, cur), "change it to "+showCol(ed.col, ed.new), "tell me what it is"
		if l := strings.ToLower(ed.col.Name); (strings.Contains(l, "status") || strings.Contains(l, "state")) && !cur.person {
			subj, then, its = cur.desc, "change its "+attr+" to "+showCol(ed.col, ed.new), "tell me its "+attr
		}
		if a := action(ed.col, "it", ed.new); a != "" {
			then = a // "If order ORD-1 is still pending, please cancel it."
		}
		if w.rng.IntN(2) == 0 {
			// The condition holds: the change is made.
			checks, err := w.writeChecks(ed.ch)
			if err != nil {
				return envpkg.Task{}, "", err
			}
			return envpkg.Task{Instruction: oneOf(w.rng,
				fmt.Sprintf("If %s is still %s, please %s.", subj, showCol(ed.col, old), then),
				fmt.Sprintf("Please check whether %s is %s; if it is, %s.", subj, showCol(ed.col, old), then)),
				Checks: checks}, "update-if", nil
		}
		// The condition does not hold: nothing may change, and the user
		// wants to know why.
		var cond string
		for _, v := range ed.col.Enum {
			if v != old && v != fmt.Sprint(ed.new) && (!inferredStatus(ed.col) || openState(v)) {
				cond = v
				break
			}
		}
		if cond != "" {
			c.wrong = append(c.wrong, append([]envpkg.Call{}, c.calls...))
			c.calls = c.calls[:mark]
			c.distractors = append(c.distractors, cond, fmt.Sprint(ed.new))
			return envpkg.Task{Instruction: oneOf(w.rng,
				fmt.Sprintf("If %s is still %s, please %s. If not, leave it as it is and %s.", subj, showCol(ed.col, cond), then, its),
				fmt.Sprintf("I think %s is %s; if so, %s. Otherwise don't change anything, just %s.", subj, showCol(ed.col, cond), then, its)),
				Checks: keepChecks(w.spec.Model), Answer: c.answer(cur.table, ed.col.Name, ed.old)}, "refuse-if", nil
		}
	}
	changes := []change{ed.ch}
	clause := ed.clause
	kind := "update"
	if len(c.entities) >= 2 && !ed.moved && c.entities[len(c.entities)-2].person {
		// Only when the user speaks of themselves ("cancel my order
		// ORD-1, and change my phone to ..."): two edits to someone
		// else's rows read as a template ("deactivate the customer of
		// rental 99, and set the return date of that rental").
		prev := c.entities[len(c.entities)-2]
		if prev.table.Name != cur.table.Name && (prev.mine || !c.me) && !(prev.person && worker(prev.table)) {
			// An address is a request of its own, not one of two.
			// The row was just named: "..., and change the phone of that
			// customer to ..." (a pronoun could be read as the other row).
			desc := prev.desc
			if !prev.person {
				prev.desc = "that " + noun(prev.table)
			}
			ed2, err := w.setOne(c, prev, false)
			prev.desc = desc
			if err == nil {
				changes = append(changes, ed2.ch)
				clause += ", and " + ed2.clause
				kind = "update-two"
			} else if !errors.Is(err, errDeadEnd) {
				return envpkg.Task{}, "", err
			}
		}
	}
	checks, err := w.writeChecks(changes...)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	if kind == "update" && action(ed.col, actionTarget(cur), ed.new) != "" {
		// "Please deactivate the customer X.": an action needs no
		// "it changed recently".
		return envpkg.Task{Instruction: oneOf(w.rng, fmt.Sprintf("Please %s.", clause), fmt.Sprintf("Could you %s?", clause)), Checks: checks}, kind, nil
	}
	motive := oneOf(w.rng, updateMotives...)
	if dateName(ed.col.Name) {
		// A birth or hire date does not change: it was wrong.
		motive = oneOf(w.rng, fixMotives...)
	}
	if ed.moved {
		motive = oneOf(w.rng, "They have moved", "The address changed")
		if cur.person || c.me && cur.parent != nil && cur.parent.person && !worker(cur.parent.table) {
			// My own address, or my order's: I have moved (not my
			// customer's order's).
			motive = oneOf(w.rng, "I've moved", "I moved recently")
		}
	}
	return envpkg.Task{Instruction: oneOf(w.rng,
		fmt.Sprintf("Please %s.", clause),
		fmt.Sprintf("%s: could you %s?", motive, clause),
		fmt.Sprintf("Could you %s? %s.", clause, motive)),
		Checks: checks}, kind, nil
}

func (w *walker) delete(c *chain, cur *entity) (envpkg.Task, error) {
	tool := w.toolFor(toolgen.Delete, cur.table.Name)
	if len(cur.table.ForeignKeys) == 0 && !person(cur.table) {
		// A country, a language, a genre: reference data no one deletes
		// "by mistake"; rows that belong to something (a track, an
		// invoice, a film's category) and people who left are deleted.
		return envpkg.Task{}, errDeadEnd
	}
	if tool == nil || cur.person || len(c.entities) < 2 && w.rng.IntN(2) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	args, ok := keyArgs(tool, cur.row)
	if !ok {
		return envpkg.Task{}, errDeadEnd
	}
	if w.derivedParent(cur.table) {
		return envpkg.Task{}, errDeadEnd // a parent's total would be wrong (an invoice line's invoice)
	}
	if schedule(cur.table) {
		return envpkg.Task{}, errDeadEnd // "delete the most recent date of flight X" has no motive
	}
	unlink, err := w.unlinkWords(cur)
	if err != nil {
		return envpkg.Task{}, err
	}
	if unlink == "" && compound(cur.table) {
		// "Delete the only actor of the film X": a link row goes as
		// "take X out of Y", or not at all.
		return envpkg.Task{}, errDeadEnd
	}
	if _, err := w.call(c, tool.Name, args); err != nil {
		return envpkg.Task{}, err
	}
	for _, o := range cur.others {
		if wrong, ok := keyArgs(tool, o); ok {
			if call, ok := callOf(tool.Name, wrong); ok {
				c.wrong = append(c.wrong, append(append([]envpkg.Call{}, c.calls[:len(c.calls)-1]...), call))
			}
			break
		}
	}
	checks, err := w.writeChecks(change{table: cur.table, kind: "delete", row: cur.row, name: "the " + noun(cur.table) + " is gone"})
	if err != nil {
		return envpkg.Task{}, err
	}
	if unlink != "" {
		return envpkg.Task{Instruction: unlink, Checks: checks}, nil
	}
	if person(cur.table) {
		// A person is not "it", and leaves rather than being a mistake.
		return envpkg.Task{Instruction: oneOf(w.rng,
			fmt.Sprintf("Please remove %s from the records: they have left.", cur.desc),
			fmt.Sprintf("%s has left: could you delete their record?", capitalize(cur.desc))),
			Checks: checks}, nil
	}
	motive := oneOf(w.rng, deleteMotives...)
	return envpkg.Task{Instruction: oneOf(w.rng,
		fmt.Sprintf("Please delete %s; %s.", cur.desc, motive),
		fmt.Sprintf("Could you remove %s? %s.", cur.desc, capitalize(motive)),
		fmt.Sprintf("%s should go: %s.", capitalize(cur.desc), motive)),
		Checks: checks}, nil
}

// writeChecks are the checks of the changes the chain just made: the
// tables the ground truth changed besides the changed ones are the
// database's own doing (triggers), allowed to differ.
func (w *walker) writeChecks(changes ...change) ([]envpkg.Check, error) {
	return writeChecks(w.spec.Model, changes, w.allowed(changes)), nil
}

// allowed lists the tables this chain's writes changed besides the ones
// asked for (a trigger's doing), from this episode's diff. Each task's
// own: a trigger with a WHEN fires for some tasks of the same tools and
// not others, so what one task allows says nothing of the next (a cache by
// tools once dropped every task that fired the trigger after a first that
// did not, and which survived depended on the sampling order).
func (w *walker) allowed(changes []change) []string {
	d, err := w.ep.Diff()
	if err != nil {
		return nil // the gates replay the task: a missing allowance drops it there
	}
	var allowed []string
	for name := range d {
		named := false
		for _, c := range changes {
			named = named || c.table.Name == name
		}
		if !named && w.spec.Model.Table(name) != nil {
			allowed = append(allowed, name)
		}
	}
	sort.Strings(allowed)
	return allowed
}
