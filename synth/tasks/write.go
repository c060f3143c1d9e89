package tasks

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
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
	for i, e := range c.entities {
		if i < len(c.entities)-1 && person(e.table) && !e.person && person(cur.table) {
			// Not someone's support rep reached through that customer:
			// a change to a person's record starts from that person
			// (their orders may be reached through them).
			return envpkg.Task{}, "", errDeadEnd
		}
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

// newValue proposes a different value for a column from its own domain:
// the other boolean, another allowed value, or a value the column holds in
// another row. nil when the column is not one a person sets by hand.
func (w *walker) newValue(t *dbmodel.Table, col *dbmodel.Column, old any) (any, error) {
	o := sqlValue(old)
	switch {
	case col.Bool:
		return o != int64(1), nil
	case lifecycle(col):
		// A status declared by a CHECK lists its values in the order a
		// row goes through them (pending, shipped, delivered): move it
		// forward, usually by one step, never back.
		i := slices.Index(col.Enum, fmt.Sprint(o))
		if i < 0 || i == len(col.Enum)-1 {
			return nil, nil
		}
		if w.rng.IntN(3) > 0 {
			return col.Enum[i+1], nil
		}
		return col.Enum[i+1+w.rng.IntN(len(col.Enum)-i-1)], nil
	case len(col.Enum) > 1:
		for range 4 {
			if v := col.Enum[w.rng.IntN(len(col.Enum))]; v != fmt.Sprint(o) {
				return v, nil
			}
		}
		return nil, nil
	case incidental(col.Name) || prose(col.Name) || maker(col.Name) || col.Kind == dbmodel.Blob || col.Distinct < 2:
		return nil, nil
	case placeLevelOf(col.Name) == levelPhone:
		// A new number in the old one's format (same country code and
		// area), not another person's number.
		if v, ok := w.newNumber(o); ok {
			return v, nil
		}
		return nil, nil
	case (col.Kind == dbmodel.Integer || col.Kind == dbmodel.Real) && !dateName(col.Name):
		if measured(col.Name) {
			return nil, nil
		}
		if v, ok := w.nudge(o, col.Kind == dbmodel.Integer); ok {
			return v, nil
		}
	}
	qc := dbmodel.Quote(col.Name)
	v, err := w.sample(fmt.Sprintf(`SELECT DISTINCT %[1]s FROM %[2]s WHERE %[1]s IS NOT NULL AND %[1]s IS NOT ? ORDER BY %[1]s LIMIT 1 OFFSET ?`, qc, dbmodel.Quote(t.Name)), col.Distinct-1, o)
	if errors.Is(err, errDeadEnd) || err == nil && (!sayable(v) || len(fmt.Sprint(v)) > 40 || fmt.Sprint(v) == fmt.Sprint(o)) {
		return nil, nil
	}
	return v, err
}

// lifecycle: a status or state column whose values a CHECK declares (in
// the order the schema's author wrote them, which is the order a row
// goes through them).
func lifecycle(col *dbmodel.Column) bool {
	l := strings.ToLower(col.Name)
	return len(col.Enum) > 1 && !col.EnumInferred && (strings.Contains(l, "status") || strings.Contains(l, "state") || strings.Contains(l, "stage"))
}

// settable lists the parameters of an update tool a person would set.
func settable(t *dbmodel.Table, tool *toolgen.Tool) []toolgen.Param {
	var out []toolgen.Param
	for _, p := range tool.Params {
		col := t.Column(p.Column)
		if p.Op == toolgen.OpSet && col != nil && !col.Unique && t.ForeignKeyOf(col.Name) == nil && !t.IsNatural(col.Name) && !incidental(col.Name) && !identity(t, col.Name) {
			out = append(out, p)
		}
	}
	return out
}

// money: a price, a cost or a charge: the business's to set.
func money(col string) bool {
	w := " " + words(col) + " "
	for _, s := range []string{" price ", " cost ", " freight ", " fee ", " charge ", " rate ", " salary ", " amount ", " total "} {
		if strings.Contains(w, s) {
			return true
		}
	}
	return false
}

// maker: who made a thing (a track's composer, a book's author), or where
// its own page or picture is: another row's value put on it is a
// different work or a broken link, not a correction.
func maker(col string) bool {
	l := strings.ToLower(col)
	for _, s := range []string{"composer", "author", "writer", "director", "artist", "creator", "publisher", "manufacturer", "brand", "page", "url", "path", "photo", "picture", "image", "link"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// prose: free text (a description, a note) that another row's text would
// not correct.
func prose(col string) bool {
	l := strings.ToLower(col)
	for _, s := range []string{"description", "body", "note", "comment", "bio", "content", "summary", "message", "text", "review"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// identity: a column that says who or what a row is (a name, an email):
// changing it to another row's value makes a different row, not a
// correction.
func identity(t *dbmodel.Table, col string) bool {
	l := strings.ToLower(col)
	// A column named for its table (city.city, country.country) is the
	// row's name too: renaming a city every address shares is not a fix.
	return col == t.Label || strings.Contains(l, "name") || strings.Contains(l, "email") || strings.Contains(l, "title") || words(col) == noun(t)
}

// edit is one update made in the episode.
type edit struct {
	ch     change
	clause string // "change the status of order ORD-1 to shipped"
	moved  bool   // the parts of an address changed together
	col    *dbmodel.Column
	old    any
	new    any
	call   envpkg.Call
}

// setOne updates one column of e to a new value through its update tool.
// move: an address may change whole, and a flag or status may change
// (false for the second of two changes).
func (w *walker) setOne(c *chain, e *entity, move bool) (*edit, error) {
	tool := w.toolFor(toolgen.Update, e.table.Name)
	if tool == nil || ledger(e.table) {
		return nil, errDeadEnd
	}
	params := settable(e.table, tool)
	if e.person {
		// A user changes their own contact details, not what the
		// business records about them (a support rep, a hire date).
		params = slices.DeleteFunc(params, func(p toolgen.Param) bool { return !personalDetail(p.Column) })
	} else if c.me {
		// Nor the dates of their orders or invoices: those are the
		// business's record of when things happened; and a customer does
		// not set their order's freight or price.
		customer := !worker(c.entities[0].table)
		params = slices.DeleteFunc(params, func(p toolgen.Param) bool { return dateName(p.Column) || customer && money(p.Column) })
	}
	w.rng.Shuffle(len(params), func(i, j int) { params[i], params[j] = params[j], params[i] })
	if w.rng.IntN(2) == 0 {
		// Statuses first, half the time: the changes a business makes
		// most, and the ones a condition can hang on.
		status := func(p toolgen.Param) int { return min(max(len(p.Enum)-2, 0), 1) }
		slices.SortStableFunc(params, func(a, b toolgen.Param) int { return cmp.Compare(status(b), status(a)) })
	}
	for _, p := range params {
		args, ok := keyArgs(tool, e.row)
		if !ok {
			return nil, errDeadEnd
		}
		col := e.table.Column(p.Column)
		if !move && (col.Bool || lifecycle(col)) {
			continue // a second change is a detail, not "..., and deactivate them"
		}
		nv, err := w.newValue(e.table, col, e.row[col.Name])
		if err != nil {
			return nil, err
		}
		if c.me && !worker(c.entities[0].table) && lifecycle(col) && nv != nil && !strings.HasPrefix(action(col, "it", nv), "cancel ") {
			continue // a customer cancels their order; the shop ships it
		}
		if nv == nil || !inBand(e.table, e.row, col.Name, nv) {
			continue
		}
		// The other parts of an address move with the one changed.
		place, order, err := w.placeValues(e.table, e.row, col.Name, func(c string) bool { return setParam(params, c) != nil })
		if errors.Is(err, errDeadEnd) || place != nil && len(order) > 1 && !move {
			continue
		} else if err != nil {
			return nil, err
		}
		if place != nil {
			nv = place[col.Name]
			for _, pc := range order {
				if pc != col.Name {
					args[setParam(params, pc).Name] = argValue(place[pc], setParam(params, pc).Type)
				}
			}
		}
		args[p.Name] = argValue(nv, p.Type)
		if b, ok := nv.(bool); ok {
			args[p.Name] = b
		}
		if _, err := w.call(c, tool.Name, args); err != nil {
			if errors.Is(err, errDeadEnd) {
				continue // refused (a CHECK, a trigger): try another column
			}
			return nil, err
		}
		stored := sqlValue(nv)
		if b, ok := nv.(bool); ok {
			stored = map[bool]int64{false: 0, true: 1}[b]
		}
		shown := showCol(col, stored)
		attr := attrWords(col.Name)
		ed := &edit{col: col, old: e.row[col.Name], new: stored, call: c.calls[len(c.calls)-1],
			ch:     change{table: e.table, kind: "update", row: e.row, cols: map[string]any{col.Name: stored}, name: fmt.Sprintf("%s set to %s", attr, shown)},
			clause: oneOf(w.rng, fmt.Sprintf("change %s to %s", of(attr, e), shown), fmt.Sprintf("set %s to %s", of(attr, e), shown))}
		if a := action(col, actionTarget(e), stored); a != "" {
			ed.clause = a
		}
		if len(order) > 1 {
			// "update my address to state SP, city São Paulo, ..."
			var parts []string
			for _, pc := range order {
				v := sqlValue(place[pc])
				ed.ch.cols[pc] = v
				label := attrWords(pc)
				if lvl, prefix := placeLevel(pc); lvl == levelStreet && strings.TrimSpace(strings.TrimPrefix(label, prefix)) == "address" {
					label = "street" // "update my address to street ...", not "to address ..."
				}
				parts = append(parts, label+" "+showCol(e.table.Column(pc), v))
			}
			_, prefix := placeLevel(col.Name)
			addr := strings.TrimSpace(prefix + " address")
			ed.moved = true
			ed.ch.name = addr + " set to " + strings.Join(parts, ", ")
			ed.clause = oneOf(w.rng, fmt.Sprintf("update %s to %s", of(addr, e), strings.Join(parts, ", ")),
				fmt.Sprintf("change %s to: %s", of(addr, e), strings.Join(parts, ", ")))
		}
		// The same change to a sibling must not pass.
		for _, o := range e.others {
			if wrong, ok := keyArgs(tool, o); ok {
				wrong[p.Name] = args[p.Name]
				if call, ok := callOf(tool.Name, wrong); ok {
					c.wrong = append(c.wrong, append(append([]envpkg.Call{}, c.calls[:len(c.calls)-1]...), call))
				}
				break
			}
		}
		return ed, nil
	}
	return nil, errDeadEnd
}

// setParam is the parameter of params that sets col, or nil.
func setParam(params []toolgen.Param, col string) *toolgen.Param {
	for i := range params {
		if params[i].Column == col {
			return &params[i]
		}
	}
	return nil
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
			if v != old && v != fmt.Sprint(ed.new) {
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
				Checks: keepChecks(w.spec.Model), Answer: c.answer(ed.old)}, "refuse-if", nil
		}
	}
	changes := []change{ed.ch}
	clause := ed.clause
	kind := "update"
	if len(c.entities) >= 2 && !ed.moved && (c.entities[len(c.entities)-2].person || w.rng.IntN(6) == 0) {
		// Always when the user speaks of themselves ("cancel my order
		// ORD-1, and change my phone to ..."); rarely for two rows of
		// someone else's (two unrelated edits read as a template).
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
		if cur.person || c.me && cur.parent != nil && cur.parent.person {
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
	if words, err := w.unlinkWords(cur); err != nil {
		return envpkg.Task{}, err
	} else if words != "" {
		return envpkg.Task{Instruction: words, Checks: checks}, nil
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

// create adds a row referring to cur, copying the other values from an
// existing row of the same table (only for tables whose key SQLite assigns
// and without other unique columns, so the copy cannot collide).
func (w *walker) create(c *chain, cur *entity) (envpkg.Task, error) {
	if w.rng.IntN(2) == 0 {
		if t, err := w.link(c, cur); err == nil || !errors.Is(err, errDeadEnd) {
			return t, err
		}
	}
	if derives(cur.table) {
		return envpkg.Task{}, errDeadEnd // a new child would leave cur's total wrong
	}
	var opts []*toolgen.Tool
	for _, t := range w.spec.Tools {
		if t.Kind != toolgen.Children || t.Parent != cur.table.Name {
			continue
		}
		child := w.spec.Model.Table(t.Table)
		if c.me && person(child) {
			continue // a customer does not add people under themselves
		}
		if len(child.PrimaryKey) == 1 && child.Column(child.PrimaryKey[0]).Generated && len(child.Uniques) == 0 && w.toolFor(toolgen.Create, child.Name) != nil && child.Rows > 0 && !ledger(child) {
			unique := false
			for _, col := range child.Columns {
				unique = unique || col.Unique
			}
			if !unique {
				opts = append(opts, t)
			}
		}
	}
	if len(opts) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	via := opts[w.rng.IntN(len(opts))]
	child := w.spec.Model.Table(via.Table)
	if w.derivedParent(child) {
		return envpkg.Task{}, errDeadEnd
	}
	tool := w.toolFor(toolgen.Create, child.Name)
	// A template row.
	stmt, _, err := w.src.Prepare("SELECT * FROM " + dbmodel.Quote(child.Name) + " LIMIT 1 OFFSET ?")
	if err != nil {
		return envpkg.Task{}, err
	}
	stmt.BindInt64(1, w.rng.Int64N(child.Rows))
	tmpl := map[string]any{}
	if stmt.Step() {
		for i := range stmt.ColumnCount() {
			tmpl[stmt.ColumnName(i)] = dbmodel.ColumnValue(stmt, i)
		}
	}
	stmt.Close()
	if len(tmpl) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	fkCol := via.Via.Columns[0]
	tmpl[fkCol] = sqlValue(cur.row[via.Via.RefColumns[0]])
	args := map[string]any{}
	var said []string
	vals := map[string]any{}
	for _, p := range tool.Params {
		v := tmpl[p.Column]
		if v == nil || !p.Required && incidental(p.Column) {
			if p.Required {
				return envpkg.Task{}, errDeadEnd
			}
			continue // optional and not a person's to set: its default
		}
		if _, isBlob := v.([]byte); isBlob {
			return envpkg.Task{}, errDeadEnd
		}
		args[p.Name] = argValue(v, p.Type)
		if bookkeeping(p.Column) {
			// Required but stamped by the application (last_update): the
			// ground truth passes one, the request does not say it, and the
			// check does not hold the agent to it.
			continue
		}
		vals[p.Column] = v
		if p.Column != fkCol {
			if child.ForeignKeyOf(p.Column) != nil {
				return envpkg.Task{}, errDeadEnd // another reference: the user would have to name it by id
			}
			said = append(said, attrWords(p.Column)+" "+showCol(child.Column(p.Column), v))
		}
	}
	sort.Strings(said)
	if len(said) == 0 {
		return envpkg.Task{}, errDeadEnd
	}
	if dup, err := w.exists(child, vals, fkCol); err != nil || dup {
		return envpkg.Task{}, cmp.Or(err, errDeadEnd)
	}
	if _, err := w.call(c, tool.Name, args); err != nil {
		return envpkg.Task{}, err
	}
	checks, err := w.writeChecks(change{table: child, kind: "create", cols: vals, name: "the new " + noun(child) + " exists"})
	if err != nil {
		return envpkg.Task{}, err
	}
	what := article(noun(child))
	fields := strings.Join(said, ", ")
	return envpkg.Task{Instruction: oneOf(w.rng,
		fmt.Sprintf("Please add %s for %s with %s.", what, cur.desc, fields),
		fmt.Sprintf("I'd like to record %s for %s: %s.", what, cur.desc, fields),
		fmt.Sprintf("Could you create %s for %s? Use %s.", what, cur.desc, fields)),
		Checks: checks}, nil
}

// sharedPlace: cur is an address or location reached from a row that
// refers to it, and other rows refer to it too (the site several
// departments share): "update the address of the department Sales" would
// move them all.
func (w *walker) sharedPlace(cur *entity) (bool, error) {
	if cur.via == "" || cur.parent == nil || !placeTable(cur.table) || len(cur.table.PrimaryKey) != 1 {
		return false, nil
	}
	n, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s = ?`, dbmodel.Quote(cur.parent.table.Name), dbmodel.Quote(cur.via)), sqlValue(cur.row[cur.table.PrimaryKey[0]]))
	return n > 1, err
}

// derivedParent: a table t refers to keeps a total of t's rows (an
// invoice's total of its lines): adding or removing a row of t by hand
// leaves it wrong.
func (w *walker) derivedParent(t *dbmodel.Table) bool {
	for _, fk := range t.ForeignKeys {
		if p := w.spec.Model.Table(fk.RefTable); p != nil && p != t && derives(p) {
			return true
		}
	}
	return false
}

// exists: a new row with vals would repeat a row of t that exists: the
// same name, title, email or natural key (the copied template's, or
// another's), or an address copied from another row (a Yukon address
// under Malaysia). A create is of something new.
func (w *walker) exists(t *dbmodel.Table, vals map[string]any, fkCol string) (bool, error) {
	for col, v := range vals {
		if col == fkCol || t.ForeignKeyOf(col) != nil {
			continue
		}
		if lvl, _ := placeLevel(col); lvl != levelNone && lvl != levelPhone && len(placeCols(t, col)) >= 2 {
			return true, nil
		}
		if !identity(t, col) && !t.IsNatural(col) {
			continue
		}
		n, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s IS ?`, dbmodel.Quote(t.Name), dbmodel.Quote(col)), sqlValue(v))
		if err != nil || n > 0 {
			return true, err
		}
	}
	return false, nil
}

// writeChecks are the checks of the changes the chain just made: the
// tables the ground truth changed besides the changed ones are the
// database's own doing (triggers), allowed to differ.
func (w *walker) writeChecks(changes ...change) ([]envpkg.Check, error) {
	return writeChecks(w.spec.Model, changes, w.allowed(changes)), nil
}

// allowed lists the tables the chain's writes changed besides the ones
// asked for (a trigger's doing), from the episode's diff: once per set of
// write tools, as the diff costs a pass over every written table. A table
// a trigger writes only sometimes is then allowed always: more lenient,
// never wrong for the ground truth.
func (w *walker) allowed(changes []change) []string {
	var key []string
	for _, call := range w.chain.calls {
		if t := w.spec.Tool(call.Name); t != nil && t.Kind.Writes() {
			key = append(key, call.Name)
		}
	}
	k := strings.Join(key, ",")
	if a, ok := w.auto[k]; ok {
		return a
	}
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
	w.auto[k] = allowed
	return allowed
}
