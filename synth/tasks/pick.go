package tasks

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// A choice under a constraint across a reference (issue 34 round 8):
// among the owner's rows the change may apply to, the one picked by a
// condition on the row each refers to ("the one of my rentals whose film
// has the highest rental rate", "my order whose employee was hired
// earliest"). The agent lists the rows, reads the referenced row of each
// candidate (one call per distinct one) and changes the one the condition
// picks; changing another (the second best) is a wrong trajectory the
// gates replay. Ties are excluded when the task is made: the extreme is
// held by one candidate alone.

// maxPickCandidates bounds the rows a pick chooses among; maxPickChain
// the calls of its ground truth (each distinct referenced row is read:
// one call each), within the default MaxChain.
const (
	maxPickCandidates = 12
	maxPickChain      = 8
)

// picked is the row a condition across a reference chooses, the one it
// is most easily taken for, and how the user says the condition.
type picked struct {
	row, second map[string]any
	words       string // "whose film has the highest rental rate"
	reason      string
}

// pickAcross makes a change on the one of owner's rows picked by a
// condition on a row it refers to; errDeadEnd when the data gives no
// clear pick.
func (w *walker) pickAcross(c *chain, owner *entity) (envpkg.Task, string, error) {
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
	var act *toolgen.Tool
	cands := l.items
	if len(acts) > 0 {
		act = acts[w.rng.IntN(len(acts))]
		cands = slices.DeleteFunc(slices.Clone(l.items), func(r map[string]any) bool { return !applies(act.Action, r) })
		if len(cands) < 2 && w.toolFor(toolgen.Update, l.child.Name) != nil {
			act, cands = nil, l.items // none the action may take: an edit
		}
	} else if w.toolFor(toolgen.Update, l.child.Name) == nil {
		return envpkg.Task{}, "", fmt.Errorf("%w: no edit of %s", errDeadEnd, l.child.Name)
	}
	if len(cands) < 2 || len(cands) > maxPickCandidates {
		return envpkg.Task{}, "", fmt.Errorf("%w: %d candidates", errDeadEnd, len(cands))
	}
	p, err := w.pickByReference(c, l, cands)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	_, rows := rowWords(w.spec.Model, l.child, l.fk, owner.table)
	// "the one of my orders that have not been shipped yet whose employee
	// has the earliest hire date": the rows it may apply to, then the pick.
	desc := "the one of " + rowsOf(rows, l.fk, owner) + " " + p.words
	if act != nil {
		among := strings.NewReplacer("that has ", "that have ", "that is ", "that are ").Replace(appliesWords(l.child, act.Action))
		desc = "the one of " + rowsOf(rows, l.fk, owner) + " " + among + " " + p.words
	}
	first := &entity{table: l.child, row: p.row, tool: l.tool.Name, parent: owner, mine: owner.mine, desc: desc}
	first.others = append(first.others, p.second)
	c.entities = append(c.entities, first)
	c.noteIDs(w, first)
	c.reason = "[pick " + p.reason + "]"
	g := group{rows: []map[string]any{p.row}, words: rows}
	mark := len(c.calls)
	var t envpkg.Task
	var kind string
	if act != nil {
		t, kind, err = w.composeAction(c, l.child, g, desc, act, l.fk, owner)
	} else {
		t, kind, err = w.composeEdit(c, l.child, g, first, l.fk, owner)
	}
	if err != nil {
		return envpkg.Task{}, "", err
	}
	if len(c.calls) != mark+1 {
		return envpkg.Task{}, "", fmt.Errorf("%w: %d calls for one change", errDeadEnd, len(c.calls)-mark) // one change, on the row picked
	}
	wrong, ok := w.onAnother(c.calls[mark], p.second)
	if !ok {
		return envpkg.Task{}, "", errDeadEnd
	}
	c.wrong = append(c.wrong, append(slices.Clone(c.calls[:mark]), wrong))
	return t, "pick-" + kind, nil
}

