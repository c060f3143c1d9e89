package tasks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Action tasks end a chain with a domain action (toolgen.DomainAction) on
// the row reached, or refuse one the rules forbid. One mechanism for every
// action: the action is called in the episode, and the checks are made
// from the episode's diff (every row it touched: the row, the stock it
// took, the line it added), so a task changes as many rows as the action
// does. Where the rules refuse (a row already in the state asked for, a
// stock short of the quantity, a state other than the one the user
// expects) the right result is no change and the fact that stops it,
// which only a lookup tells: the policy's refusals, as tasks.

// actionsOn lists the actions that can end a chain at cur: a status or
// milestone of cur's table, or a line that refers to cur and draws on a
// stock.
func (w *walker) actionsOn(cur *entity) []*toolgen.Tool {
	var out []*toolgen.Tool
	if w.spec == nil {
		return nil // a walker over no toolset (the package's own tests)
	}
	for _, t := range w.spec.Tools {
		if t.Kind != toolgen.DomainAction {
			continue
		}
		switch a := t.Action; a.Rule {
		case toolgen.RuleStatus, toolgen.RuleMilestone:
			if t.Table == cur.table.Name {
				out = append(out, t)
			}
		case toolgen.RuleLines:
			// A parent placed for cur: it refers to cur (an invoice for
			// the customer).
			if p := w.spec.Model.Table(t.Table); p != nil && len(cur.table.PrimaryKey) == 1 {
				for _, fk := range p.ForeignKeys {
					if fk.RefTable == cur.table.Name && len(fk.Columns) == 1 {
						out = append(out, t)
						break
					}
				}
			}
		case toolgen.RuleOpen:
			if opensOn(w.spec.Model, t, cur) {
				out = append(out, t)
			}
		case toolgen.RuleConsume:
			line := w.spec.Model.Table(t.Table)
			for _, fk := range line.ForeignKeys {
				if fk.RefTable == cur.table.Name && len(fk.Columns) == 1 && fk.Columns[0] != a.Stock.Ref && len(cur.table.PrimaryKey) == 1 {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

// hasActions reports whether the toolset has domain actions.
func (w *walker) hasActions() bool {
	return slices.ContainsFunc(w.spec.Tools, func(t *toolgen.Tool) bool { return t.Kind == toolgen.DomainAction })
}

// act ends the chain with one of cur's actions; errDeadEnd when none fits.
func (w *walker) act(c *chain, cur *entity) (envpkg.Task, string, error) {
	acts := w.actionsOn(cur)
	if len(acts) == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	t := acts[w.rng.IntN(len(acts))]
	switch t.Action.Rule {
	case toolgen.RuleConsume:
		return w.consume(c, cur, t)
	case toolgen.RuleLines:
		return w.place(c, cur, t)
	case toolgen.RuleOpen:
		return w.openFor(c, cur, t)
	}
	return w.mark(c, cur, t)
}

// mark moves cur to the action's state; refused (an answer instead) when
// it is there already, or when the user's condition does not hold.
func (w *walker) mark(c *chain, cur *entity, t *toolgen.Tool) (envpkg.Task, string, error) {
	a := t.Action
	col := cur.table.Column(a.Column)
	args, ok := keyArgs(t, cur.row)
	if !ok || col == nil {
		return envpkg.Task{}, "", errDeadEnd
	}
	now := cur.row[a.Column]
	there := a.Rule == toolgen.RuleMilestone && now != nil || a.Rule == toolgen.RuleStatus && fmt.Sprint(sqlValue(now)) == a.Value
	phrase := actionWords(col, cur.desc, a)
	if phrase == "" {
		return envpkg.Task{}, "", errDeadEnd
	}
	if there {
		// Already done: the user learns since when (a stamp that moved
		// with it), which a lookup tells. No policy task: nothing is left
		// for the agent to refuse (the action itself would), so its kind
		// says so ("done-action", round 8's northwind player).
		for _, m := range a.Moves {
			if v := cur.row[m.Column]; v != nil && sayable(v) && m.Column != cur.namedBy {
				return envpkg.Task{Instruction: oneOf(w.rng,
					fmt.Sprintf("Please %s. If that was already done, change nothing and tell me when it was done.", phrase),
					fmt.Sprintf("Could you %s? If it already is, leave it and tell me since when.", phrase)),
					Checks: keepChecks(w.spec.Model), Answer: c.answer(cur.table, m.Column, v)}, "done-action", nil
			}
		}
		return envpkg.Task{}, "", errDeadEnd
	}
	// A designed status moves only from the states its rule names (only a
	// pending order can be cancelled): on a row in another state the
	// action refuses, so the task is that refusal, not a dead end.
	blocked := !applies(a, cur.row)
	if a.Rule == toolgen.RuleStatus && len(col.Enum) > 2 && sayable(now) && a.Column != cur.namedBy && w.rng.IntN(2) == 0 {
		// "If it is still pending, cancel it; otherwise tell me its status."
		was := fmt.Sprint(sqlValue(now))
		expect := was
		if w.rng.IntN(2) == 0 {
			for _, v := range col.Enum {
				if v != was && v != a.Value {
					expect = v
					break
				}
			}
		}
		instr := fmt.Sprintf("If %s is still %s, please %s; otherwise change nothing and tell me its %s.", cur.desc, showCol(col, expect), strings.TrimPrefix(phrase, ""), attrWords(a.Column))
		if expect != was {
			// The condition does not hold: the policy is to leave it.
			c.distractors = append(c.distractors, expect, a.Value)
			return envpkg.Task{Instruction: instr, Checks: keepChecks(w.spec.Model), Answer: c.answer(cur.table, a.Column, now)}, "refuse-if-action", nil
		}
		if !blocked {
			checks, err := w.callAction(c, t, args)
			if err != nil {
				return envpkg.Task{}, "", err
			}
			return envpkg.Task{Instruction: instr, Checks: checks}, "action-if", nil
		}
	}
	if blocked {
		// The rules refuse it from the state the row is in: the user
		// learns that state, which a lookup tells.
		if !sayable(now) || a.Column == cur.namedBy {
			return envpkg.Task{}, "", errDeadEnd
		}
		c.distractors = append(c.distractors, a.Value)
		return envpkg.Task{Instruction: oneOf(w.rng,
			fmt.Sprintf("Please %s. If that is not allowed, change nothing and tell me its %s.", phrase, attrWords(a.Column)),
			fmt.Sprintf("Could you %s? If it can't be, leave it as it is and tell me its %s.", phrase, attrWords(a.Column))),
			Checks: keepChecks(w.spec.Model), Answer: c.answer(cur.table, a.Column, now)}, "refuse-action", nil
	}
	checks, err := w.callAction(c, t, args)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	return envpkg.Task{Instruction: oneOf(w.rng, fmt.Sprintf("Please %s.", phrase), fmt.Sprintf("Could you %s?", phrase)), Checks: checks}, "action", nil
}

// actionWords says the action on target: the domain's verb where the
// status has one ("cancel the order X"), else "mark X as shipped".
func actionWords(col *dbmodel.Column, target string, a *toolgen.Action) string {
	if a.Rule == toolgen.RuleStatus {
		if s := action(col, target, a.Value); s != "" {
			return s
		}
		if !strings.HasSuffix(a.Value, "ed") {
			return "" // "mark the order as pending": not a thing people ask for
		}
		return "mark " + target + " as " + showCol(col, a.Value)
	}
	return "mark " + target + " as " + a.Value
}

// consume adds a line to cur drawing on an item's stock: a quantity the
// stock allows, or (refused) one it does not, when the user learns how
// many there are.
func (w *walker) consume(c *chain, cur *entity, t *toolgen.Tool) (envpkg.Task, string, error) {
	a := t.Action
	line, item := w.spec.Model.Table(t.Table), w.spec.Model.Table(a.Stock.Table)
	if item == nil || item.Label == "" || item.Column(item.Label) == nil || len(cur.table.PrimaryKey) != 1 {
		return envpkg.Task{}, "", errDeadEnd // an item a person cannot name
	}
	// Every parameter must be something the request says or the chain
	// found: the row, the item, the quantity.
	var refParam, refCol string
	for _, p := range t.Params {
		if !p.Required {
			continue
		}
		switch {
		case p.Column == a.Column || p.Column == a.Stock.Ref:
		case line.ForeignKeyOf(p.Column) != nil && line.ForeignKeyOf(p.Column).RefTable == cur.table.Name && refParam == "":
			refParam, refCol = p.Name, p.Column
		default:
			return envpkg.Task{}, "", errDeadEnd
		}
	}
	if refParam == "" {
		return envpkg.Task{}, "", errDeadEnd
	}
	if !keepsTotal(a, cur.table.Name) && w.summedBy(cur.table, line, item, refCol, a.Column, a.Stock.Ref) {
		return envpkg.Task{}, "", errDeadEnd // cur's total sums these lines: one more would leave it wrong
	}
	qc := line.Column(a.Column)
	sc := dbmodel.Quote(a.Stock.Column)
	// An item with some stock, not already on this row's lines.
	n, err := w.count("SELECT count(*) FROM " + dbmodel.Quote(item.Name) + " WHERE " + sc + " >= 1 AND " + dbmodel.Quote(item.Label) + " IS NOT NULL")
	if err != nil || n == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	k, err := w.sample("SELECT "+dbmodel.Quote(item.PrimaryKey[0])+" FROM "+dbmodel.Quote(item.Name)+" WHERE "+sc+" >= 1 AND "+dbmodel.Quote(item.Label)+" IS NOT NULL ORDER BY 1 LIMIT 1 OFFSET ?", n)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	row, err := w.rowOf(item, k)
	if err != nil || row == nil {
		return envpkg.Task{}, "", errDeadEnd
	}
	label, stock := row[item.Label], row[a.Stock.Column]
	if !sayable(label) || stock == nil {
		return envpkg.Task{}, "", errDeadEnd
	}
	have, _ := toFloat(stock)
	itemDesc := "the " + noun(item) + " " + show(label)
	// Find the item the way the agent would: by its name.
	if f := w.findTool(item, item.Label); f != nil {
		if _, err := w.call(c, f.Name, map[string]any{f.Params[0].Name: label}); err != nil {
			return envpkg.Task{}, "", err
		}
	}
	short := w.rng.IntN(3) == 0
	qty := int64(1 + w.rng.IntN(3))
	if qty > int64(have) {
		qty = int64(have)
	}
	if short {
		qty = int64(have) + 1 + int64(w.rng.IntN(3))
	}
	if qc.Kind == dbmodel.Real && !short && have >= 10 {
		qty = 10
	}
	what := attrWords(a.Column)
	ask := fmt.Sprintf("add %s to %s, %s %d", itemDesc, cur.desc, what, qty)
	if short {
		// Refused by the stock rule: the user learns how many there are.
		c.distractors = append(c.distractors, fmt.Sprint(qty))
		return envpkg.Task{Instruction: oneOf(w.rng,
			fmt.Sprintf("Please %s. If there isn't enough, add nothing and tell me the %s's %s.", ask, noun(item), attrWords(a.Stock.Column)),
			fmt.Sprintf("Could you %s? If that is more than there is, leave it and tell me the %s's %s.", ask, noun(item), attrWords(a.Stock.Column))),
			Checks: keepChecks(w.spec.Model), Answer: c.answer(item, a.Stock.Column, stock)}, "refuse-stock", nil
	}
	args := map[string]any{refParam: argValue(cur.row[cur.table.PrimaryKey[0]], "")}
	for _, p := range t.Params {
		switch p.Column {
		case a.Column:
			args[p.Name] = qty
		case a.Stock.Ref:
			args[p.Name] = argValue(row[a.Stock.Key], p.Type)
		}
	}
	for _, p := range t.Params {
		if p.Name == refParam {
			args[p.Name] = argValue(cur.row[cur.table.PrimaryKey[0]], p.Type)
		}
	}
	checks, err := w.callAction(c, t, args)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	return envpkg.Task{Instruction: oneOf(w.rng, fmt.Sprintf("Please %s.", ask), fmt.Sprintf("Could you %s?", ask)), Checks: checks}, "add-line", nil
}

// callAction calls the action and makes the checks from every row the
// episode now differs in: the changes it made, and nothing else.
func (w *walker) callAction(c *chain, t *toolgen.Tool, args map[string]any) ([]envpkg.Check, error) {
	if _, err := w.call(c, t.Name, args); err != nil {
		return nil, err
	}
	return w.diffChecks()
}

// changeOf is the change rec (a row as the episode now holds it) makes to
// tb's row in the initial state: a new row, or the columns that moved.
func (w *walker) changeOf(tb *dbmodel.Table, rec json.RawMessage) (change, error) {
	var now map[string]any
	dec := json.NewDecoder(strings.NewReader(string(rec)))
	dec.UseNumber()
	if err := dec.Decode(&now); err != nil || now == nil {
		return change{}, errDeadEnd // a deleted row: no action deletes
	}
	was, err := w.rowOf(tb, now)
	if err != nil {
		return change{}, err
	}
	if was == nil {
		return change{table: tb, kind: "create", cols: sqlValues(now), name: "the new " + noun(tb) + " is there"}, nil
	}
	cols := map[string]any{}
	for k, v := range now {
		if fmt.Sprint(sqlValue(v)) != fmt.Sprint(sqlValue(was[k])) {
			cols[k] = sqlValue(v)
		}
	}
	return change{table: tb, kind: "update", row: was, cols: cols, name: "the " + noun(tb) + " is changed"}, nil
}

func mapKeysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func sqlValues(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = sqlValue(v)
	}
	return out
}

func toFloat(v any) (float64, bool) {
	switch x := sqlValue(v).(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// count runs a one-number query on the initial state.
func (w *walker) count(sql string) (int64, error) {
	stmt, _, err := w.src.Prepare(sql)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	if !stmt.Step() {
		return 0, stmt.Err()
	}
	return stmt.ColumnInt64(0), nil
}

// rowOf is t's row in the initial state with key (a row's key columns, or
// the value of a one-column key), nil when there is none.
func (w *walker) rowOf(t *dbmodel.Table, key any) (map[string]any, error) {
	var conds []string
	var args []any
	if row, ok := key.(map[string]any); ok {
		for _, k := range t.PrimaryKey {
			conds, args = append(conds, dbmodel.Quote(k)+" IS ?"), append(args, sqlValue(row[k]))
		}
	} else {
		conds, args = append(conds, dbmodel.Quote(t.PrimaryKey[0])+" IS ?"), append(args, sqlValue(key))
	}
	stmt, _, err := w.src.Prepare("SELECT * FROM " + dbmodel.Quote(t.Name) + " WHERE " + strings.Join(conds, " AND "))
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	for i, a := range args {
		if err := dbmodel.Bind(stmt, i+1, a); err != nil {
			return nil, err
		}
	}
	if !stmt.Step() {
		return nil, stmt.Err()
	}
	out := map[string]any{}
	for i := range stmt.ColumnCount() {
		out[stmt.ColumnName(i)] = dbmodel.ColumnValue(stmt, i)
	}
	return out, nil
}

// findTool is the tool that finds a row of t by col (find_, or a get
// whose one key is col), nil when none is offered.
func (w *walker) findTool(t *dbmodel.Table, col string) *toolgen.Tool {
	for _, tl := range w.spec.Tools {
		if tl.Table == t.Name && (tl.Kind == toolgen.Find || tl.Kind == toolgen.Get && len(tl.Params) == 1) && len(tl.Params) == 1 && tl.Params[0].Column == col {
			return tl
		}
	}
	return nil
}
