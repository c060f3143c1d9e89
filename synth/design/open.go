package design

import (
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// validateOpen checks a designed open action (a row written under rules:
// rent, book, enrol, hire) against the schema, then keeps the rules the
// data holds (toolgen.CheckOpen, as the procedural route does): a rule the
// data contradicts is dropped with its reason, and the action with it when
// no rule is left. The schema's UNIQUE columns are rules of their own.
func validateOpen(m *dbmodel.Model, conn *sqlite3.Conn, aa ActionAnswer, seen map[string]bool) (*toolgen.Designed, []string, error) {
	if !nameRE.MatchString(aa.Name) {
		return nil, nil, fmt.Errorf("name %q: want lower-case letters, digits and _ (3 to 48)", aa.Name)
	}
	if seen[aa.Name] {
		return nil, nil, fmt.Errorf("name %q is used twice", aa.Name)
	}
	t := m.Table(aa.Table)
	if t == nil {
		return nil, nil, fmt.Errorf("no table %q", aa.Table)
	}
	if !toolgen.KeyMadeByCall(t) || t.MaintainedBy != "" {
		return nil, nil, fmt.Errorf("open: table %q has no one-column key a call can make (generated, or a text code), or a trigger keeps it", aa.Table)
	}
	c := t.Column(aa.Column)
	if c == nil || c.Kind != dbmodel.Text || c.TimeLayout == "" || t.IsKey(c.Name) || t.ForeignKeyOf(c.Name) != nil || !c.Writable() {
		return nil, nil, fmt.Errorf("open %q: want a time column of %s to stamp when the row is made", aa.Column, aa.Table)
	}
	o := &toolgen.Open{Start: c.Name, Layout: c.TimeLayout, Unique: toolgen.UniqueColumns(t)}
	// The row's owner (the customer an invoice is for): a rule where
	// every row of the data names one (toolgen.CheckOpen).
	for _, fk := range t.ForeignKeys {
		if r, ok := toolgen.RefOf(m, t, fk.Columns[0]); ok && len(fk.Columns) == 1 {
			o.Owned = append(o.Owned, r)
		}
	}
	if aa.ClosedBy != "" {
		mc := t.Column(aa.ClosedBy)
		if mc == nil || mc.NotNull || mc.Kind != dbmodel.Text || mc == c || t.IsKey(mc.Name) || t.ForeignKeyOf(mc.Name) != nil || !mc.Writable() {
			return nil, nil, fmt.Errorf("open: closed_by %q is not a nullable time column of %s", aa.ClosedBy, aa.Table)
		}
		o.Milestone = mc.Name
	}
	ref := func(col string) (toolgen.Ref, error) {
		r, ok := toolgen.RefOf(m, t, col)
		if !ok {
			return r, fmt.Errorf("open: %s.%q does not refer to a parent's one-column key", aa.Table, col)
		}
		return r, nil
	}
	for _, col := range aa.OneOpenPer {
		if o.Milestone == "" {
			return nil, nil, fmt.Errorf("open: one_open_per %q needs closed_by, the column that says a row is open", col)
		}
		r, err := ref(col)
		if err != nil {
			return nil, nil, err
		}
		o.Avail = append(o.Avail, r)
	}
	for _, b := range aa.Bounds {
		r, err := ref(b.Ref)
		if err != nil {
			return nil, nil, err
		}
		v := t.Column(b.Column)
		if v == nil || (v.Kind != dbmodel.Integer && v.Kind != dbmodel.Real) || t.IsKey(v.Name) || t.ForeignKeyOf(v.Name) != nil {
			return nil, nil, fmt.Errorf("open: bound %q is not a number column of %s", b.Column, aa.Table)
		}
		if !toolgen.BoundColumns(m.Table(r.Parent), b.Min, b.Max) {
			return nil, nil, fmt.Errorf("open: %q and %q are not two number columns of %s", b.Min, b.Max, r.Parent)
		}
		o.Bounds = append(o.Bounds, toolgen.Bound{Column: v.Name, Ref: r, Min: b.Min, Max: b.Max})
	}
	for _, pair := range aa.SameOwner {
		if len(pair) != 2 {
			return nil, nil, fmt.Errorf("open: same_owner wants pairs of reference columns, not %q", pair)
		}
		a, err := ref(pair[0])
		if err != nil {
			return nil, nil, err
		}
		b, err := ref(pair[1])
		if err != nil {
			return nil, nil, err
		}
		w := toolgen.SameOwners(m, t, a, b)
		if len(w) == 0 {
			return nil, nil, fmt.Errorf("open: the parents through %q and %q refer to no common owner", pair[0], pair[1])
		}
		o.Owners = append(o.Owners, w...)
	}
	kept, dropped, err := toolgen.CheckOpen(conn, m, t, o)
	if err != nil {
		return nil, nil, err
	}
	// The owner rules come from the references, not from the answer: one
	// the data does not hold is no rule, not a fault for the model to
	// repair. Reported as one, it read as the action's failure, and two
	// models in a row dropped a sound action for it (hr's hire, one
	// employee without a department).
	var asked []string
	for _, why := range dropped {
		if !strings.HasPrefix(why, toolgen.OwnerRulePrefix(t.Name)) {
			asked = append(asked, why)
		}
	}
	if kept.Rules() == 0 {
		return nil, asked, fmt.Errorf("open: no rule the data holds is left; a row with no rule is a plain create")
	}
	return &toolgen.Designed{Name: aa.Name, Table: t.Name, Action: toolgen.Action{Rule: toolgen.RuleOpen, Column: o.Start, Open: kept}}, asked, nil
}
