package tasks

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Composed tasks: a person's request as a short chain over related rows.
// The user (or the row they start from) is found by what a person knows;
// the rows that refer to it are listed through the reference; some of
// them are chosen by a condition on the data the user states ("my
// pending orders", "my two most recent rentals"); and the same change is
// made on each, with the domain's action where there is one, else the
// edit tool. Where the rules refuse the change for some of the chosen
// rows (already in that state, or in one the action does not move
// from), the right result is to change the others and say how many
// were refused: the policy, not the request, decides.
// Each chosen row is one call, so the ground truth is as long as the
// request needs (find, list, one change per row) and every row touched is
// checked.
//
// The task's ground truth (calls, checks, answer) comes from the episode;
// its instruction is made in one place, composedInstruction, from a
// composed value that a model route may reword.

// composed is what a composed task asks, before it is worded.
type composed struct {
	group   string // the chosen rows as the user names them: "my pending orders"
	verb    string // the change said for the group: "cancel my pending orders"
	refused string // the column whose state the rules refuse from ("" when none may be refused)
	// blocked: some rows are refused for a state the action does not
	// move from (not only for being in its state already).
	blocked bool
	ask     string // what the user wants to know after the change: "how many of my orders are shipped now" ("" for none)
	motive  string // why, for a plain edit ("" for an action)
	// cond is a condition on the data the change depends on ("the cabin
	// of my two most recent reservations is still economy on all of
	// them"), and tell what the user wants to know when it does not hold.
	cond, tell string
}

// composedInstruction words a composed request.
func composedInstruction(w *walker, r composed) string {
	var s string
	switch {
	case r.cond != "":
		s = oneOf(w.rng,
			fmt.Sprintf("If %s, please %s. If not, change nothing and tell me %s.", r.cond, r.verb, r.tell),
			fmt.Sprintf("Please check whether %s; if so, %s. Otherwise leave them as they are and just tell me %s.", r.cond, r.verb, r.tell))
	case r.refused != "" && r.blocked:
		s = oneOf(w.rng,
			fmt.Sprintf("Please %s. Any that may not be changed any more, leave as it is, and tell me how many of them that was.", r.verb),
			fmt.Sprintf("Could you %s? Where that is not allowed, don't touch it; just tell me how many of them could not be changed.", r.verb))
	case r.refused != "":
		s = oneOf(w.rng,
			fmt.Sprintf("Please %s. Any that already is, leave as it is, and tell me how many of them were already.", r.verb),
			fmt.Sprintf("Could you %s? If some of them already are, don't touch those; just tell me how many there were.", r.verb))
	case r.motive != "":
		s = oneOf(w.rng, fmt.Sprintf("%s: could you %s?", r.motive, r.verb), fmt.Sprintf("Please %s. %s.", r.verb, r.motive))
	default:
		s = oneOf(w.rng, fmt.Sprintf("Please %s.", r.verb), fmt.Sprintf("Could you %s?", r.verb))
	}
	if r.ask != "" {
		s += oneOf(w.rng, " Then tell me "+r.ask+".", " Afterwards, tell me "+r.ask+".")
	}
	return s
}

// group is a set of rows chosen from a list by a stated condition.
type group struct {
	rows  []map[string]any
	words string // "pending orders", "two most recent orders"
	after string // words after the owner: "that are not discontinued" ("" for none)
	col   string // the column the condition rests on
	value string // the status value the rows share ("" for a date order)
	// act is the action the rows are waiting for (the orders not shipped
	// yet: mark_order_shipped), nil when the group is not chosen by one.
	act *toolgen.Tool
}

// listed is the rows of one table that refer to the owner, all in view.
type listed struct {
	tool  *toolgen.Tool
	child *dbmodel.Table
	fk    string
	items []map[string]any
}

// listRows lists the rows of a table that refer to owner (through its
// own reference: "my orders", "the products of the supplier X").
func (w *walker) listRows(c *chain, owner *entity) (listed, error) {
	var lists []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind == toolgen.Children && t.Parent == owner.table.Name && !kindTable(owner.table) &&
			countable(w.spec.Model.Table(t.Table), owner.table) &&
			(owner.mine || ownRole(roleFor(t.Via.Columns[0], owner.table), owner.table)) {
			lists = append(lists, t)
		}
	}
	if len(lists) == 0 {
		return listed{}, errDeadEnd
	}
	lt := lists[w.rng.IntN(len(lists))]
	child := w.spec.Model.Table(lt.Table)
	if child == nil || len(child.PrimaryKey) == 0 || ledger(child) || otherPeople(child, owner.table) || compound(child) || schedule(child) {
		return listed{}, errDeadEnd
	}
	v := owner.row[lt.Via.RefColumns[0]]
	if v == nil {
		return listed{}, errDeadEnd
	}
	items, err := w.listAll(c, lt, v)
	if err != nil || len(items) < 2 {
		return listed{}, cmp.Or(err, errDeadEnd)
	}
	return listed{tool: lt, child: child, fk: lt.Via.Columns[0], items: items}, nil
}

