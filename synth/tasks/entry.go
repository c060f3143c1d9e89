package tasks

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Where a chain starts: a row a user names (a natural key, a name and a
// city), not an internal id or the application's own counters.

// slugID matches an id made of words and a number ("credit_card_9588108",
// "chen_nguyen_2677").
var slugID = regexp.MustCompile(`^[a-z]+(_[a-z]+)*_\d+$`)

// entry starts a chain where a user starts: a row found by a natural key
// (a find tool), or by a combination a person would say (first and last
// name; name and city) through the table's list filters.
func (w *walker) entry(c *chain) (*entity, error) {
	type start struct {
		t     *dbmodel.Table
		tool  *toolgen.Tool
		combo []string
	}
	var starts []start
	for _, t := range w.spec.Model.Tables {
		if t.Rows == 0 || bookkeepingTable(t) || maintained(t) {
			continue
		}
		for _, nk := range t.NaturalKeys {
			if unnatural(strings.ToLower(nk)) {
				continue // unique in the data, but no one is known by their postal code
			}
			if lvl, _ := placeLevel(nk); lvl != levelNone && (lvl != levelPhone || !person(t)) {
				// Nor is a location known by its street ("the city of the
				// location with street address X" asks what was typed),
				// nor a shipper by its phone number: a person is.
				continue
			}
			for _, tl := range w.spec.Tools {
				if (tl.Kind == toolgen.Find || tl.Kind == toolgen.Get && len(tl.Params) == 1) && tl.Table == t.Name && tl.Params[0].Column == nk {
					starts = append(starts, start{t: t, tool: tl})
					break
				}
			}
		}
		if combo := nameCombo(t); combo != nil {
			if list := w.toolFor(toolgen.List, t.Name); list != nil && comboArgs(list, combo[0], "") != nil && comboArgs(list, combo[1], "") != nil {
				starts = append(starts, start{t: t, tool: list, combo: combo})
			}
		}
	}
	if len(starts) == 0 {
		return nil, fmt.Errorf("%w: no table has a natural key or a name a person would say", errDeadEnd)
	}
	if w.anchored {
		// The request is a person's own (persona.go): start at one of the
		// people who have rows of their own, where there are any.
		var own []start
		for _, st := range starts {
			if person(st.t) && w.servedPerson(st.t) && w.owns(st.t, true) && (st.combo == nil || !slices.Equal(st.combo, st.t.ComboKey)) {
				own = append(own, st)
			}
		}
		if len(own) > 0 {
			starts = own
		} else {
			// No person has rows of their own: the request is still about
			// a row and the rows that belong to it ("the matches of the
			// team X"), composed first, where some table has any.
			w.anchored = false
			for _, st := range starts {
				if w.owns(st.t, false) {
					own = append(own, st)
				}
			}
			if len(own) > 0 {
				starts, w.composeFirst = own, true
			}
		}
	}
	st := starts[w.rng.IntN(len(starts))]
	t := st.t
	if st.combo != nil {
		return w.entryByCombo(c, t, st.tool, st.combo)
	}
	nk := st.tool.Params[0].Column
	from, rows := dbmodel.Quote(t.Name), int64(t.Rows)
	if w.anchored {
		// One of the people with rows of their own (persona.go): most
		// people own none where only a few do (a manager's reports).
		from, rows = w.ownersOf(t)
	}
	v, err := w.sample(fmt.Sprintf(`SELECT %[1]s FROM %[2]s WHERE %[1]s IS NOT NULL AND %[1]s <> '' LIMIT 1 OFFSET ?`, dbmodel.Quote(nk), from), rows)
	if err != nil {
		return nil, err
	}
	if s, ok := v.(string); ok && len([]rune(s)) > 50 {
		// A 90-character name (an orchestra and its conductor) is not
		// how anyone names a row, and may be cut short in the data.
		return nil, fmt.Errorf("%w: %.20s... is too long to say", errDeadEnd, s)
	}
	if s, ok := v.(string); ok && slugID.MatchString(s) {
		// "gift_card_4343305": an id no one quotes to find a person by
		// (their own is "my gift card").
		return nil, fmt.Errorf("%w: %s is an internal id", errDeadEnd, s)
	}
	out, err := w.call(c, st.tool.Name, map[string]any{st.tool.Params[0].Name: v})
	if err != nil {
		return nil, err
	}
	row, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%w: %s returned no row", errDeadEnd, st.tool.Name)
	}
	e := &entity{table: t, row: row, tool: st.tool.Name, desc: keyDesc(t, nk, v), namedBy: nk}
	if person(t) && (w.anchored || w.rng.IntN(2) == 0) {
		// The user is this person, and says so.
		e.desc, e.person, e.mine, c.me = "me", true, true, true
		name := fullName(t, row)
		what := attrWords(nk)
		c.persona = fmt.Sprintf("You are %s (%s %s).", article(noun(t)), what, show(v))
		if name != "" {
			c.persona = fmt.Sprintf("You are %s, %s (%s %s).", name, article(noun(t)), what, show(v))
		}
		switch {
		case name != "" && !strings.Contains(strings.ToLower(nk), "name"):
			c.intro = oneOf(w.rng, fmt.Sprintf("I'm %s (%s %s).", name, what, show(v)), fmt.Sprintf("This is %s; my %s is %s.", name, what, show(v)))
		case strings.HasSuffix(what, "name"):
			// Northwind's ContactName: "I'm Maria Anders, from Alfreds
			// Futterkiste.", not "My contact name is "Maria Anders"."
			c.intro = "I'm " + fmt.Sprint(v) + "."
			if co := strings.TrimSuffix(companyOf(t, row), "."); co != "" {
				c.intro = oneOf(w.rng, "I'm "+fmt.Sprint(v)+", from "+co+".", "This is "+fmt.Sprint(v)+" at "+co+".")
			}
		default:
			c.intro = oneOf(w.rng, fmt.Sprintf("My %s is %s.", what, show(v)), fmt.Sprintf("I'm the %s with %s %s.", noun(t), what, show(v)))
		}
	}
	c.entities = append(c.entities, e)
	c.noteIDs(w, e)
	return e, nil
}

