package toolgen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// An open action writes a row under rules (rent a copy, hire a person,
// book a seat): the row with its references, stamped from the episode
// clock in its start column (rental_date, hire_date), checking before it
// writes:
//
//   - every referenced row exists;
//   - ownership: two of the row's parents belong to the same row of a
//     third table (as a consume's Owner), where every row of the data
//     agrees;
//   - availability: at most one open row per parent, where a nullable
//     milestone column (return_date) marks the row open and no parent in
//     the data ever had two rows open at once (a copy rented out once at
//     a time; a customer, who rents several at once, is not limited);
//   - bounds: a number within its parent's pair of bound columns
//     (salary within the job's min_salary and max_salary), where every row
//     of the data is;
//   - what the schema declares: a UNIQUE column already taken is refused
//     in words, and a CHECK that fails refuses the insert.
//
// The schema proposes the rules (OpenCandidate); the data keeps those it
// never contradicts (CheckOpen, run by the caller on the source) and the
// caller passes the kept ones in Options.Opens. The call runs in one
// savepoint: a refusal leaves nothing.

// RuleOpen is the Action.Rule of a row written under rules.
const RuleOpen = "open"

// Open is what a RuleOpen action checks and stamps.
type Open struct {
	Start     string `json:"start"`               // the time column stamped from the clock
	Layout    string `json:"layout"`              // its time layout
	Milestone string `json:"milestone,omitempty"` // the nullable column that is NULL while the row is open
	// Avail are the references with at most one open row per parent.
	Avail []Ref `json:"avail,omitempty"`
	// Bounds keep a number within its parent's pair of columns.
	Bounds []Bound `json:"bounds,omitempty"`
	// Owners are pairs of parents that must belong to the same owner.
	Owners []SameOwner `json:"owners,omitempty"`
	// Unique are the row's UNIQUE columns, checked before the insert.
	Unique []string `json:"unique,omitempty"`
	// Owned are references to the row's owner that every row of the data
	// names (the customer of an invoice, where customers have several):
	// a new row must belong to an owner that exists. A rule of a designed
	// action (a parent written for a person); the procedural route still
	// wants another rule, so a ledger is not made an action by it alone.
	Owned []Ref `json:"owned,omitempty"`
	// Key is how the call makes the row's key where the table's key is
	// not generated (a booking code): nil for a generated key.
	Key *KeyShape `json:"key,omitempty"`
}

// KeyShape is the shape of a text key the call makes: Length characters
// of Alphabet, drawn from the episode's random source (so a replay of the
// episode makes the same key), none that a row already has.
type KeyShape struct {
	Alphabet string `json:"alphabet"`
	Length   int    `json:"length"`
}

// Ref is a row's one-column reference to a parent's one-column key.
type Ref struct {
	Column string `json:"column"` // the row's column
	Parent string `json:"parent"`
	Key    string `json:"key"`
}

// Bound is a number column of the row kept within Min..Max of the parent
// it refers to through Ref.
type Bound struct {
	Column string `json:"column"`
	Ref    Ref    `json:"ref"`
	Min    string `json:"min"`
	Max    string `json:"max"`
}

// SameOwner: the parents through A and B refer to the same row of Owner
// (A.Parent.ACol = B.Parent.BCol).
type SameOwner struct {
	Owner string `json:"owner"`
	A     Ref    `json:"a"`
	ACol  string `json:"a_col"`
	B     Ref    `json:"b"`
	BCol  string `json:"b_col"`
}

// Rules counts the rules beyond the references existing (an owner's
// reference counts: the row is the owner's).
func (o *Open) Rules() int {
	return len(o.Avail) + len(o.Bounds) + len(o.Owners) + len(o.Unique) + len(o.Owned)
}

// OpenCandidate is the open action the schema allows on t with every rule
// the schema proposes (nil when t is not a row opened at a time): the
// caller keeps the rules the data holds (CheckOpen). t has a generated
// one-column key, a reference, and a required time column that is not
// bookkeeping.
func OpenCandidate(m *dbmodel.Model, t *dbmodel.Table) *Open {
	if len(t.PrimaryKey) != 1 || !KeyMadeByCall(t) || t.MaintainedBy != "" || link(t) || len(t.ForeignKeys) == 0 {
		return nil
	}
	o := &Open{Start: startColumn(t)}
	if o.Start == "" {
		return nil
	}
	o.Layout = stampLayout(t.Column(o.Start))
	refs := oneColumnRefs(m, t)
	for _, c := range t.Columns {
		if _, ok := milestone(t, c); ok {
			o.Milestone = c.Name
			o.Avail = refs
			break
		}
	}
	for _, c := range t.Columns {
		if (c.Kind != dbmodel.Integer && c.Kind != dbmodel.Real) || t.IsKey(c.Name) || t.ForeignKeyOf(c.Name) != nil || !c.Writable() {
			continue
		}
		for _, r := range refs {
			if lo, hi := boundPair(m.Table(r.Parent), c.Name); lo != "" {
				o.Bounds = append(o.Bounds, Bound{Column: c.Name, Ref: r, Min: lo, Max: hi})
			}
		}
	}
	for i, a := range refs {
		for _, b := range refs[i+1:] {
			o.Owners = append(o.Owners, SameOwners(m, t, a, b)...)
		}
	}
	o.Unique = UniqueColumns(t)
	o.Owned = refs // kept where every row of the data names one (CheckOpen)
	return o
}