// listAll calls the list tool lt for the rows referring to key, all of
// them in one page (a page holds 20 by default; up to 100 asked for):
// errDeadEnd when there are more.
func (w *walker) listAll(c *chain, lt *toolgen.Tool, key any) ([]map[string]any, error) {
	args := map[string]any{lt.Params[0].Name: argValue(key, lt.Params[0].Type)}
	for _, p := range lt.Params {
		if p.Op == toolgen.OpLimit {
			args[p.Name] = 100
		}
	}
	out, err := w.call(c, lt.Name, args)
	if err != nil {
		return nil, err
	}
	items := pageItems(out)
	if m, _ := out.(map[string]any); m == nil || fmt.Sprint(m["total"]) != fmt.Sprint(len(items)) {
		return nil, errDeadEnd // the rows must all be in view to choose among or add up
	}
	return items, nil
}

// choose picks the rows of l the user names by a condition, and notes
// them in the chain: the first as the chain's entity, the others as the
// rows it could be taken for.
func (w *walker) choose(c *chain, owner *entity, l listed, acts []*toolgen.Tool) (group, *entity, error) {
	_, rows := rowWords(w.spec.Model, l.child, l.fk, owner.table)
	g, ok := w.chooseGroup(l.child, l.items, rows, acts)
	if !ok {
		return group{}, nil, errDeadEnd
	}
	first := &entity{table: l.child, row: g.rows[0], tool: l.tool.Name, parent: owner, mine: owner.mine, namedBy: g.col}
	first.desc = rowsOf(g.words, l.fk, owner)
	if g.after != "" {
		first.desc += " " + g.after // "the products of the supplier X that are not discontinued"
	}
	first.others = append(first.others, g.rows[1:]...)
	c.entities = append(c.entities, first)
	for _, r := range g.rows {
		c.noteIDs(w, &entity{table: l.child, row: r})
	}
	c.countRows(l.child, g.rows...) // what a count over them may name
	if sharedReference(first) || soldLine(first) {
		return group{}, nil, errDeadEnd
	}
	c.reason = fmt.Sprintf("[%s: %s=%s, %d rows]", strings.TrimSpace(g.words+" "+g.after), g.col, g.value, len(g.rows))
	return g, first, nil
}

// compose makes a composed write task starting at owner (the entry row),
// or errDeadEnd when owner has no rows to choose from this way.
func (w *walker) compose(c *chain, owner *entity) (envpkg.Task, string, error) {
	if t, kind, done, err := w.reasoned(c, owner, w.pickAcross, w.twoGoals); done {
		return t, kind, err // the shapes that need reasoning (pick.go, goals.go)
	}
	l, err := w.listRows(c, owner)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	child, fk := l.child, l.fk
	if own := w.ownActions(owner); len(own) > 0 && w.rng.IntN(2) == 0 {
		// What the owner does for itself (compose_own.go), as often as
		// a change over the rows it owns.
		return w.actFor(c, owner, own[w.rng.IntN(len(own))])
	}
	if t := w.reorderAction(child); t != nil && w.rng.IntN(2) == 0 {
		return w.reorder(c, owner, child, l.items, fk, t)
	}
	probe := &entity{table: child, row: l.items[0], parent: owner}
	var acts []*toolgen.Tool
	for _, a := range w.actionsOn(probe) {
		if (a.Action.Rule == toolgen.RuleStatus || a.Action.Rule == toolgen.RuleMilestone) && a.Table == child.Name {
			acts = append(acts, a)
		}
	}
	g, first, err := w.choose(c, owner, l, acts)
	if err != nil {
		return envpkg.Task{}, "", err
	}
	if g.act != nil {
		acts = []*toolgen.Tool{g.act}
	}
	listed := len(c.calls)
	var t envpkg.Task
	var kind string
	if len(acts) > 0 {
		t, kind, err = w.composeAction(c, child, g, first.desc, acts[w.rng.IntN(len(acts))], fk, owner)
	} else {
		t, kind, err = w.composeEdit(c, child, g, first, fk, owner)
	}
	if err != nil {
		return envpkg.Task{}, "", err
	}
	// Changing only the first chosen row must not pass.
	if len(c.calls) > listed+1 {
		c.wrong = append(c.wrong, append([]envpkg.Call{}, c.calls[:listed+1]...))
	}
	return t, kind, nil
}