// entryByCombo finds a row by two columns a person would say together,
// through the list tool's text filters, when they single it out.
func (w *walker) entryByCombo(c *chain, t *dbmodel.Table, list *toolgen.Tool, combo []string) (*entity, error) {
	a, b := dbmodel.Quote(combo[0]), dbmodel.Quote(combo[1])
	stmt, _, err := w.src.Prepare(fmt.Sprintf(`SELECT %[1]s, %[2]s FROM %[3]s WHERE %[1]s <> '' AND %[2]s <> '' LIMIT 1 OFFSET ?`, a, b, dbmodel.Quote(t.Name)))
	if err != nil {
		return nil, err
	}
	stmt.BindInt64(1, w.rng.Int64N(max(t.Rows, 1)))
	if !stmt.Step() {
		err := stmt.Err()
		stmt.Close()
		if err != nil {
			return nil, err
		}
		return nil, errDeadEnd
	}
	va, vb := stmt.ColumnText(0), stmt.ColumnText(1)
	stmt.Close()
	args := comboArgs(list, combo[0], va)
	for k, v := range comboArgs(list, combo[1], vb) {
		args[k] = v
	}
	out, err := w.call(c, list.Name, args)
	if err != nil {
		return nil, err
	}
	items := pageItems(out)
	if len(items) != 1 {
		return nil, fmt.Errorf("%w: %s %s is not one row", errDeadEnd, va, vb)
	}
	e := &entity{table: t, row: items[0], tool: list.Name}
	city := strings.EqualFold(combo[1], "city") || strings.EqualFold(combo[1], "town")
	switch {
	case person(t) && !slices.Equal(combo, t.ComboKey) && (w.anchored || w.rng.IntN(2) == 0):
		e.desc, e.person, e.mine, c.me = "me", true, true, true
		c.persona = fmt.Sprintf("You are %s %s, %s.", va, vb, article(noun(t)))
		c.intro = oneOf(w.rng, "I'm "+va+" "+vb+".", "My name is "+va+" "+vb+".", "This is "+va+" "+vb+".")
		if city {
			c.intro = "I'm " + va + ", from " + vb + "."
			c.persona = fmt.Sprintf("You are %s, from %s, %s.", va, vb, article(noun(t)))
		}
	case city:
		e.desc = "the " + noun(t) + " " + quoted(va) + " in " + vb
	case slices.Equal(combo, t.ComboKey):
		// Two columns the data says tell rows apart, each said with its
		// name: "the reading with station Oslo and day 2024-01-03".
		e.desc = "the " + noun(t) + " with " + attrWords(combo[0]) + " " + show(va) + " and " + attrWords(combo[1]) + " " + show(vb)
	default:
		e.desc = "the " + noun(t) + " " + va + " " + vb
	}
	c.entities = append(c.entities, e)
	c.noteIDs(w, e)
	return e, nil
}

// comboArgs are list's arguments that pick col = v: its text filter, or
// a date range of that one day; nil when list has neither.
func comboArgs(list *toolgen.Tool, col, v string) map[string]any {
	if p := containsParam(list, col); p != nil {
		return map[string]any{p.Name: v}
	}
	var lo, hi *toolgen.Param
	for i := range list.Params {
		if p := &list.Params[i]; p.Column == col && (p.Type == "string" || p.Type == "integer") {
			switch p.Op {
			case toolgen.OpMin:
				lo = p
			case toolgen.OpMax:
				hi = p
			}
		}
	}
	if lo == nil || hi == nil {
		return nil
	}
	if lo.Type == "integer" {
		return map[string]any{lo.Name: comboNumber(v), hi.Name: comboNumber(v)}
	}
	return map[string]any{lo.Name: v, hi.Name: v}
}

// comboNumber is a combination key's number ("Robin" in grade 9) as the
// list tool's integer range takes it; text that is no integer stays text
// (the tool then refuses it, and the walk tries another row).
func comboNumber(v string) any {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	return v
}

// containsParam is list's text filter on col (a substring, or equality
// where the column was taken for a closed set), or nil.
func containsParam(list *toolgen.Tool, col string) *toolgen.Param {
	for i := range list.Params {
		if p := &list.Params[i]; (p.Op == toolgen.OpContains || p.Op == toolgen.OpEq) && p.Column == col {
			return p
		}
	}
	return nil
}

// companyOf is the company a person row belongs to (a CompanyName
// column), or "".
func companyOf(t *dbmodel.Table, row map[string]any) string {
	for _, c := range t.Columns {
		if strings.Contains(strings.ToLower(c.Name), "company") && c.Kind == dbmodel.Text {
			if v, ok := sqlValue(row[c.Name]).(string); ok && sayable(v) {
				return v
			}
		}
	}
	return ""
}

// bookkeepingTable: a table of the application's own counters (the next
// id of each kind): no one asks about it.
func bookkeepingTable(t *dbmodel.Table) bool {
	l := strings.ToLower(t.Name)
	return strings.Contains(l, "counter") || strings.Contains(l, "sequence") || strings.HasPrefix(l, "sqlite_")
}
