package tasks

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// A reorder is a composed task over a parent written with its lines
// (toolgen.RuleLines): "place a new invoice for me with the same tracks,
// in the same quantities, as my most recent invoice". The user is found,
// their parents listed, the most recent chosen by its date, its lines
// listed, and the action called with those lines: four calls, and the
// parent and every line as checks.

// reorderAction is the action that places a new row of child (the table
// of owner's listed rows) with its lines, nil when there is none.
func (w *walker) reorderAction(child *dbmodel.Table) *toolgen.Tool {
	for _, t := range w.spec.Tools {
		if t.Kind == toolgen.DomainAction && t.Action.Rule == toolgen.RuleLines && t.Table == child.Name && t.Action.Lines != nil {
			return t
		}
	}
	return nil
}

// reorder places a copy of owner's most recent row of items with its
// lines; errDeadEnd when no row is clearly the most recent, or the action
// asks for something the user could not say.
func (w *walker) reorder(c *chain, owner *entity, child *dbmodel.Table, items []map[string]any, fk string, t *toolgen.Tool) (envpkg.Task, string, error) {
	ln := t.Action.Lines
	if len(child.PrimaryKey) != 1 {
		return envpkg.Task{}, "", errDeadEnd
	}
	var latest map[string]any
	var dateCol string
	for _, col := range namingColumns(child) {
		if !dateName(col.Name) {
			continue
		}
		var best map[string]any
		tie := false
		for _, it := range items {
			if !calendarDate(it[col.Name]) {
				best = nil
				break
			}
			switch {
			case best == nil || fmt.Sprint(it[col.Name]) > fmt.Sprint(best[col.Name]):
				best, tie = it, false
			case fmt.Sprint(it[col.Name]) == fmt.Sprint(best[col.Name]):
				tie = true
			}
		}
		if best != nil && !tie {
			latest, dateCol = best, col.Name
			break
		}
	}
	if latest == nil {
		return envpkg.Task{}, "", errDeadEnd
	}
	var lines *toolgen.Tool
	for _, tl := range w.spec.Tools {
		if tl.Kind == toolgen.Children && tl.Table == ln.Table && tl.Parent == child.Name && tl.Via.Columns[0] == ln.Ref {
			lines = tl
		}
	}
	if lines == nil {
		return envpkg.Task{}, "", errDeadEnd
	}
	// The action's own fields: the user's row and a date the user says
	// (the latest the table has); anything else they could not know.
	args, said, lp, err := w.ownArgs(t, child, owner, fk)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	for _, f := range lp.Items {
		if f.Required && f.Column != ln.Item && f.Column != ln.Qty {
			return envpkg.Task{}, "", errDeadEnd
		}
	}
	out, err := w.call(c, lines.Name, map[string]any{lines.Params[0].Name: argValue(latest[child.PrimaryKey[0]], lines.Params[0].Type)})
	if err != nil {
		return envpkg.Task{}, "", err
	}
	rows := pageItems(out)
	if m, _ := out.(map[string]any); len(rows) == 0 || len(rows) > 5 || m == nil || fmt.Sprint(m["total"]) != fmt.Sprint(len(rows)) {
		return envpkg.Task{}, "", errDeadEnd // a short order to repeat, all of it in view
	}
	var ls []map[string]any
	for _, r := range rows {
		l := map[string]any{}
		for _, f := range lp.Items {
			switch f.Column {
			case ln.Item:
				l[f.Name] = argValue(r[ln.Item], f.Type)
			case ln.Qty:
				l[f.Name] = argValue(r[ln.Qty], f.Type)
			}
		}
		ls = append(ls, l)
	}
	args[lp.Name] = ls
	checks, err := w.callAction(c, t, args)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	first := &entity{table: child, row: latest, parent: owner, mine: owner.mine, namedBy: dateCol}
	first.desc = of("most recent "+noun(child), owner)
	c.entities = append(c.entities, first)
	c.noteIDs(w, first)
	whom := "for " + owner.desc
	if owner.person {
		whom = "for me"
	}
	detail := ""
	if len(said) > 0 {
		detail = " (" + strings.Join(said, ", ") + ")"
	}
	what := plural(w.spec.Model.Table(ln.ItemTable))
	same := "the same " + what
	if ln.Qty != "" {
		same += ", in the same quantities,"
	}
	as := "their most recent " + noun(child) // the owner was just named
	if owner.person {
		as = first.desc
	}
	what = fmt.Sprintf("a new %s %s%s with %s as %s", noun(child), whom, detail, same, as)
	return envpkg.Task{Instruction: oneOf(w.rng, fmt.Sprintf("Please place %s.", what), fmt.Sprintf("Could you place %s?", what)), Checks: checks}, "reorder", nil
}
