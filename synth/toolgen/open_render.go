package toolgen

import (
	"bytes"
	"fmt"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// renderOpen writes the body of an open action: every rule checked, in
// the domain's words, before the one insert; a failure of the insert
// (a CHECK) is a refusal too, since the savepoint leaves nothing.
func (g *gen) renderOpen(b *bytes.Buffer, t *Tool) {
	o := t.Action.Open
	tbl := g.m.Table(t.Table)
	n := g.names[tbl.Name]
	what := plainWords(n.sing)
	verb := openVerb(tbl, o)
	refuse := "cannot " + verb + " the " + what + ": "
	param := func(col string) *Param {
		for i := range t.Params {
			if t.Params[i].Column == col {
				return &t.Params[i]
			}
		}
		return nil
	}
	// guard wraps a check of an optional parameter in "given".
	guard := func(p *Param, body string) {
		if p.Required {
			b.WriteString(body)
			return
		}
		fmt.Fprintf(b, "\tif a.%s != nil {\n%s\t}\n", p.goName, body)
	}
	val := func(p *Param) string { return argExpr(*p, !p.Required) }
	for _, p := range t.Params {
		fk := tbl.ForeignKeyOf(p.Column)
		if fk == nil || len(fk.RefColumns) != 1 || g.names[fk.RefTable] == nil {
			continue
		}
		guard(&p, fmt.Sprintf("\tif ok, err := exists(%s, %s, %s); err != nil {\n\t\treturn nil, err\n\t} else if !ok {\n\t\treturn nil, fmt.Errorf(\"%s%s %%v does not exist; nothing was changed\", %s)\n\t}\n",
			q(dbmodel.Quote(fk.RefTable)), q(dbmodel.Quote(fk.RefColumns[0])), val(&p), pct(refuse), pct(plainWords(g.names[fk.RefTable].sing)), val(&p)))
	}
	for _, w := range o.Owners {
		pa, pb := param(w.A.Column), param(w.B.Column)
		sql := "SELECT (SELECT " + dbmodel.Quote(w.ACol) + " FROM " + dbmodel.Quote(w.A.Parent) + " WHERE " + dbmodel.Quote(w.A.Key) + " = ?) IS (SELECT " +
			dbmodel.Quote(w.BCol) + " FROM " + dbmodel.Quote(w.B.Parent) + " WHERE " + dbmodel.Quote(w.B.Key) + " = ?) AS same"
		fmt.Fprintf(b, "\tif same, err := sdk.QueryRow(%s, %s, %s); err != nil {\n\t\treturn nil, err\n\t} else if !same.Bool(\"same\") {\n\t\treturn nil, fmt.Errorf(\"%sthe %s %%v and the %s %%v belong to different %s; nothing was changed\", %s, %s)\n\t}\n",
			q(sql), val(pa), val(pb), pct(refuse), pct(plainWords(g.names[w.A.Parent].sing)), pct(plainWords(g.names[w.B.Parent].sing)), pct(plainWords(g.names[w.Owner].id)), val(pa), val(pb))
	}
	for _, bd := range o.Bounds {
		pv, pr := param(bd.Column), param(bd.Ref.Column)
		pn := g.names[bd.Ref.Parent]
		sql := "SELECT " + dbmodel.Quote(bd.Min) + " AS lo, " + dbmodel.Quote(bd.Max) + " AS hi, " + dbmodel.Quote(bd.Min) + " IS NULL OR " + dbmodel.Quote(bd.Max) +
			" IS NULL AS open FROM " + dbmodel.Quote(bd.Ref.Parent) + " WHERE " + dbmodel.Quote(bd.Ref.Key) + " = ?"
		body := fmt.Sprintf("\tif r, err := sdk.QueryRow(%s, %s); err != nil {\n\t\treturn nil, err\n\t} else if v := float64(%s); !r.Bool(\"open\") && (v < r.Float(\"lo\") || v > r.Float(\"hi\")) {\n\t\treturn nil, fmt.Errorf(\"%sthe %s %%v is outside the %s %%v's %s %%v to %s %%v; nothing was changed\", %s, %s, r.Value(\"lo\"), r.Value(\"hi\"))\n\t}\n",
			q(sql), val(pr), val(pv), pct(refuse), pct(plainWords(n.cols[bd.Column])), pct(plainWords(pn.sing)), pct(plainWords(pn.cols[bd.Min])), pct(plainWords(pn.cols[bd.Max])), val(pv), val(pr))
		guard(pv, body)
	}
	for _, r := range o.Avail {
		pr := param(r.Column)
		sql := "SELECT count(*) AS n FROM " + dbmodel.Quote(tbl.Name) + " WHERE " + dbmodel.Quote(r.Column) + " = ? AND " + dbmodel.Quote(o.Milestone) + " IS NULL"
		fmt.Fprintf(b, "\tif r, err := sdk.QueryRow(%s, %s); err != nil {\n\t\treturn nil, err\n\t} else if r.Int(\"n\") > 0 {\n\t\treturn nil, fmt.Errorf(\"%sthe %s %%v already has %s open (its %s not yet set); nothing was changed\", %s)\n\t}\n",
			q(sql), val(pr), pct(refuse), pct(plainWords(g.names[r.Parent].sing)), pct(dbmodel.Article(what)), pct(plainWords(n.cols[o.Milestone])), val(pr))
	}
	for _, u := range o.Unique {
		pu := param(u)
		if pu == nil {
			continue
		}
		guard(pu, fmt.Sprintf("\tif ok, err := exists(%s, %s, %s); err != nil {\n\t\treturn nil, err\n\t} else if ok {\n\t\treturn nil, fmt.Errorf(\"%sanother %s already has the %s %%v; nothing was changed\", %s)\n\t}\n",
			q(dbmodel.Quote(tbl.Name)), q(dbmodel.Quote(u)), val(pu), pct(refuse), pct(what), pct(plainWords(n.cols[u])), val(pu)))
	}
	b.WriteString("\tvar cols []string\n\tvar args []any\n")
	fmt.Fprintf(b, "\tcols, args = append(cols, %s), append(args, now(%s))\n", q(dbmodel.Quote(o.Start)), q(o.Layout))
	for _, p := range t.Params {
		writeSet(b, p)
	}
	res, id := "res", "res.LastInsertID"
	if o.Key != nil {
		// A key the call makes (a booking code), from the episode's
		// random source: a replay of the episode makes the same one.
		qk := dbmodel.Quote(tbl.PrimaryKey[0])
		fmt.Fprintf(b, "\tkey, err := newKey(%s, %s, %s, %d)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n", q(dbmodel.Quote(tbl.Name)), q(qk), q(o.Key.Alphabet), o.Key.Length)
		fmt.Fprintf(b, "\tcols, args = append(cols, %s), append(args, key)\n", q(qk))
		res, id = "_", "key"
	}
	assign := ":="
	if o.Key != nil {
		assign = "=" // err is declared with the key
	}
	fmt.Fprintf(b, "\t%s, err %s sdk.Exec(%s+strings.Join(cols, \", \")+\") VALUES (?\"+strings.Repeat(\", ?\", len(cols)-1)+\")\", args...)\n", res, assign, q("INSERT INTO "+dbmodel.Quote(tbl.Name)+" ("))
	fmt.Fprintf(b, "\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"%%w; nothing was changed\", explain(err, %s))\n\t}\n", q("cannot "+verb+" the "+what))
	fmt.Fprintf(b, "\treturn one(%s, \"opened row not found\", %s, %s)\n", q(what), q("SELECT "+g.sel(tbl.Name)+" FROM "+dbmodel.Quote(tbl.Name)+" WHERE "+dbmodel.Quote(tbl.PrimaryKey[0])+" = ?"), id)
}