// pickByReference picks the candidate whose referenced row (through one
// of child's references with a Parent tool) is highest or lowest in a
// number or a date, held by it alone. It decides on the source, then reads
// each distinct referenced row with the tool, as the agent must.
func (w *walker) pickByReference(c *chain, l listed, cands []map[string]any) (picked, error) {
	// A reference is read with its parent tool (get_film_of_rental) or
	// the referenced table's get by key.
	type reader struct {
		tool *toolgen.Tool
		via  string
	}
	var refs []reader
	for _, fk := range l.child.ForeignKeys {
		p := w.spec.Model.Table(fk.RefTable)
		if len(fk.Columns) != 1 || fk.Columns[0] == l.fk || p == nil || p == l.child || kindTable(p) || len(p.PrimaryKey) != 1 || fk.RefColumns[0] != p.PrimaryKey[0] {
			continue
		}
		var rt *toolgen.Tool
		for _, t := range w.spec.Tools {
			if t.Kind == toolgen.Parent && t.Table == p.Name && t.Via != nil && len(t.Via.Columns) == 1 && t.Via.Columns[0] == fk.Columns[0] {
				rt = t
			}
		}
		if g := w.toolFor(toolgen.Get, p.Name); rt == nil && g != nil && len(g.Params) >= 1 && g.Params[0].Op == toolgen.OpKey && g.Params[0].Column == p.PrimaryKey[0] {
			rt = g
		}
		if rt != nil {
			refs = append(refs, reader{rt, fk.Columns[0]})
		}
	}
	for _, ri := range w.rng.Perm(len(refs)) {
		rt, via := refs[ri].tool, refs[ri].via
		parent := w.spec.Model.Table(rt.Table)
		rows := make([]map[string]any, len(cands))
		distinct := map[string]bool{}
		for i, r := range cands {
			if r[via] == nil {
				rows = nil
				break
			}
			row, err := w.rowOf(parent, sqlValue(r[via]))
			if err != nil || row == nil {
				rows = nil
				break
			}
			rows[i], distinct[fmt.Sprint(sqlValue(r[via]))] = row, true
		}
		if rows == nil || len(distinct) < 2 || len(c.calls)+len(distinct)+1 > maxPickChain {
			continue // each distinct one is a call, then the change: within the chain's room
		}
		var cols []*dbmodel.Column
		for _, col := range parent.Columns {
			if !parent.IsKey(col.Name) && parent.ForeignKeyOf(col.Name) == nil && !col.ByMachine() && !col.Bool && len(col.Enum) == 0 && (numericCol(col) || dateName(col.Name)) {
				cols = append(cols, col)
			}
		}
		for _, ci := range w.rng.Perm(2 * len(cols)) {
			col, high := cols[ci/2], ci%2 == 0
			best, second, ok := extreme(rows, col, high)
			if !ok {
				continue
			}
			// The calls the agent makes: each distinct referenced row.
			read := map[string]bool{}
			for _, r := range cands {
				k := fmt.Sprint(sqlValue(r[via]))
				if read[k] {
					continue
				}
				read[k] = true
				args, ok := keyArgs(rt, r)
				if rt.Kind == toolgen.Get {
					args, ok = map[string]any{rt.Params[0].Name: argValue(r[via], rt.Params[0].Type)}, true
				}
				if !ok {
					return picked{}, errDeadEnd
				}
				if _, err := w.call(c, rt.Name, args); err != nil {
					return picked{}, err
				}
			}
			most := map[[2]bool]string{{true, true}: "highest", {true, false}: "lowest", {false, true}: "latest", {false, false}: "earliest"}[[2]bool{numericCol(col), high}]
			role := strings.TrimPrefix(rt.Name, "get_")
			if i := strings.LastIndex(role, "_of_"); i > 0 {
				role = role[:i]
			}
			if rt.Kind == toolgen.Get {
				role = noun(parent)
				if r := roleFor(via, parent); r != "" && !ownRole(r, parent) {
					role = r
				}
			}
			return picked{row: cands[best], second: cands[second],
				words:  fmt.Sprintf("whose %s has the %s %s", words(role), most, attrWords(col.Name)),
				reason: fmt.Sprintf("%s.%s %s of %d", parent.Name, col.Name, most, len(cands))}, nil
		}
	}
	return picked{}, fmt.Errorf("%w: no pick among %d references", errDeadEnd, len(refs))
}

