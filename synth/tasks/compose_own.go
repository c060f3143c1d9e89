package tasks

import (
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// The persona path draws on every action kind, as it does on the edit
// tool. compose.go makes the status and milestone actions over a group of
// the owner's rows ("return my open rentals"); the actions that write
// rows for the owner itself (open: "rent the films X and Y for me", hire
// an employee who reports to me; lines: place an order; consume: take
// from a stock) are what a person asks for themselves, and are made here
// from the owner the persona path found, with their refusals (a copy
// that is out, a salary outside the job's range) as its policy tasks.
//
// A person's rows may be people too when the reference is a
// self-reference: a manager's reports are "my reports", rows a composed
// task chooses among and changes together (otherPeople).

// ownActions lists the actions that write rows for owner itself.
func (w *walker) ownActions(owner *entity) []*toolgen.Tool {
	var out []*toolgen.Tool
	for _, t := range w.actionsOn(owner) {
		switch t.Action.Rule {
		case toolgen.RuleOpen, toolgen.RuleLines, toolgen.RuleConsume:
			out = append(out, t)
		}
	}
	return out
}

// actFor ends the chain at owner with action t (one of ownActions).
func (w *walker) actFor(c *chain, owner *entity, t *toolgen.Tool) (envpkg.Task, string, error) {
	switch t.Action.Rule {
	case toolgen.RuleOpen:
		return w.openFor(c, owner, t)
	case toolgen.RuleLines:
		return w.place(c, owner, t)
	case toolgen.RuleConsume:
		return w.consume(c, owner, t)
	}
	return envpkg.Task{}, "", errDeadEnd
}

// otherPeople: child's rows are people other than parent's (a customer's
// contacts), whom a person does not choose among as their own rows; a
// self-reference (an employee's reports) is the person's own.
func otherPeople(child, parent *dbmodel.Table) bool {
	return person(child) && child.Name != parent.Name
}
