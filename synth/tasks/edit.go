package tasks

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// One change to a row: the value a person would set (from the column's
// own domain, consistent with the row), and the update call that makes it.

// newValue proposes a different value for a column from its own domain:
// the other boolean, another allowed value, or a value the column holds in
// another row. nil when the column is not one a person sets by hand.
func (w *walker) newValue(t *dbmodel.Table, col *dbmodel.Column, old any) (any, error) {
	o := sqlValue(old)
	switch {
	case col.Bool:
		return o != int64(1), nil
	case inferredStatus(col):
		// A status whose order no CHECK declares (flight_dates' available,
		// delayed, landed, cancelled): only what a person does by hand,
		// cancelling what has not happened yet; never "mark it landed" or
		// "if it has landed, cancel it" (judged round 3).
		if v := cancelValue(col); v != "" && openState(fmt.Sprint(o)) {
			return v, nil
		}
		return nil, nil
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
	return len(col.Enum) > 1 && !col.EnumInferred && !orderless(col.Enum) && (strings.Contains(l, "status") || strings.Contains(l, "state") || strings.Contains(l, "stage"))
}

// settable lists the parameters of an update tool a person would set.
func settable(t *dbmodel.Table, tool *toolgen.Tool) []toolgen.Param {
	var out []toolgen.Param
	for _, p := range tool.Params {
		col := t.Column(p.Column)
		// (Nor what a machine makes, a GUID, a hash, a computed total or
		// z-score, nor a value other rows refer to by.)
		if p.Op == toolgen.OpSet && col != nil && !col.Unique && t.ForeignKeyOf(col.Name) == nil && !t.IsNatural(col.Name) && !incidental(col.Name) && !identity(t, col.Name) &&
			!col.ByMachine() && len(col.ReferencedBy) == 0 {
			out = append(out, p)
		}
	}
	return out
}

// money: a price, a cost or a charge: the business's to set.
func money(col string) bool {
	w := " " + words(col) + " "
	return dbmodel.ContainsAny(w, " price ", " cost ", " freight ", " fee ", " charge ", " rate ", " salary ", " amount ", " total ")
}

// maker: who made a thing (a track's composer, a book's author), or where
// its own page or picture is: another row's value put on it is a
// different work or a broken link, not a correction.
func maker(col string) bool {
	l := strings.ToLower(col)
	return dbmodel.ContainsAny(l, "composer", "author", "writer", "director", "artist", "creator", "publisher", "manufacturer", "brand", "page", "url", "path", "photo", "picture", "image", "link")
}

// prose: free text (a description, a note) that another row's text would
// not correct.
func prose(col string) bool {
	l := strings.ToLower(col)
	return dbmodel.ContainsAny(l, "description", "body", "note", "comment", "bio", "content", "summary", "message", "text", "review")
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
	params = slices.DeleteFunc(params, func(p toolgen.Param) bool {
		col := e.table.Column(p.Column)
		// (Nor a leg's date: moving one leg of a booking is a rebooking;
		// nor what operations record, an actual or estimated time.)
		return historyPrice(e.table, p.Column) || structuralType(w.spec.Model, e.table, col) || compound(e.table) && dateName(p.Column) || recorded(p.Column) || eventDate(w.spec.Model, e.table, p.Column)
	})
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
		if nv == nil || !inBand(e.table, e.row, col.Name, nv) || beforeEvent(e.table, e.row, col.Name, nv) {
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
		if day, ok := midnight(stored); ok {
			shown = day // "1973-07-01", not "1973-07-01 00:00:00" (the check takes either)
		}
		attr := attrOf(e.table, col.Name)
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
