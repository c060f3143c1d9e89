package toolgen

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// A parent written with its lines (an order and its order lines, an
// invoice and its invoice lines) is one action: place_<parent> takes the
// parent's fields and a list of lines, checks every line (the item
// exists, a positive quantity, enough stock for all the lines of one item
// together), then writes the parent, the lines and the stock in the
// call's one transaction. A line column named like a column of its item
// (unit_price) is copied from the item: the price at the time of the
// order, not one the agent makes up. A parent's total that the data shows
// is the sum of its lines (Total, found by the caller on the source) is
// computed, not asked.

// RuleLines is the Action.Rule of a parent written with its lines.
const RuleLines = "lines"

// OpLines is the parameter holding a parent's lines (Param.Items are
// their fields).
const OpLines Op = "lines"

// Lines is what a RuleLines action writes besides the parent.
type Lines struct {
	Table     string   `json:"table"`      // the line table
	Ref       string   `json:"ref"`        // its column referring to the parent
	Item      string   `json:"item"`       // its column referring to the item
	ItemTable string   `json:"item_table"` // the item table
	ItemKey   string   `json:"item_key"`
	Qty       string   `json:"qty,omitempty"`    // its quantity column ("": one each)
	Copies    []string `json:"copies,omitempty"` // its columns copied from the item's column of the same name
	// Total is the parent's column that is the sum of its lines'
	// Price × Qty ("" when the data does not show one).
	Total string `json:"total,omitempty"`
	Price string `json:"price,omitempty"`
}

// Total is a parent column the data shows to be the sum of its lines.
type Total struct {
	Line   string // the line table
	Column string // the parent's column
	Price  string // the line's price column
	Qty    string // the line's quantity column ("" for one each)
}

