package toolgen

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Toolsets: what Generate offers.
const (
	// ToolsetCRUD is every table's get, find, list, follow, create,
	// update and delete, and a list per view.
	ToolsetCRUD = "crud"
	// ToolsetDomain is task-shaped: the domain actions, then lookups a
	// person's question needs (find by what people know, get and list
	// with the names of the rows they refer to), then plain writes of the
	// tables no action covers, within MaxDomainTools and
	// MaxDomainSchemaBytes. Link rows, rows a trigger keeps, views and
	// deletes are not offered; bookkeeping stamps are not things to set,
	// nor a column an action moves (governed); no write outside the
	// served person's Scope.
	ToolsetDomain = "domain"
)

// Limits of the domain toolset: τ-bench retail offers 16 tools in 11 KB,
// AWM's environments 35 on average.
const (
	MaxDomainTools       = 40
	MaxDomainSchemaBytes = 24 << 10
)

// domainRank orders the tools the domain toolset keeps first (lower
// first); -1 is never offered.
func (g *gen) domainRank(t *Tool) int {
	tb := g.m.Table(t.Table)
	if tb == nil { // a view
		return -1
	}
	if t.Kind.Writes() && !g.opts.Scope.Allows(tb.Name) {
		return -1 // not the served person's to change (Scope)
	}
	switch t.Kind {
	case DomainAction:
		if a := t.Action; a.Rule == RuleStatus && !eventValue(a.Value) {
			// A move to a state that is not an event ("pending",
			// "available") is rarely what a person asks: after the
			// lookups, so that a status of eight values does not fill
			// the toolset.
			return 5
		}
		return 0
	case Find:
		return 1
	case Get:
		if link(tb) {
			return -1
		}
		return 2
	case Children:
		// How a person gets from a row to its rows (my orders, the
		// order's lines): one call, the tasks' walks follow them.
		if g.openItem(tb.Name) {
			// How a person finds the row to take (the copies of a film):
			// what an open action needs, beside it. A copy joins a film
			// and a store and holds nothing else, like a link, but it is
			// what is rented.
			return 0
		}
		if link(tb) {
			return -1
		}
		return 3
	case Update:
		if link(tb) || tb.MaintainedBy != "" {
			return -1
		}
		return 4
	case List:
		if link(tb) {
			return -1
		}
		return 5
	case Parent:
		return 6
	case Create:
		if link(tb) || tb.MaintainedBy != "" || g.actionWrites(tb.Name) {
			return -1
		}
		return 7
	}
	return -1 // deletes: a person cancels or returns, the action says how
}

// openItem reports whether table is one an open action takes one row of
// at a time (a copy rented), which has no name of its own.
func (g *gen) openItem(table string) bool {
	if t := g.m.Table(table); t == nil || t.Label != "" {
		return false
	}
	opens := []*Open{}
	for _, o := range g.opts.Opens {
		opens = append(opens, o)
	}
	for _, d := range g.opts.Designed {
		if d.Action.Open != nil {
			opens = append(opens, d.Action.Open)
		}
	}
	for _, o := range opens {
		for _, r := range o.Avail {
			if r.Parent == table {
				return true
			}
		}
	}
	return false
}

// actionWrites reports whether an action adds rows to table (then the
// plain create is not offered: the action keeps the rules).
func (g *gen) actionWrites(table string) bool {
	return g.acted[table]
}

// link reports whether t is a link table: it joins two or more rows and
// holds no number of its own (a quantity or a price would make it a line):
// every column is part of its key, a reference or a stamp, or its key is
// made of references only (a book's author and their role).
func link(t *dbmodel.Table) bool {
	if len(t.ForeignKeys) < 2 {
		return false
	}
	keyRefs, plain := len(t.PrimaryKey) >= 2, true
	for _, k := range t.PrimaryKey {
		keyRefs = keyRefs && t.ForeignKeyOf(k) != nil
	}
	for _, c := range t.Columns {
		if t.IsKey(c.Name) || t.ForeignKeyOf(c.Name) != nil || Stamp(c) {
			continue
		}
		plain = false
		if c.Kind == dbmodel.Integer || c.Kind == dbmodel.Real {
			return false
		}
	}
	return plain || keyRefs
}

// weight is how much the tables around t matter: the references in and
// out of it (the hub of a domain first: orders before regions).
func (g *gen) weight(table string) int {
	n := 0
	for _, t := range g.m.Tables {
		for _, fk := range t.ForeignKeys {
			if t.Name == table || fk.RefTable == table {
				n++
			}
		}
	}
	return n
}

