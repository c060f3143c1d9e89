package tasks

import (
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Persona-anchored tasks are the main path, the way τ-bench's tasks go:
// the user says who they are by what people know (the agent finds them:
// one call), the agent lists their rows (one call), reads what it needs
// to decide (one or more), then acts or answers. Where the database has
// people with rows of their own, most attempts start there (anchorShare)
// and go to the composed shapes first (compose.go for a change, tally.go
// for a question); the plain one-row read or edit is what is left when a
// composed shape finds nothing to choose from.

// anchorShare is the share of attempts anchored on a person, where a
// person table has rows of its own.
const anchorShare = 0.8

// owns: some list tool gives rows of another table that refer to t's
// rows ("my orders") and that a composed task may choose among (listRows:
// not people, a ledger, link rows or a timetable).
func (w *walker) owns(t *dbmodel.Table) bool {
	for _, tl := range w.spec.Tools {
		if tl.Kind != toolgen.Children || tl.Parent != t.Name || tl.Table == t.Name {
			continue
		}
		child := w.spec.Model.Table(tl.Table)
		if child != nil && len(child.PrimaryKey) > 0 && countable(child, t) && !ledger(child) && !person(child) && !compound(child) && !schedule(child) {
			return true
		}
	}
	return false
}