// linesTools finds the line tables of t and makes place_<t> for the first.
func (g *gen) linesTools(t *dbmodel.Table) []*Tool {
	if len(t.PrimaryKey) != 1 || !t.Column(t.PrimaryKey[0]).Generated {
		return nil
	}
	for _, l := range g.m.Tables {
		ln := g.lineOf(t, l)
		if ln == nil {
			continue
		}
		if tot, ok := g.opts.Totals[t.Name]; ok && tot.Line == l.Name && tot.Qty == ln.Qty {
			ln.Total, ln.Price = tot.Column, tot.Price
		}
		params, ok := g.createParams(t)
		if !ok {
			return nil
		}
		var keep []Param
		for _, p := range params {
			if p.Column != ln.Total {
				keep = append(keep, p)
			}
		}
		lp := Param{Name: uniqueName(keep, "lines"), Type: "array", Required: true, Op: OpLines, Table: l.Name,
			Doc: fmt.Sprintf("The %s, at least one.", plainWords(g.names[l.Name].id))}
		lp.goName = camel(lp.Name)
		for _, c := range l.Columns {
			if c.Generated || !c.Writable() || c.Kind == dbmodel.Blob || c.Name == ln.Ref || contains(ln.Copies, c.Name) || Stamp(c) {
				continue
			}
			p := g.param(l, c, OpSet, g.names[l.Name].cols[c.Name], c.Name == ln.Item || c.Name == ln.Qty ||
				c.NotNull && (c.Default == nil || nonDeterministicDefault(*c.Default)))
			lp.Items = append(lp.Items, p)
		}
		n := g.names[t.Name]
		a := &Action{Rule: RuleLines, Lines: ln}
		if ln.Qty != "" {
			for _, s := range g.consumes(l) {
				if s.Column == ln.Qty && s.Stock.Table == ln.ItemTable {
					a.Stock = s.Stock
				}
			}
		}
		tl := g.newTool("place_"+n.sing, DomainAction, t, g.linesDoc(t, a))
		tl.Params, tl.Action = append(keep, lp), a
		g.acted[t.Name], g.acted[l.Name] = true, true
		return []*Tool{tl}
	}
	return nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func uniqueName(ps []Param, name string) string {
	for _, p := range ps {
		if p.Name == name {
			return uniqueName(ps, name+"_list")
		}
	}
	return name
}

// lineOf reports whether l holds lines of parent p: l refers to p and to
// one item table through one column each, its key is generated or made of
// those references, and its name starts with the parent's (order_lines,
// InvoiceLine, "Order Details").
func (g *gen) lineOf(p, l *dbmodel.Table) *Lines {
	if l == p || l.MaintainedBy != "" || !strings.HasPrefix(norm(l.Name), norm(dbmodel.Singular(p.Name))) {
		return nil
	}
	var ln Lines
	for _, fk := range l.ForeignKeys {
		if len(fk.Columns) != 1 {
			continue
		}
		rt := g.m.Table(fk.RefTable)
		switch {
		case fk.RefTable == p.Name && ln.Ref == "":
			ln.Ref = fk.Columns[0]
		case rt != nil && rt != p && rt != l && len(rt.PrimaryKey) == 1 && rt.PrimaryKey[0] == fk.RefColumns[0] && ln.Item == "":
			ln.Item, ln.ItemTable, ln.ItemKey = fk.Columns[0], rt.Name, rt.PrimaryKey[0]
		}
	}
	if ln.Ref == "" || ln.Item == "" {
		return nil
	}
	for _, k := range l.PrimaryKey {
		if !l.Column(k).Generated && k != ln.Ref && k != ln.Item {
			return nil
		}
	}
	// A line has something of its own, a number (a quantity, a price); a
	// row of two references only is a link (a playlist's track).
	if !slices.ContainsFunc(l.Columns, func(c *dbmodel.Column) bool {
		return (c.Kind == dbmodel.Integer || c.Kind == dbmodel.Real) && !l.IsKey(c.Name) && l.ForeignKeyOf(c.Name) == nil
	}) {
		return nil
	}
	ln.Table = l.Name
	item := g.m.Table(ln.ItemTable)
	for _, c := range l.Columns {
		if quantityNames[norm(c.Name)] && c.Kind == dbmodel.Integer && ln.Qty == "" {
			ln.Qty = c.Name
		}
	}
	ln.Copies = copiedFrom(l, item)
	return &ln
}

func (g *gen) linesDoc(t *dbmodel.Table, a *Action) string {
	ln := a.Lines
	n, lnn, in := g.names[t.Name], g.names[ln.Table], g.names[ln.ItemTable]
	doc := fmt.Sprintf("Places %s with its %s in one step: each line names %s", dbmodel.Article(plainWords(n.sing)), plainWords(lnn.id), dbmodel.Article(plainWords(in.sing)))
	if ln.Qty != "" {
		doc += " and a " + plainWords(lnn.cols[ln.Qty])
	}
	doc += "."
	for _, c := range ln.Copies {
		doc += fmt.Sprintf(" Each line's %s is the %s's own.", plainWords(lnn.cols[c]), plainWords(in.sing))
	}
	if ln.Total != "" {
		doc += fmt.Sprintf(" The %s is the sum of the lines.", plainWords(n.cols[ln.Total]))
	}
	doc += " Refused when a line's " + plainWords(in.sing) + " does not exist"
	if ln.Qty != "" {
		doc += " or its " + plainWords(lnn.cols[ln.Qty]) + " is not positive"
	}
	if a.Stock != nil {
		doc += fmt.Sprintf(", or when the %s has less %s than the lines ask", plainWords(in.sing), plainWords(in.cols[a.Stock.Column]))
	}
	return doc + ". Returns the new " + plainWords(n.sing) + " and its lines."
}

// renderLines writes the body of place_<parent>.
func (g *gen) renderLines(b *bytes.Buffer, t *Tool) {
	a := t.Action
	ln := a.Lines
	tbl, lt, it := g.m.Table(t.Table), g.m.Table(ln.Table), g.m.Table(ln.ItemTable)
	what, lwhat, iwhat := plainWords(g.names[tbl.Name].sing), plainWords(g.names[lt.Name].sing), plainWords(g.names[it.Name].sing)
	var lp Param
	for _, p := range t.Params {
		if p.Op == OpLines {
			lp = p
		}
	}
	field := func(col string) *Param {
		for i := range lp.Items {
			if lp.Items[i].Column == col {
				return &lp.Items[i]
			}
		}
		return nil
	}
	itemP := field(ln.Item)
	fmt.Fprintf(b, "\tif len(a.%s) == 0 {\n\t\treturn nil, fmt.Errorf(\"cannot place the %s: give at least one %s; nothing was changed\")\n\t}\n", lp.goName, what, lwhat)
	// Read every item first; refuse before writing anything.
	var sel []string
	for i, c := range ln.Copies {
		sel = append(sel, dbmodel.Quote(c)+" AS c"+fmt.Sprint(i))
	}
	sel = append(sel, "1 AS found")
	if a.Stock != nil {
		sc := dbmodel.Quote(a.Stock.Column)
		sel = append(sel, sc+" AS stock", sc+" IS NULL AS untracked")
	}
	b.WriteString("\titems := make([]sdk.Row, len(a." + lp.goName + "))\n")
	if a.Stock != nil {
		b.WriteString("\ttaken := map[string]float64{}\n")
	}
	if ln.Total != "" {
		b.WriteString("\ttotal := 0.0\n")
	}
	fmt.Fprintf(b, "\tfor i, l := range a.%s {\n", lp.goName)
	fmt.Fprintf(b, "\t\titem, err := current(fmt.Sprintf(\"cannot place the %s: line %%d: %s %%v does not exist; nothing was changed\", i+1, l.%s), %s, l.%s)\n\t\tif err != nil {\n\t\t\treturn nil, err\n\t\t}\n\t\titems[i] = item\n",
		what, iwhat, itemP.goName, q("SELECT "+strings.Join(sel, ", ")+" FROM "+dbmodel.Quote(it.Name)+" WHERE "+dbmodel.Quote(ln.ItemKey)+" = ?"), itemP.goName)
	qty := "1.0"
	if ln.Qty != "" {
		qp := field(ln.Qty)
		fmt.Fprintf(b, "\t\tif l.%s <= 0 {\n\t\t\treturn nil, fmt.Errorf(\"cannot place the %s: line %%d: the %s must be positive, not %%v; nothing was changed\", i+1, l.%s)\n\t\t}\n",
			qp.goName, what, plainWords(g.names[lt.Name].cols[ln.Qty]), qp.goName)
		qty = "float64(l." + qp.goName + ")"
	}
	if a.Stock != nil {
		fmt.Fprintf(b, "\t\ttaken[fmt.Sprint(l.%s)] += %s\n\t\tif !item.Bool(\"untracked\") && item.Float(\"stock\") < taken[fmt.Sprint(l.%s)] {\n\t\t\treturn nil, fmt.Errorf(\"cannot place the %s: the %s %%v has %s %%v, less than the %%v the lines ask; nothing was changed\", l.%s, item.Value(\"stock\"), taken[fmt.Sprint(l.%s)])\n\t\t}\n",
			itemP.goName, qty, itemP.goName, what, iwhat, plainWords(g.names[it.Name].cols[a.Stock.Column]), itemP.goName, itemP.goName)
	}
	if ln.Total != "" {
		price := "0.0"
		if i := indexOf(ln.Copies, ln.Price); i >= 0 {
			price = fmt.Sprintf("item.Float(\"c%d\")", i)
		} else if p := field(ln.Price); p != nil && p.Required {
			price = "float64(l." + p.goName + ")"
		}
		fmt.Fprintf(b, "\t\ttotal += %s * %s\n", price, qty)
	}
	b.WriteString("\t}\n")
	// The parent, as the create tool writes it, plus the total.
	b.WriteString("\tvar cols []string\n\tvar args []any\n")
	for _, p := range t.Params {
		if p.Op == OpLines {
			continue
		}
		writeSet(b, p)
	}
	if ln.Total != "" {
		fmt.Fprintf(b, "\tcols, args = append(cols, %s), append(args, float64(int64(total*100+0.5))/100)\n", q(dbmodel.Quote(ln.Total)))
	}
	fmt.Fprintf(b, "\tres, err := sdk.Exec(%s+strings.Join(cols, \", \")+\") VALUES (?\"+strings.Repeat(\", ?\", len(cols)-1)+\")\", args...)\n", q("INSERT INTO "+dbmodel.Quote(tbl.Name)+" ("))
	fmt.Fprintf(b, "\tif err != nil {\n\t\treturn nil, explain(err, %s)\n\t}\n\tid := res.LastInsertID\n", q("cannot place the "+what))
	fmt.Fprintf(b, "\tfor i, l := range a.%s {\n\t\tcols, args := []string{%s}, []any{id}\n", lp.goName, q(dbmodel.Quote(ln.Ref)))
	for i, c := range ln.Copies {
		fmt.Fprintf(b, "\t\tcols, args = append(cols, %s), append(args, items[i].Value(\"c%d\"))\n", q(dbmodel.Quote(c)), i)
	}
	b.WriteString("\t\ta := l\n")
	for _, p := range lp.Items {
		writeSet(b, p)
	}
	fmt.Fprintf(b, "\t\tif _, err := sdk.Exec(%s+strings.Join(cols, \", \")+\") VALUES (?\"+strings.Repeat(\", ?\", len(cols)-1)+\")\", args...); err != nil {\n\t\t\treturn nil, explain(err, fmt.Sprintf(\"cannot place the %s: line %%d\", i+1))\n\t\t}\n",
		q("INSERT INTO "+dbmodel.Quote(lt.Name)+" ("), what)
	if a.Stock != nil {
		sc := dbmodel.Quote(a.Stock.Column)
		qp := field(ln.Qty)
		fmt.Fprintf(b, "\t\tif _, err := sdk.Exec(%s, a.%s, a.%s); err != nil {\n\t\t\treturn nil, explain(err, %s)\n\t\t}\n",
			q("UPDATE "+dbmodel.Quote(it.Name)+" SET "+sc+" = "+sc+" - ? WHERE "+dbmodel.Quote(ln.ItemKey)+" = ? AND "+sc+" IS NOT NULL"), qp.goName, itemP.goName, q("cannot take the stock of the "+iwhat))
	}
	b.WriteString("\t}\n")
	fmt.Fprintf(b, "\tparent, err := one(%s, \"placed row not found\", %s, id)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n",
		q(what), q("SELECT "+g.sel(tbl.Name)+" FROM "+dbmodel.Quote(tbl.Name)+" WHERE "+dbmodel.Quote(tbl.PrimaryKey[0])+" = ?"))
	fmt.Fprintf(b, "\tlines, err := sdk.Query(%s, id)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn map[string]any{%s: parent, \"lines\": lines}, nil\n",
		q("SELECT "+g.sel(lt.Name)+" FROM "+dbmodel.Quote(lt.Name)+" WHERE "+dbmodel.Quote(ln.Ref)+" = ?"), q(g.names[tbl.Name].sing))
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// writeSet appends p's column and value to cols and args as a create
// does: required always, a stamp from the clock when left out, others
// when given.
func writeSet(b *bytes.Buffer, p Param) {
	switch {
	case p.Required:
		fmt.Fprintf(b, "\tcols, args = append(cols, %s), append(args, %s)\n", q(dbmodel.Quote(p.Column)), argExpr(p, false))
	case p.Stamp:
		fmt.Fprintf(b, "\tif a.%s != nil {\n\t\tcols, args = append(cols, %s), append(args, %s)\n\t} else {\n\t\tcols, args = append(cols, %s), append(args, now(%s))\n\t}\n",
			p.goName, q(dbmodel.Quote(p.Column)), argExpr(p, true), q(dbmodel.Quote(p.Column)), q(p.StampLayout))
	default:
		fmt.Fprintf(b, "\tif a.%s != nil {\n\t\tcols, args = append(cols, %s), append(args, %s)\n\t}\n", p.goName, q(dbmodel.Quote(p.Column)), argExpr(p, true))
	}
}
