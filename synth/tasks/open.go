package tasks

import (
	"fmt"
	"maps"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/emit"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Open tasks write a row under rules (toolgen.RuleOpen) for the row the
// chain reached (rent a film for me, hire an employee into a job): every
// field is one the user says or the agent finds by a name the user says
// (a film by its title, then its one copy). The checks are the episode's
// diff after the call: the new row with every column it holds. Where a
// rule forbids it (the copy is out, the salary is outside the job's
// range, the email is taken), the task is a policy task: nothing may
// change, and the answer is the fact that stops it, which only a lookup
// tells.

// opensOn reports whether open action t can be done for cur: its table
// refers to cur's table, and cur is the user or a row with a name.
func opensOn(m *dbmodel.Model, t *toolgen.Tool, cur *entity) bool {
	tb := m.Table(t.Table)
	if tb == nil || len(cur.table.PrimaryKey) != 1 || !cur.person && cur.table.Label == "" {
		return false // a row with no name ("the copy of rental 728") is not whom a row is opened for
	}
	for _, fk := range tb.ForeignKeys {
		if fk.RefTable == cur.table.Name && len(fk.Columns) == 1 {
			return true
		}
	}
	return false
}

// named is a parent row the user names, and how; choice, where the user
// leaves the row to the agent among several (any copy of the film that is
// in), is the SQL query of the right keys in the initial state.
type named struct {
	row    map[string]any
	desc   string
	choice string
}

// openFor opens a row of t's table for cur; a third of the time one its
// rules refuse.
func (w *walker) openFor(c *chain, cur *entity, t *toolgen.Tool) (envpkg.Task, string, error) {
	o, tb := t.Action.Open, w.spec.Model.Table(t.Table)
	refuse := w.rng.IntN(3) == 0
	args := map[string]any{}
	var said []string
	var stop *envpkg.Task // the refusal, once a rule is set up to refuse
	avail, bound := map[string]bool{}, map[string]toolgen.Bound{}
	for _, r := range o.Avail {
		avail[r.Column] = true
	}
	for _, b := range o.Bounds {
		bound[b.Column] = b
	}
	parents := map[string]map[string]any{}
	choices := map[string]string{}
	usedCur := false
	curCol := "" // the column that names cur
	// The row taken (a copy): a second one may be asked in the same task.
	var item *toolgen.Param
	var itemAt int
	var itemFK *dbmodel.ForeignKey
	var itemNamed named
	for _, p := range t.Params {
		col, fk := tb.Column(p.Column), tb.ForeignKeyOf(p.Column)
		if !p.Required && (fk == nil || fk.RefTable != cur.table.Name || usedCur) {
			// (An optional reference to cur is still said: the employee
			// hired reports to the manager who asks, compose_own.go.)
			continue
		}
		switch {
		case fk != nil && fk.RefTable == cur.table.Name && !usedCur && len(fk.RefColumns) == 1:
			args[p.Name], usedCur = argValue(cur.row[fk.RefColumns[0]], p.Type), true
			parents[p.Column], curCol = cur.row, p.Column
		case fk != nil && len(fk.RefColumns) == 1:
			out := avail[p.Column] && refuse && stop == nil
			n, err := w.nameParent(c, tb, o, fk, out)
			if err != nil {
				return envpkg.Task{}, "", err
			}
			args[p.Name], parents[p.Column] = argValue(n.row[fk.RefColumns[0]], p.Type), n.row
			said = append(said, n.desc)
			if n.choice != "" {
				choices[p.Column] = n.choice
			}
			if avail[p.Column] && item == nil {
				item, itemAt, itemFK, itemNamed = &t.Params[indexOfParam(t, p.Name)], len(said)-1, fk, n
			}
			if out && n.choice != "" {
				return envpkg.Task{}, "", errDeadEnd // every copy is out: since when is not one date
			}
			if out {
				since, err := w.sample("SELECT "+dbmodel.Quote(o.Start)+" FROM "+dbmodel.Quote(tb.Name)+" WHERE "+dbmodel.Quote(p.Column)+" = ? AND "+dbmodel.Quote(o.Milestone)+" IS NULL LIMIT 1 OFFSET ?", 1, sqlValue(n.row[fk.RefColumns[0]]))
				if err != nil || !sayable(since) {
					return envpkg.Task{}, "", errDeadEnd
				}
				stop = &envpkg.Task{Instruction: fmt.Sprintf("If it is already taken, change nothing and tell me since when (its %s).", attrWords(o.Start)), Answer: c.answer(tb, o.Start, since)}
			}
		case col != nil && col.Kind == dbmodel.Text && col.TimeLayout != "":
			v, err := w.sample("SELECT max("+dbmodel.Quote(p.Column)+") FROM "+dbmodel.Quote(tb.Name)+" LIMIT 1 OFFSET ?", 1)
			if err != nil || !sayable(v) {
				return envpkg.Task{}, "", errDeadEnd
			}
			args[p.Name] = argValue(v, p.Type)
			said = append(said, attrWords(p.Column)+" "+show(v))
		case col != nil && (col.Kind == dbmodel.Text || col.Kind == dbmodel.Integer || col.Kind == dbmodel.Real):
			if _, ok := bound[p.Column]; ok {
				continue // said once its parent is known
			}
			v, err := w.sample("SELECT "+dbmodel.Quote(p.Column)+" FROM "+dbmodel.Quote(tb.Name)+" WHERE "+dbmodel.Quote(p.Column)+" IS NOT NULL LIMIT 1 OFFSET ?", max(tb.Rows, 1))
			if err != nil || !sayable(v) {
				return envpkg.Task{}, "", errDeadEnd
			}
			if contains(o.Unique, p.Column) {
				holder, err := w.holderOf(tb, p.Column, v)
				if refuse && stop == nil && col.Kind == dbmodel.Text && err == nil {
					// Taken: the user learns whose it is.
					stop = &envpkg.Task{Instruction: fmt.Sprintf("If that %s is already in use, change nothing and tell me whose it is (their %s).", attrWords(p.Column), attrWords(tb.Label)), Answer: c.answer(tb, tb.Label, holder)}
				} else if v, err = w.unusedText(tb, p.Column, v); err != nil {
					return envpkg.Task{}, "", err
				}
			}
			args[p.Name] = argValue(v, p.Type)
			said = append(said, attrWords(p.Column)+" "+show(v))
		default:
			return envpkg.Task{}, "", errDeadEnd
		}
	}
	for _, b := range o.Bounds {
		p := t.Param(paramFor(t, b.Column))
		ref := parents[b.Ref.Column]
		if p == nil || ref == nil {
			return envpkg.Task{}, "", errDeadEnd
		}
		lo, okLo := toFloat(ref[b.Min])
		hi, okHi := toFloat(ref[b.Max])
		if !okLo || !okHi || hi <= lo {
			return envpkg.Task{}, "", errDeadEnd
		}
		v := float64(int64((lo + hi) / 2))
		if refuse && stop == nil {
			v = float64(int64(hi + (hi-lo)/2 + 1))
			stop = &envpkg.Task{Instruction: fmt.Sprintf("If that %s is not allowed for the %s, change nothing and tell me the most it may be.", attrWords(b.Column), noun(w.spec.Model.Table(b.Ref.Parent))),
				Answer: c.answer(w.spec.Model.Table(b.Ref.Parent), b.Max, ref[b.Max])}
		}
		args[p.Name] = argValue(v, p.Type)
		said = append(said, attrWords(b.Column)+" "+show(v))
	}
	if !usedCur || len(said) == 0 {
		return envpkg.Task{}, "", errDeadEnd
	}
	whom := cur.desc
	if cur.person {
		// The instruction says what the new row says of the user: a
		// hire "for me" set manager_id to the user, which a player read
		// nowhere (round 8, hr).
		whom = "me, with me as its " + attrWords(curCol)
	}
	verb, _, _ := strings.Cut(t.Name, "_")
	ask := fmt.Sprintf("%s a new %s for %s: %s", verb, noun(tb), whom, strings.Join(said, ", "))
	if stop != nil {
		// A refusal by another rule is another task (the driver's
		// template cap; hook for the persona path, compose_own.go).
		c.reason = "[refused: " + stop.Instruction + "]"
		return envpkg.Task{Instruction: oneOf(w.rng, "Please "+ask+". "+stop.Instruction, "Could you "+ask+"? "+stop.Instruction),
			Checks: keepChecks(w.spec.Model), Answer: stop.Answer}, "refuse-open", nil
	}
	calls := []map[string]any{args}
	picks := []named{itemNamed}
	if item != nil && w.rng.IntN(2) == 0 {
		// Two at once ("rent the films X and Y for me"): two rows, each
		// checked with its own choice.
		second, err := w.nameParent(c, tb, o, itemFK, false)
		if err != nil {
			return envpkg.Task{}, "", err
		}
		if second.desc == itemNamed.desc {
			return envpkg.Task{}, "", errDeadEnd
		}
		more := maps.Clone(args)
		more[item.Name] = argValue(second.row[itemFK.RefColumns[0]], item.Type)
		calls, picks = append(calls, more), append(picks, second)
		said[itemAt] += " and " + second.desc
		ask = fmt.Sprintf("%s two new %s for %s: %s", verb, plural(tb), whom, strings.Join(said, ", "))
	}
	for _, a := range calls {
		if _, err := w.call(c, t.Name, a); err != nil {
			return envpkg.Task{}, "", err
		}
	}
	changes, err := w.diffChanges()
	if err != nil {
		return envpkg.Task{}, "", err
	}
	for i := range changes {
		ch := &changes[i]
		if ch.kind != "create" || ch.table != tb {
			continue
		}
		if ch.loose == nil {
			ch.loose = map[string]string{}
		}
		unstated(ch, t, args)
		for col, q := range choices {
			if item != nil && col == item.Column {
				// The choice of the row this change took.
				for _, pk := range picks {
					if pk.choice != "" && fmt.Sprint(sqlValue(ch.cols[col])) == fmt.Sprint(sqlValue(pk.row[itemFK.RefColumns[0]])) {
						q = pk.choice
					}
				}
			}
			ch.loose[col] = dbmodel.Quote(col) + " IN (" + q + ")"
		}
	}
	kind := "open"
	if len(calls) > 1 {
		kind = "open-two"
	}
	return envpkg.Task{Instruction: oneOf(w.rng, "Please "+ask+".", "Could you "+ask+"?"), Checks: writeChecks(w.spec.Model, changes, nil)}, kind, nil
}

// indexOfParam is the index of t's parameter named name.
func indexOfParam(t *toolgen.Tool, name string) int {
	for i := range t.Params {
		if t.Params[i].Name == name {
			return i
		}
	}
	return -1
}

// nameParent picks the row of fk's table a new row of tb will refer to
// and says it as a user would: by its name, or, for a row with no name of
// its own (a copy), by its named parent (the film), whichever of its rows
// is free: the agent finds them through the parent, the checks take any. taken: a row with an open
// row of tb (refused by availability); otherwise one without.
func (w *walker) nameParent(c *chain, tb *dbmodel.Table, o *toolgen.Open, fk *dbmodel.ForeignKey, taken bool) (named, error) {
	p := w.spec.Model.Table(fk.RefTable)
	if p == nil || len(p.PrimaryKey) != 1 {
		return named{}, errDeadEnd
	}
	key, ref := dbmodel.Quote(p.PrimaryKey[0]), dbmodel.Quote(fk.Columns[0])
	open := "NOT IN"
	if taken {
		open = "IN"
	}
	where := "1"
	if o.Milestone != "" {
		where = key + " " + open + " (SELECT " + ref + " FROM " + dbmodel.Quote(tb.Name) + " WHERE " + dbmodel.Quote(o.Milestone) + " IS NULL AND " + ref + " IS NOT NULL)"
	} else if taken {
		return named{}, errDeadEnd
	}
	if p.Label != "" {
		k, err := w.sample("SELECT "+key+" FROM "+dbmodel.Quote(p.Name)+" WHERE "+where+" AND "+dbmodel.Quote(p.Label)+" IS NOT NULL ORDER BY 1 LIMIT 1 OFFSET ?", max(p.Rows, 1))
		if err != nil {
			return named{}, err
		}
		row, err := w.rowOf(p, k)
		if err != nil || row == nil || !sayable(row[p.Label]) {
			return named{}, errDeadEnd
		}
		if f := w.findTool(p, p.Label); f != nil {
			if _, err := w.call(c, f.Name, map[string]any{f.Params[0].Name: row[p.Label]}); err != nil {
				return named{}, err
			}
		}
		return named{row: row, desc: "the " + noun(p) + " " + show(row[p.Label])}, nil
	}
	// No name (a copy): any row of a named grandparent (a film) that is
	// free, which the agent finds by the grandparent's name, then its rows;
	// the checks take any of them. A refusal needs every one taken.
	for _, gf := range p.ForeignKeys {
		q := w.spec.Model.Table(gf.RefTable)
		if q == nil || q == p || q.Label == "" || len(gf.Columns) != 1 || len(q.PrimaryKey) != 1 || gf.RefColumns[0] != q.PrimaryKey[0] {
			continue
		}
		list, find := w.childrenTool(p, q, gf.Columns[0]), w.findTool(q, q.Label)
		if list == nil || find == nil {
			continue
		}
		g := dbmodel.Quote(gf.Columns[0])
		// The grandparents whose rows are all free (or, taken, all taken).
		pick := "SELECT " + g + " FROM " + dbmodel.Quote(p.Name) + " GROUP BY 1 HAVING count(*) BETWEEN 1 AND 20 AND sum(" + strings.Replace(where, key, dbmodel.Quote(p.PrimaryKey[0]), 1) + ") = count(*)"
		n, err := w.sample("SELECT count(*) FROM ("+pick+") LIMIT 1 OFFSET ?", 1)
		if err != nil {
			return named{}, err
		}
		cnt, _ := n.(int64)
		if cnt == 0 {
			continue
		}
		gk, err := w.sample(pick+" ORDER BY 1 LIMIT 1 OFFSET ?", cnt)
		if err != nil {
			return named{}, err
		}
		qrow, err := w.rowOf(q, gk)
		if err != nil || qrow == nil || !sayable(qrow[q.Label]) {
			return named{}, errDeadEnd
		}
		k, err := w.sample("SELECT "+key+" FROM "+dbmodel.Quote(p.Name)+" WHERE "+g+" = ? ORDER BY 1 LIMIT 1 OFFSET ?", 1, sqlValue(gk))
		if err != nil {
			return named{}, err
		}
		row, err := w.rowOf(p, k)
		if err != nil || row == nil {
			return named{}, errDeadEnd
		}
		if _, err := w.call(c, find.Name, map[string]any{find.Params[0].Name: qrow[q.Label]}); err != nil {
			return named{}, err
		}
		if _, err := w.call(c, list.Name, map[string]any{list.Params[0].Name: argValue(qrow[q.PrimaryKey[0]], list.Params[0].Type)}); err != nil {
			return named{}, err
		}
		c.noteIDs(w, &entity{table: p, row: row})
		return named{row: row, desc: fmt.Sprintf("the %s %s (whichever one is free)", noun(q), show(qrow[q.Label])),
			choice: "SELECT " + key + " FROM init." + dbmodel.Quote(p.Name) + " WHERE " + g + " IS " + emit.Literal(sqlValue(gk))}, nil
	}
	return named{}, errDeadEnd
}

// childrenTool lists the rows of child that refer to parent through col.
func (w *walker) childrenTool(child, parent *dbmodel.Table, col string) *toolgen.Tool {
	for _, tl := range w.spec.Tools {
		if tl.Kind == toolgen.Children && tl.Table == child.Name && tl.Parent == parent.Name && tl.Via != nil && len(tl.Via.Columns) == 1 && tl.Via.Columns[0] == col {
			return tl
		}
	}
	return nil
}

// holderOf is the label of tb's row whose col is v.
func (w *walker) holderOf(tb *dbmodel.Table, col string, v any) (any, error) {
	if tb.Label == "" || tb.Label == col {
		return nil, errDeadEnd
	}
	h, err := w.sample("SELECT "+dbmodel.Quote(tb.Label)+" FROM "+dbmodel.Quote(tb.Name)+" WHERE "+dbmodel.Quote(col)+" = ? LIMIT 1 OFFSET ?", 1, sqlValue(v))
	if err != nil || !sayable(h) {
		return nil, errDeadEnd
	}
	return h, nil
}

// unusedText makes v, a text of tb's unique column col, one no row has.
func (w *walker) unusedText(tb *dbmodel.Table, col string, v any) (any, error) {
	s, ok := sqlValue(v).(string)
	if !ok {
		return nil, errDeadEnd
	}
	for i := 2; i < 20; i++ {
		cand := fmt.Sprintf("%s%d", s, i)
		n, err := w.sample("SELECT count(*) FROM "+dbmodel.Quote(tb.Name)+" WHERE "+dbmodel.Quote(col)+" = ? LIMIT 1 OFFSET ?", 1, cand)
		if err != nil {
			return nil, err
		}
		if n == int64(0) {
			return cand, nil
		}
	}
	return nil, errDeadEnd
}

// paramFor is t's parameter name for column col.
func paramFor(t *toolgen.Tool, col string) string {
	for _, p := range t.Params {
		if p.Column == col {
			return p.Name
		}
	}
	return ""
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// unstated leaves out of a new row's check the optional columns of open
// action t that the task did not state (args): a right trajectory may
// fill one the user gave or a default (the manager's department for the
// new hire), and the task checks what it asks for, the columns the action
// sets itself and its stamps, not that the rest stays empty.
func unstated(ch *change, t *toolgen.Tool, args map[string]any) {
	if t.Action.Open.Key != nil {
		// A key the call made (a booking code): whichever it drew.
		for _, k := range ch.table.PrimaryKey {
			delete(ch.cols, k)
		}
	}
	for _, p := range t.Params {
		if _, said := args[p.Name]; !said && !p.Required && !p.Stamp {
			delete(ch.cols, p.Column)
		}
	}
}