// KeyMadeByCall: t's one-column key is one a call can make, generated by
// SQLite (an INTEGER PRIMARY KEY) or a text key that is no reference (a
// booking code: its shape is found in the data, KeyShapeOf).
func KeyMadeByCall(t *dbmodel.Table) bool {
	if len(t.PrimaryKey) != 1 {
		return false
	}
	c := t.Column(t.PrimaryKey[0])
	return c != nil && (c.Generated || c.Kind == dbmodel.Text && t.ForeignKeyOf(c.Name) == nil && c.Writable())
}

// SameOwners are the ownership rules two references a and b of t allow:
// their parents both refer to one owner table (an inventory copy's store
// and a customer's store).
func SameOwners(m *dbmodel.Model, t *dbmodel.Table, a, b Ref) []SameOwner {
	pa, pb := m.Table(a.Parent), m.Table(b.Parent)
	if pa == nil || pb == nil || pa == pb {
		return nil
	}
	var out []SameOwner
	for _, fa := range pa.ForeignKeys {
		for _, fb := range pb.ForeignKeys {
			if len(fa.Columns) == 1 && len(fb.Columns) == 1 && fa.RefTable == fb.RefTable && fa.RefTable != t.Name &&
				fa.RefTable != pa.Name && fa.RefTable != pb.Name && slices.Equal(fa.RefColumns, fb.RefColumns) {
				out = append(out, SameOwner{Owner: fa.RefTable, A: a, ACol: fa.Columns[0], B: b, BCol: fb.Columns[0]})
			}
		}
	}
	return out
}

// UniqueColumns are t's one-column UNIQUE columns an insert sets.
func UniqueColumns(t *dbmodel.Table) []string {
	var out []string
	for _, c := range t.Columns {
		if c.Unique && !t.IsKey(c.Name) && c.Writable() && !c.Generated && c.Kind != dbmodel.Blob {
			out = append(out, c.Name)
		}
	}
	return out
}

// RefOf is t's one-column reference through col, false when col is not one.
func RefOf(m *dbmodel.Model, t *dbmodel.Table, col string) (Ref, bool) {
	for _, r := range oneColumnRefs(m, t) {
		if r.Column == col {
			return r, true
		}
	}
	return Ref{}, false
}

// BoundColumns reports whether lo and hi of p are number columns that can
// bound a value (not keys, not references).
func BoundColumns(p *dbmodel.Table, lo, hi string) bool {
	for _, n := range []string{lo, hi} {
		c := p.Column(n)
		if c == nil || (c.Kind != dbmodel.Integer && c.Kind != dbmodel.Real) || p.IsKey(n) || p.ForeignKeyOf(n) != nil {
			return false
		}
	}
	return lo != hi
}

// startColumn is t's required time column that says when the row began
// (rental_date, hire_date): not bookkeeping (last_update), not a key or a
// reference; "" when none, or more than one (which one opens is unsure).
func startColumn(t *dbmodel.Table) string {
	var out []string
	for _, c := range t.Columns {
		if c.Kind == dbmodel.Text && c.TimeLayout != "" && c.NotNull && !t.IsKey(c.Name) && t.ForeignKeyOf(c.Name) == nil &&
			c.Writable() && !c.Generated && !Stamp(c) && len(c.Enum) == 0 {
			out = append(out, c.Name)
		}
	}
	if len(out) != 1 {
		return ""
	}
	return out[0]
}

// oneColumnRefs lists t's references to a parent's one-column key.
func oneColumnRefs(m *dbmodel.Model, t *dbmodel.Table) []Ref {
	var out []Ref
	for _, fk := range t.ForeignKeys {
		p := m.Table(fk.RefTable)
		if len(fk.Columns) != 1 || p == nil || p == t || len(p.PrimaryKey) != 1 || p.PrimaryKey[0] != fk.RefColumns[0] {
			continue
		}
		out = append(out, Ref{Column: fk.Columns[0], Parent: p.Name, Key: p.PrimaryKey[0]})
	}
	return out
}

