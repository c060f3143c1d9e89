package toolgen

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// renderAction writes the body of a domain action: read the row, check
// the rules, refuse in the domain's words, then write every row it
// touches. The runtime runs the call in one savepoint, so a refusal or a
// failure after the first write leaves nothing behind.
func (g *gen) renderAction(b *bytes.Buffer, t *Tool) {
	a := t.Action
	switch a.Rule {
	case RuleConsume:
		g.renderConsume(b, t)
		return
	case RuleLines:
		g.renderLines(b, t)
		return
	case RuleOpen:
		g.renderOpen(b, t)
		return
	}
	tbl := g.m.Table(t.Table)
	what := plainWords(g.names[tbl.Name].sing)
	w, keyArgs := keyWhere(t.Params, "")
	args := strings.Join(keyArgs, ", ")
	col := dbmodel.Quote(a.Column)
	var already string
	var sets []string
	var setArgs []string
	switch a.Rule {
	case RuleStatus:
		allowed := "1"
		var fromArgs []string
		if len(a.From) > 0 {
			// The moves a designed status allows: from these values only.
			marks := strings.TrimSuffix(strings.Repeat("?, ", len(a.From)), ", ")
			allowed = col + " IN (" + marks + ")"
			for _, v := range a.From {
				fromArgs = append(fromArgs, q(v))
			}
		}
		already = "SELECT " + col + " IS ? AS already, " + allowed + " AS allowed, " + col + " AS was FROM " + dbmodel.Quote(tbl.Name) + " WHERE " + w
		args = strings.Join(append([]string{q(a.Value)}, append(fromArgs, args)...), ", ")
		sets, setArgs = append(sets, col+" = ?"), append(setArgs, q(a.Value))
	case RuleMilestone:
		already = "SELECT " + col + " IS NOT NULL AS already, " + col + " AS was FROM " + dbmodel.Quote(tbl.Name) + " WHERE " + w
	}
	for _, m := range a.Moves {
		sets, setArgs = append(sets, dbmodel.Quote(m.Column)+" = ?"), append(setArgs, "now("+q(m.Layout)+")")
	}
	// The message says which row: "order order_id 7 not found".
	fmt.Fprintf(b, "\tcur, err := current(%s+%s+\" not found\", %s, %s)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n",
		q(what+" "), describeKey(t.Params), q(already), args)
	fmt.Fprintf(b, "\tif cur.Bool(\"already\") {\n\t\treturn nil, fmt.Errorf(\"cannot mark the %s %%s as %s: it is already %s (%s %%v); nothing was changed\", %s, cur.Value(\"was\"))\n\t}\n",
		what, pct(a.Value), pct(a.Value), pct(plainWords(g.names[tbl.Name].cols[a.Column])), describeKey(t.Params))
	if a.Rule == RuleStatus && len(a.From) > 0 {
		vals := make([]string, len(a.From))
		for i, v := range a.From {
			vals[i] = pct(v)
		}
		fmt.Fprintf(b, "\tif !cur.Bool(\"allowed\") {\n\t\treturn nil, fmt.Errorf(\"cannot mark the %s %%s as %s: it is %%v, and only a %s that is %s can be; nothing was changed\", %s, cur.Value(\"was\"))\n\t}\n",
			what, pct(a.Value), what, strings.Join(vals, " or "), describeKey(t.Params))
	}
	fmt.Fprintf(b, "\tif _, err := sdk.Exec(%s, %s, %s); err != nil {\n\t\treturn nil, explain(err, %s)\n\t}\n",
		q("UPDATE "+dbmodel.Quote(tbl.Name)+" SET "+strings.Join(sets, ", ")+" WHERE "+w), strings.Join(setArgs, ", "), strings.Join(keyArgs, ", "),
		q("cannot mark the "+what+" as "+a.Value))
	fmt.Fprintf(b, "\treturn one(%s, \"updated row not found\", %s, %s)\n", q(what), q("SELECT "+g.sel(tbl.Name)+" FROM "+dbmodel.Quote(tbl.Name)+" WHERE "+w), strings.Join(keyArgs, ", "))
}

// pct makes text safe inside a Go format string literal's quotes: the
// value goes through strconv.Quote later, and a % must stay a %.
func pct(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	u := strconvQuoteInner(s)
	return u
}

// strconvQuoteInner is strconv.Quote without the surrounding quotes.
func strconvQuoteInner(s string) string {
	qs := q(s)
	return qs[1 : len(qs)-1]
}