// extreme is the index of the row of rows highest (or lowest) in col, held
// by it alone, and of the next one; false on a tie or a value that is no
// number or date.
func extreme(rows []map[string]any, col *dbmodel.Column, high bool) (int, int, bool) {
	key := func(i int) (float64, string, bool) {
		v := sqlValue(rows[i][col.Name])
		if numericCol(col) {
			f, ok := toFloat(v)
			return f, "", ok
		}
		return 0, fmt.Sprint(v), v != nil && calendarDate(v)
	}
	order := make([]int, len(rows))
	for i := range rows {
		if _, _, ok := key(i); !ok {
			return 0, 0, false
		}
		order[i] = i
	}
	cmpAt := func(a, b int) int {
		fa, sa, _ := key(a)
		fb, sb, _ := key(b)
		if numericCol(col) {
			return cmpFloat(fa, fb)
		}
		return cmpString(sa, sb)
	}
	slices.SortStableFunc(order, cmpAt)
	if high {
		slices.Reverse(order)
	}
	if cmpAt(order[0], order[1]) == 0 {
		return 0, 0, false
	}
	return order[0], order[1], true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// applies: action a may change row r (a milestone not yet set, a status
// that may move to a's value).
func applies(a *toolgen.Action, r map[string]any) bool {
	switch a.Rule {
	case toolgen.RuleMilestone:
		return r[a.Column] == nil
	case toolgen.RuleStatus:
		v := fmt.Sprint(sqlValue(r[a.Column]))
		return v != a.Value && (len(a.From) == 0 || slices.Contains(a.From, v))
	}
	return false
}

// appliesWords says which rows a may change: "that has not been shipped
// yet", "that is still pending".
func appliesWords(t *dbmodel.Table, a *toolgen.Action) string {
	if a.Rule == toolgen.RuleMilestone {
		return "that has not been " + a.Value + " yet"
	}
	if col := t.Column(a.Column); col != nil && len(a.From) == 1 {
		return "that is still " + showCol(col, a.From[0])
	}
	if col := t.Column(a.Column); col != nil {
		return "that is not " + showCol(col, a.Value) + " yet"
	}
	return ""
}

// onAnother is call made on row instead (its key arguments replaced).
func (w *walker) onAnother(call envpkg.Call, row map[string]any) (envpkg.Call, bool) {
	tl := w.spec.Tool(call.Name)
	if tl == nil {
		return envpkg.Call{}, false
	}
	var args map[string]any
	if json.Unmarshal(call.Arguments, &args) != nil {
		return envpkg.Call{}, false
	}
	keys, ok := keyArgs(tl, row)
	if !ok || len(keys) == 0 {
		return envpkg.Call{}, false
	}
	for k, v := range keys {
		args[k] = v
	}
	return callOf(call.Name, args)
}

// reasonedShare is the share of composed attempts that try the shapes
// that need reasoning (pick.go, goals.go, arith.go) first.
const reasonedShare = 0.25

// reasoned tries one of shapes (in a random order) on owner, reasonedShare
// of the time: done with its task, or with an error past a write (the
// episode changed); otherwise the chain is as it was, to be composed the
// older ways.
func (w *walker) reasoned(c *chain, owner *entity, shapes ...func(*chain, *entity) (envpkg.Task, string, error)) (envpkg.Task, string, bool, error) {
	if w.rng.Float64() >= reasonedShare {
		return envpkg.Task{}, "", false, nil
	}
	saved := *c
	for _, i := range w.rng.Perm(len(shapes)) {
		t, kind, err := shapes[i](c, owner)
		switch {
		case err == nil:
			return t, kind, true, nil
		case !errors.Is(err, errDeadEnd) || w.wroteSince(c, len(saved.calls)):
			return envpkg.Task{}, "", true, err
		}
		*c = saved
	}
	return envpkg.Task{}, "", false, nil
}