// chooseGroup picks two or three rows of items by a condition a person
// states: the ones in a given state, or the two most recent.
func (w *walker) chooseGroup(child *dbmodel.Table, items []map[string]any, rows string, acts []*toolgen.Tool) (group, bool) {
	var opts []group
	for _, a := range acts {
		// The ones still waiting for a milestone: "my orders that have not
		// been shipped yet".
		if a.Action.Rule != toolgen.RuleMilestone {
			continue
		}
		var rs []map[string]any
		for _, it := range items {
			if it[a.Action.Column] == nil {
				rs = append(rs, it)
			}
		}
		if len(rs) >= 2 && len(rs) <= 3 {
			opts = append(opts, group{rows: rs, words: rows, after: "that have not been " + a.Action.Value + " yet", col: a.Action.Column, act: a})
		}
	}
	for _, col := range child.Columns {
		// A flag: "the discontinued products of the supplier X".
		attr := attrWords(col.Name)
		if !(col.Bool || col.Distinct <= 2 && flagWord(col.Name, "1") != "") || child.IsKey(col.Name) || !strings.HasSuffix(attr, "ed") || strings.Contains(attr, " ") {
			continue
		}
		var on, off []map[string]any
		for _, it := range items {
			switch fmt.Sprint(sqlValue(it[col.Name])) {
			case "1", "true":
				on = append(on, it)
			case "0", "false":
				off = append(off, it)
			}
		}
		if len(on) >= 2 && len(on) <= 3 {
			opts = append(opts, group{rows: on, words: attr + " " + rows, col: col.Name, value: "1"})
		}
		if len(off) >= 2 && len(off) <= 3 {
			opts = append(opts, group{rows: off, words: rows, after: "that are not " + attr, col: col.Name, value: "0"})
		}
	}
	for _, col := range namingColumns(child) {
		switch {
		case len(col.Enum) > 0 && !yesNo(col):
			// (Not "my yes reservations": a yes/no column is a flag.)
			by := map[string][]map[string]any{}
			for _, it := range items {
				if s, ok := sqlValue(it[col.Name]).(string); ok && statusWord(s) {
					by[s] = append(by[s], it)
				}
			}
			for s, rs := range by {
				if len(rs) >= 2 && len(rs) <= 3 {
					opts = append(opts, group{rows: rs, words: strings.ToLower(s) + " " + rows, col: col.Name, value: s})
				}
			}
		case dateName(col.Name) && len(items) >= 3:
			rs := slices.Clone(items)
			if slices.ContainsFunc(rs, func(r map[string]any) bool { return !calendarDate(r[col.Name]) }) {
				continue
			}
			sort.SliceStable(rs, func(i, j int) bool { return fmt.Sprint(rs[i][col.Name]) > fmt.Sprint(rs[j][col.Name]) })
			if fmt.Sprint(rs[1][col.Name]) == fmt.Sprint(rs[2][col.Name]) || fmt.Sprint(rs[0][col.Name]) == fmt.Sprint(rs[1][col.Name]) {
				continue // no clear two most recent
			}
			opts = append(opts, group{rows: rs[:2], words: "two most recent " + rows, col: col.Name, after: byDate(child, items, col.Name)})
		}
	}
	opts = append(opts, moreGroups(child, items, rows)...)
	if len(opts) == 0 {
		return group{}, false
	}
	sort.SliceStable(opts, func(i, j int) bool {
		return opts[i].col+" "+opts[i].value+" "+opts[i].words+opts[i].after < opts[j].col+" "+opts[j].value+" "+opts[j].words+opts[j].after
	}) // map order must not decide
	if live := slices.DeleteFunc(slices.Clone(opts), func(g group) bool { return !actsApply(acts, g.rows) }); len(live) > 0 && len(live) < len(opts) && w.rng.IntN(4) > 0 {
		// Mostly a group an action may change a row of: where the rules
		// allow few moves (only a pending order can be cancelled), most
		// groups are refused whole, and the tasks would be all refusals.
		opts = live
	}
	return opts[w.rng.IntN(len(opts))], true
}