// renderConsume writes a line that draws on a parent's stock: the rules
// (a positive quantity, enough stock, one owner), the decrement, then the
// insert of the create tool.
func (g *gen) renderConsume(b *bytes.Buffer, t *Tool) {
	a := t.Action
	tbl := g.m.Table(t.Table)
	what := plainWords(g.names[tbl.Name].sing)
	pn := g.names[a.Stock.Table]
	param := func(col string) *Param {
		for i := range t.Params {
			if t.Params[i].Column == col {
				return &t.Params[i]
			}
		}
		return nil
	}
	qp, rp := param(a.Column), param(a.Stock.Ref)
	qty, ref := argExpr(*qp, false), argExpr(*rp, false)
	qtyWords := plainWords(g.names[tbl.Name].cols[a.Column])
	stockWords := plainWords(pn.cols[a.Stock.Column])
	fmt.Fprintf(b, "\tif %s <= 0 {\n\t\treturn nil, fmt.Errorf(\"cannot add the %s: the %s must be positive, not %%v; nothing was changed\", %s)\n\t}\n", qty, what, qtyWords, qty)
	sc := dbmodel.Quote(a.Stock.Column)
	sel := sc + " AS stock, " + sc + " IS NULL AS untracked"
	var extra [][2]string
	for i, c := range a.Copies {
		sel += fmt.Sprintf(", %s AS c%d", dbmodel.Quote(c), i)
		extra = append(extra, [2]string{c, fmt.Sprintf("stock.Value(\"c%d\")", i)})
	}
	fmt.Fprintf(b, "\tstock, err := current(fmt.Sprintf(\"%s: %s %%v does not exist\", %s), %s, %s)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n",
		rp.Name, plainWords(pn.sing), ref, q("SELECT "+sel+" FROM "+dbmodel.Quote(a.Stock.Table)+" WHERE "+dbmodel.Quote(a.Stock.Key)+" = ?"), ref)
	fmt.Fprintf(b, "\tif !stock.Bool(\"untracked\") && stock.Float(\"stock\") < float64(%s) {\n\t\treturn nil, fmt.Errorf(\"cannot add the %s: the %s %%v has %s %%v, less than the %%v asked; nothing was changed\", %s, stock.Value(\"stock\"), %s)\n\t}\n",
		qty, what, plainWords(pn.sing), stockWords, ref, qty)
	for _, o := range a.Owners {
		op := param(o.Ref)
		oref := argExpr(*op, false)
		fmt.Fprintf(b, "\tif same, err := sdk.QueryRow(%s, %s, %s); err != nil {\n\t\treturn nil, err\n\t} else if !same.Bool(\"same\") {\n\t\treturn nil, fmt.Errorf(\"cannot add the %s: the %s %%v and the %s %%v belong to different %s; nothing was changed\", %s, %s)\n\t}\n",
			q("SELECT (SELECT "+dbmodel.Quote(o.StockCol)+" FROM "+dbmodel.Quote(a.Stock.Table)+" WHERE "+dbmodel.Quote(a.Stock.Key)+" = ?) IS (SELECT "+dbmodel.Quote(o.OtherCol)+" FROM "+dbmodel.Quote(o.Other)+" WHERE "+dbmodel.Quote(o.OtherKey)+" = ?) AS same"),
			ref, oref, what, plainWords(pn.sing), plainWords(g.names[o.Other].sing), plainWords(g.names[o.Table].id), ref, oref)
	}
	fmt.Fprintf(b, "\tif _, err := sdk.Exec(%s, %s, %s); err != nil {\n\t\treturn nil, explain(err, %s)\n\t}\n",
		q("UPDATE "+dbmodel.Quote(a.Stock.Table)+" SET "+sc+" = "+sc+" - ? WHERE "+dbmodel.Quote(a.Stock.Key)+" = ? AND "+sc+" IS NOT NULL"), qty, ref,
		q("cannot take the "+qtyWords+" from the "+plainWords(pn.sing)))
	g.renderCreate(b, t, extra...)
}

// renderTotals sums again, after a consume's line is written, each parent
// total over the lines (inserted before renderCreate's return).
func (g *gen) renderTotals(b *bytes.Buffer, t *Tool) {
	for _, tot := range t.Action.Totals {
		var ref *Param
		for i := range t.Params {
			if t.Params[i].Column == tot.Ref {
				ref = &t.Params[i]
			}
		}
		if ref == nil {
			continue
		}
		v := dbmodel.Quote(tot.Price)
		if tot.Qty != "" {
			v += " * " + dbmodel.Quote(tot.Qty)
		}
		sql := "UPDATE " + dbmodel.Quote(tot.Parent) + " SET " + dbmodel.Quote(tot.Column) + " = (SELECT coalesce(sum(" + v + "), 0) FROM " +
			dbmodel.Quote(tot.Line) + " WHERE " + dbmodel.Quote(tot.Ref) + " = ?) WHERE " + dbmodel.Quote(tot.Key) + " = ?"
		r := argExpr(*ref, false)
		fmt.Fprintf(b, "\tif _, err := sdk.Exec(%s, %s, %s); err != nil {\n\t\treturn nil, err\n\t}\n", q(sql), r, r)
	}
}
