package tasks

import (
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// place places a parent with two lines for cur (an invoice for the
// customer): the items named by their names and found by the agent, the
// quantities said, a required date said as the latest the table has; any
// other required field the user could not know ends the walk.
func (w *walker) place(c *chain, cur *entity, t *toolgen.Tool) (envpkg.Task, string, error) {
	a := t.Action
	ln := a.Lines
	parent, item := w.spec.Model.Table(t.Table), w.spec.Model.Table(ln.ItemTable)
	if item == nil || item.Label == "" || item.Column(item.Label) == nil || item.Column(item.Label).Kind != dbmodel.Text {
		return envpkg.Task{}, "", errDeadEnd
	}
	args, said, lp, err := w.ownArgs(t, parent, cur, "")
	if err != nil {
		return envpkg.Task{}, "", err
	}
	for _, f := range lp.Items {
		if f.Required && f.Column != ln.Item && f.Column != ln.Qty {
			return envpkg.Task{}, "", errDeadEnd
		}
	}
	where := dbmodel.Quote(item.Label) + " IS NOT NULL"
	if a.Stock != nil {
		where += " AND " + dbmodel.Quote(a.Stock.Column) + " >= 3"
	}
	n, err := w.count("SELECT count(*) FROM " + dbmodel.Quote(item.Name) + " WHERE " + where)
	if err != nil || n < 2 {
		return envpkg.Task{}, "", errDeadEnd
	}
	var lines []map[string]any
	var parts []string
	seen := map[string]bool{}
	for len(lines) < 2 {
		k, err := w.sample("SELECT "+dbmodel.Quote(item.PrimaryKey[0])+" FROM "+dbmodel.Quote(item.Name)+" WHERE "+where+" ORDER BY 1 LIMIT 1 OFFSET ?", n)
		if err != nil {
			return envpkg.Task{}, "", err
		}
		row, err := w.rowOf(item, k)
		if err != nil || row == nil || !sayable(row[item.Label]) || seen[fmt.Sprint(row[item.Label])] {
			return envpkg.Task{}, "", errDeadEnd
		}
		seen[fmt.Sprint(row[item.Label])] = true
		name, param := "", ""
		if f := w.findTool(item, item.Label); f != nil {
			name, param = f.Name, f.Params[0].Name
		} else if l := w.toolFor(toolgen.List, item.Name); l != nil {
			for _, p := range l.Params {
				if p.Op == toolgen.OpContains && p.Column == item.Label {
					name, param = l.Name, p.Name // search by the name
				}
			}
		}
		if name == "" {
			return envpkg.Task{}, "", errDeadEnd // the agent could not find it by its name
		}
		if _, err := w.call(c, name, map[string]any{param: row[item.Label]}); err != nil {
			return envpkg.Task{}, "", err
		}
		line := map[string]any{}
		qty := int64(1 + w.rng.IntN(2))
		for _, fp := range lp.Items {
			switch fp.Column {
			case ln.Item:
				line[fp.Name] = argValue(row[ln.ItemKey], fp.Type)
			case ln.Qty:
				line[fp.Name] = qty
			}
		}
		lines = append(lines, line)
		part := "the " + noun(item) + " " + show(row[item.Label])
		if ln.Qty != "" {
			part = fmt.Sprintf("%d × %s", qty, part)
		}
		parts = append(parts, part)
	}
	args[lp.Name] = lines
	checks, err := w.callAction(c, t, args)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	whom := "for " + cur.desc
	if cur.person {
		whom = "for me"
	}
	detail := ""
	if len(said) > 0 {
		detail = " (" + strings.Join(said, ", ") + ")"
	}
	what := fmt.Sprintf("a new %s %s%s with %s and %s", noun(parent), whom, detail, parts[0], parts[1])
	return envpkg.Task{Instruction: oneOf(w.rng, fmt.Sprintf("Please place %s.", what), fmt.Sprintf("Could you place %s?", what)), Checks: checks}, "place", nil
}

// ownArgs are the fields of action t (writing a row of tb) that the user
// gives: owner's row for its reference to owner (through column via, or
// any when via is ""), a date said as the latest tb has; the lines
// parameter apart. errDeadEnd when a required field is one the user could
// not know, or t has no lines parameter.
func (w *walker) ownArgs(t *toolgen.Tool, tb *dbmodel.Table, owner *entity, via string) (map[string]any, []string, *toolgen.Param, error) {
	args := map[string]any{}
	var said []string
	var lp *toolgen.Param
	for i := range t.Params {
		p := &t.Params[i]
		if p.Op == toolgen.OpLines {
			lp = p
			continue
		}
		if !p.Required {
			continue
		}
		col := tb.Column(p.Column)
		switch fk := tb.ForeignKeyOf(p.Column); {
		case fk != nil && fk.RefTable == owner.table.Name && (via == "" || p.Column == via):
			args[p.Name] = argValue(owner.row[fk.RefColumns[0]], p.Type)
		case col != nil && col.Kind == dbmodel.Text && col.TimeLayout != "":
			v, err := w.sample("SELECT max("+dbmodel.Quote(p.Column)+") FROM "+dbmodel.Quote(tb.Name)+" LIMIT 1 OFFSET ?", 1)
			if err != nil || v == nil || !sayable(v) {
				return nil, nil, nil, errDeadEnd
			}
			args[p.Name] = argValue(v, p.Type)
			said = append(said, attrWords(p.Column)+" "+show(v))
		default:
			return nil, nil, nil, errDeadEnd
		}
	}
	if lp == nil {
		return nil, nil, nil, errDeadEnd
	}
	return args, said, lp, nil
}

// keepsTotal: the action sums parent's total again after adding its line.
func keepsTotal(a *toolgen.Action, parent string) bool {
	for _, t := range a.Totals {
		if t.Parent == parent {
			return true
		}
	}
	return false
}