// composeAction makes the action's change on every row of g the rules
// allow; the rows it refuses (already in its state, or in a state it does
// not move from) are left, and the user learns how many.
func (w *walker) composeAction(c *chain, child *dbmodel.Table, g group, desc string, t *toolgen.Tool, fk string, owner *entity) (envpkg.Task, string, error) {
	a := t.Action
	col := child.Column(a.Column)
	if col == nil || g.col == a.Column && a.Rule == toolgen.RuleStatus && g.value == a.Value {
		return envpkg.Task{}, "", errDeadEnd
	}
	verb := actionWords(col, desc, a)
	if verb == "" {
		return envpkg.Task{}, "", errDeadEnd
	}
	// A row the action's rule refuses is left: one already in its
	// state, or (a designed status) one in a state it does not move
	// from, a delivered order that only a pending one may leave. The
	// action is asked whether it applies before it is called, so the
	// rows it would refuse are the task's refusals, not a dead end.
	there, blocked := 0, false
	for _, r := range g.rows {
		if !applies(a, r) {
			there++
			blocked = blocked || a.Rule == toolgen.RuleStatus && fmt.Sprint(sqlValue(r[a.Column])) != a.Value
			continue
		}
		args, ok := keyArgs(t, r)
		if !ok {
			return envpkg.Task{}, "", errDeadEnd
		}
		if _, err := w.call(c, t.Name, args); err != nil {
			return envpkg.Task{}, "", err
		}
	}
	var checks []envpkg.Check
	var err error
	if there == len(g.rows) {
		// Every chosen row is in the action's state already ("return my
		// two most recent rentals", both returned): the agent reads each
		// to learn that nothing may change, and says how many.
		checks = keepChecks(w.spec.Model)
	} else if checks, err = w.diffChecks(); err != nil {
		return envpkg.Task{}, "", err
	}
	r := composed{group: desc, verb: verb}
	kind := "action-all"
	var answer *envpkg.Answer
	c.reason += fmt.Sprintf(" [%d of them refused]", there)
	if there > 0 {
		r.refused, r.blocked = a.Column, blocked
		kind = "refuse-some-action"
		switch {
		case there == len(g.rows) && blocked:
			kind = "refuse-all-action" // the rules allow none of them
		case there == len(g.rows):
			kind = "done-all-action" // nothing left to refuse: each is done already
		}
		answer, err = countAnswer(fmt.Sprint(there))
		if err != nil {
			return envpkg.Task{}, "", err
		}
		c.said = fmt.Sprint(there)
		c.distractors = append(c.distractors, fmt.Sprint(len(g.rows)))
		if there == len(g.rows) {
			c.distractors[len(c.distractors)-1] = "0" // (as if each had been done)
		}
	} else if a.Rule == toolgen.RuleStatus && w.rng.IntN(2) == 0 {
		// "..., then tell me how many of my orders are cancelled now": a
		// count over the listed rows after the change.
		n := len(g.rows) + w.countIn(child, fk, owner, a.Column, a.Value)
		_, rows := rowWords(w.spec.Model, child, fk, owner.table)
		r.ask = "how many of " + rowsOf(rows, fk, owner) + " are " + showCol(col, a.Value) + " now"
		answer, err = countAnswer(fmt.Sprint(n))
		if err != nil {
			return envpkg.Task{}, "", err
		}
		c.said = fmt.Sprint(n)
		c.distractors = append(c.distractors, fmt.Sprint(n-len(g.rows)))
		kind = "action-all-count"
	}
	return envpkg.Task{Instruction: composedInstruction(w, r), Checks: checks, Answer: answer}, kind, nil
}

// countIn counts owner's rows of child (through fk) whose col is v in the
// initial state.
func (w *walker) countIn(child *dbmodel.Table, fk string, owner *entity, col, v string) int {
	ref := child.ForeignKeyOf(fk)
	if ref == nil {
		return 0
	}
	n, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s = ? AND %s = ?`, dbmodel.Quote(child.Name), dbmodel.Quote(fk), dbmodel.Quote(col)),
		sqlValue(owner.row[ref.RefColumns[0]]), v)
	if err != nil {
		return 0
	}
	return int(n)
}

// actsApply reports whether one of acts may change one of rows.
func actsApply(acts []*toolgen.Tool, rows []map[string]any) bool {
	for _, a := range acts {
		for _, r := range rows {
			if applies(a.Action, r) {
				return true
			}
		}
	}
	return false
}