// boundPair finds p's pair of number columns that bound col: named min
// and max of the same rest (min_salary, max_salary), the rest col's own
// name or empty; "" when none.
func boundPair(p *dbmodel.Table, col string) (string, string) {
	if p == nil {
		return "", ""
	}
	rest := func(c *dbmodel.Column, word string) (string, bool) {
		n := norm(c.Name)
		if (c.Kind != dbmodel.Integer && c.Kind != dbmodel.Real) || p.IsKey(c.Name) || p.ForeignKeyOf(c.Name) != nil {
			return "", false
		}
		if r, ok := strings.CutPrefix(n, word); ok {
			return r, true
		}
		if r, ok := strings.CutSuffix(n, word); ok {
			return r, true
		}
		return "", false
	}
	for _, lo := range p.Columns {
		lr, ok := rest(lo, "min")
		if !ok || lr != "" && lr != norm(col) {
			continue
		}
		for _, hi := range p.Columns {
			if hr, ok := rest(hi, "max"); ok && hr == lr {
				return lo.Name, hi.Name
			}
		}
	}
	return "", ""
}

// openTool renders the open action of t with the rules the data kept.
func (g *gen) openTool(t *dbmodel.Table, o *Open, name string) *Tool {
	params, ok := g.createParams(t)
	if !ok {
		return nil
	}
	need := map[string]bool{}
	for _, r := range o.Avail {
		need[r.Column] = true
	}
	for _, b := range o.Bounds {
		need[b.Column], need[b.Ref.Column] = true, true
	}
	for _, w := range o.Owners {
		need[w.A.Column], need[w.B.Column] = true, true
	}
	for _, r := range o.Owned {
		need[r.Column] = true
	}
	var keep []Param
	for _, p := range params {
		if p.Column == o.Start || p.Column == o.Milestone {
			continue // stamped by the call; a new row is open
		}
		if o.Key != nil && t.IsKey(p.Column) {
			continue // made by the call
		}
		if need[p.Column] {
			p.Required = true
		}
		keep = append(keep, p)
	}
	if name == "" {
		name = openVerb(t, o) + "_" + g.names[t.Name].sing
	}
	tl := g.newTool(name, DomainAction, t, g.openDoc(t, o))
	tl.Params, tl.Action = keep, &Action{Rule: RuleOpen, Column: o.Start, Open: o}
	g.acted[t.Name] = true
	return tl
}

// openVerb is what the action does, in the start column's words where
// they are a verb (hire_date: hire an employee), else "open" (a
// rental_date names the row, not what is done).
func openVerb(t *dbmodel.Table, o *Open) string {
	w := eventWord(o.Start)
	if w == "" || ident(w) != w || w == norm(dbmodel.Singular(t.Name)) || w == norm(t.Name) {
		return "open"
	}
	for _, noun := range []string{"ing", "al", "ion", "ment", "ed", "ance", "ence", "ure"} {
		if strings.HasSuffix(w, noun) {
			return "open"
		}
	}
	return w
}

// openDoc says what the action writes and each rule it refuses by.
func (g *gen) openDoc(t *dbmodel.Table, o *Open) string {
	n := g.names[t.Name]
	what := plainWords(n.sing)
	verb := openVerb(t, o)
	doc := fmt.Sprintf("%ss %s: writes it with its references, its %s the time of the call.", strings.ToUpper(verb[:1])+verb[1:], dbmodel.Article(what), plainWords(n.cols[o.Start]))
	doc += " Refused when a row it refers to does not exist."
	for _, w := range o.Owners {
		doc += fmt.Sprintf(" Refused when the %s and the %s belong to different %s.", plainWords(g.names[w.A.Parent].sing), plainWords(g.names[w.B.Parent].sing), plainWords(g.names[w.Owner].id))
	}
	for _, b := range o.Bounds {
		pn := g.names[b.Ref.Parent]
		doc += fmt.Sprintf(" Refused when the %s is outside the %s's %s to %s.", plainWords(n.cols[b.Column]), plainWords(pn.sing), plainWords(pn.cols[b.Min]), plainWords(pn.cols[b.Max]))
	}
	for _, r := range o.Avail {
		doc += fmt.Sprintf(" Refused when the %s already has %s open (its %s not yet set).", plainWords(g.names[r.Parent].sing), dbmodel.Article(what), plainWords(n.cols[o.Milestone]))
	}
	for _, u := range o.Unique {
		doc += fmt.Sprintf(" Refused when another %s already has its %s.", what, plainWords(n.cols[u]))
	}
	if len(t.Checks) > 0 {
		doc += " Refused when a value breaks the table's declared checks."
	}
	if o.Key != nil {
		doc += fmt.Sprintf(" Makes the new %s's %s.", what, plainWords(n.cols[t.PrimaryKey[0]]))
	}
	return doc + " Returns the new " + what + "."
}