// selectDomain keeps the domain toolset's tools, best first, within the
// limits (the size estimated from each tool's schema: names,
// descriptions, enums and the JSON around them).
func (g *gen) selectDomain(tools []*Tool) []*Tool {
	type ranked struct {
		t      *Tool
		rank   int
		weight int
	}
	var rs []ranked
	for _, t := range tools {
		if r := g.domainRank(t); r >= 0 {
			rs = append(rs, ranked{t, r, g.weight(t.Table)})
		}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(b.weight, a.weight))
	})
	var out []*Tool
	size := 2 // [ ]
	for _, r := range rs {
		s := SchemaEstimate(r.t)
		if len(out) == MaxDomainTools || size+s > MaxDomainSchemaBytes {
			if r.rank == 0 {
				g.m.Skip("action %s: over the toolset's limits (%d tools, %d bytes of schemas); left out", r.t.Name, MaxDomainTools, MaxDomainSchemaBytes)
			}
			continue
		}
		out = append(out, r.t)
		size += s
	}
	// Back in the order Generate made them: a table's tools together.
	slices.SortStableFunc(out, func(a, b *Tool) int { return cmp.Compare(slices.Index(tools, a), slices.Index(tools, b)) })
	return out
}

// SchemaEstimate is about how many bytes t's OpenAI function schema takes
// (the JSON the rollout sends; a little over, never under for the
// generated tools' shapes).
func SchemaEstimate(t *Tool) int {
	n := len(`{"type":"function","function":{"name":"","description":"","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false}}},`)
	n += len(t.Name) + jsonLen(t.Doc)
	n += paramsEstimate(t.Params)
	return n
}

func paramsEstimate(ps []Param) int {
	n := 0
	for _, p := range ps {
		n += 2*len(p.Name) + jsonLen(p.Doc) + len(`"":{"type":"integer","description":""},"",`)
		for _, e := range p.Enum {
			n += jsonLen(e) + 3
		}
		if len(p.Enum) > 0 {
			n += len(`,"enum":[]`)
		}
		if len(p.Items) > 0 {
			n += len(`"items":{"type":"object","properties":{},"required":[],"additionalProperties":false},`) + paramsEstimate(p.Items)
		}
	}
	return n
}

// jsonLen is the length of s as JSON text, quotes left out.
func jsonLen(s string) int {
	return len(fmt.Sprintf("%q", s)) - 2
}

// labels is the select list's tail naming the rows t refers to, for the
// domain toolset: a rental comes back with its customer's name and its
// film's title (through the inventory item, which has no name of its
// own), so that what a person asks takes one call, not ids to chase.
func (g *gen) labels(t *dbmodel.Table) string {
	if g.m.Table(t.Name) == nil {
		return "" // a view
	}
	taken := map[string]bool{}
	for _, c := range t.Columns {
		taken[c.Name] = true
	}
	out := ""
	add := func(alias, expr string) {
		if !taken[alias] {
			taken[alias] = true
			out += ", (" + expr + ") AS " + dbmodel.Quote(alias)
		}
	}
	for _, fk := range t.ForeignKeys {
		p := g.m.Table(fk.RefTable)
		if len(fk.Columns) != 1 || p == nil || p == t || len(p.PrimaryKey) != 1 || p.PrimaryKey[0] != fk.RefColumns[0] {
			continue
		}
		ref := dbmodel.Quote(t.Name) + "." + dbmodel.Quote(fk.Columns[0])
		role, _ := roleOf(g.names[t.Name].cols[fk.Columns[0]], g.names[p.Name], p)
		if p.Label != "" && p.Column(p.Label).Kind == dbmodel.Text {
			add(role+"_"+g.names[p.Name].cols[p.Label], "SELECT p."+dbmodel.Quote(p.Label)+" FROM "+dbmodel.Quote(p.Name)+" AS p WHERE p."+dbmodel.Quote(p.PrimaryKey[0])+" = "+ref)
			continue
		}
		// No name of its own: the names of what it refers to.
		for _, gfk := range p.ForeignKeys {
			gp := g.m.Table(gfk.RefTable)
			if len(gfk.Columns) != 1 || gp == nil || gp == p || gp == t || gp.Label == "" || len(gp.PrimaryKey) != 1 || gp.PrimaryKey[0] != gfk.RefColumns[0] || gp.Column(gp.Label).Kind != dbmodel.Text {
				continue
			}
			add(g.names[gp.Name].sing+"_"+g.names[gp.Name].cols[gp.Label],
				"SELECT gp."+dbmodel.Quote(gp.Label)+" FROM "+dbmodel.Quote(p.Name)+" AS p JOIN "+dbmodel.Quote(gp.Name)+" AS gp ON gp."+dbmodel.Quote(gp.PrimaryKey[0])+" = p."+dbmodel.Quote(gfk.Columns[0])+" WHERE p."+dbmodel.Quote(p.PrimaryKey[0])+" = "+ref)
		}
	}
	return out
}

// eventValue: a status value that says something happened to the row
// (shipped, cancelled, paid, closed, done): the states people move rows
// to. The participle's -ed is the general case.
func eventValue(v string) bool {
	l := norm(v)
	switch l {
	case "paid", "done", "lost", "sent", "won", "complete", "closed", "open", "active", "inactive":
		return true
	}
	return strings.HasSuffix(l, "ed")
}
