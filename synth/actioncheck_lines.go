package synth

import (
	"fmt"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// linesCandidates are place_<parent> calls made from the data: a parent
// row's fields (its unique ones made new) and one line for an item with
// stock to spare, asking for one, its other fields from an existing line.
func linesCandidates(spec *toolgen.Spec, t *toolgen.Tool, src *sqlite3.Conn) ([]map[string]any, error) {
	a, tb := t.Action, spec.Model.Table(t.Table)
	ln := a.Lines
	parents, err := queryRows(src, "SELECT * FROM "+dbmodel.Quote(tb.Name)+" LIMIT 3")
	if err != nil {
		return nil, err
	}
	where := ""
	if a.Stock != nil {
		where = " WHERE " + dbmodel.Quote(a.Stock.Column) + " >= 2"
	}
	items, err := queryRows(src, "SELECT "+dbmodel.Quote(ln.ItemKey)+" AS k FROM "+dbmodel.Quote(ln.ItemTable)+where+" LIMIT 3")
	if err != nil {
		return nil, err
	}
	lines, err := queryRows(src, "SELECT * FROM "+dbmodel.Quote(ln.Table)+" LIMIT 1")
	if err != nil || len(lines) == 0 {
		return nil, err
	}
	var lp *toolgen.Param
	for i := range t.Params {
		if t.Params[i].Op == toolgen.OpLines {
			lp = &t.Params[i]
		}
	}
	var out []map[string]any
	for i, row := range parents {
		args := map[string]any{}
		for _, p := range t.Params {
			v := row[p.Column]
			if p.Op == toolgen.OpLines || v == nil || p.Stamp {
				continue
			}
			if _, blob := v.([]byte); blob {
				continue
			}
			if unique(tb, p.Column) {
				if v, err = freshValue(src, tb, p.Column, v, i); err != nil {
					return nil, err
				}
			}
			args[p.Name] = convert(v, p.Type)
		}
		for _, it := range items {
			line := map[string]any{}
			for _, f := range lp.Items {
				v := lines[0][f.Column]
				switch f.Column {
				case ln.Item:
					v = it["k"]
				case ln.Qty:
					v = int64(1)
				}
				if v == nil {
					continue
				}
				if _, blob := v.([]byte); blob {
					continue
				}
				line[f.Name] = convert(v, f.Type)
			}
			c := maps(args)
			c[lp.Name] = []map[string]any{line}
			out = append(out, c)
		}
	}
	return out, nil
}

// refuseLines is a call place_<parent>'s rules must refuse, made from one
// that succeeded: its line asks for all the stock there was (one is gone
// now), or for nothing, or it has no line.
func refuseLines(t *toolgen.Tool, ok map[string]any, src *sqlite3.Conn) (map[string]any, error) {
	a := t.Action
	var lp *toolgen.Param
	for i := range t.Params {
		if t.Params[i].Op == toolgen.OpLines {
			lp = &t.Params[i]
		}
	}
	refuse := maps(ok)
	lines := ok[lp.Name].([]map[string]any)
	line := maps(lines[0])
	name := func(col string) string {
		for _, f := range lp.Items {
			if f.Column == col {
				return f.Name
			}
		}
		return ""
	}
	switch {
	case a.Stock != nil:
		rows, err := queryRows(src, "SELECT "+dbmodel.Quote(a.Stock.Column)+" AS s FROM "+dbmodel.Quote(a.Stock.Table)+" WHERE "+dbmodel.Quote(a.Stock.Key)+" = ?", line[name(a.Lines.Item)])
		if err != nil || len(rows) == 0 {
			return nil, fmt.Errorf("the stock of %v: %v", line[name(a.Lines.Item)], err)
		}
		line[name(a.Lines.Qty)] = rows[0]["s"]
		refuse[lp.Name] = []map[string]any{line}
	case a.Lines.Qty != "":
		line[name(a.Lines.Qty)] = int64(0)
		refuse[lp.Name] = []map[string]any{line}
	default:
		refuse[lp.Name] = []map[string]any{}
	}
	return refuse, nil
}

// unique reports whether col of t must differ from row to row.
func unique(t *dbmodel.Table, col string) bool {
	if t.IsKey(col) && len(t.PrimaryKey) == 1 || t.IsNatural(col) {
		return true
	}
	for _, u := range t.Uniques {
		if len(u) == 1 && u[0] == col {
			return true
		}
	}
	return false
}

// freshValue is a value of a unique column no row has: max + 1 for a
// number, the text with a suffix for text.
func freshValue(src *sqlite3.Conn, t *dbmodel.Table, col string, v any, i int) (any, error) {
	switch v.(type) {
	case int64, float64:
		rows, err := queryRows(src, "SELECT coalesce(max("+dbmodel.Quote(col)+"), 0) + 1 + ? AS n FROM "+dbmodel.Quote(t.Name), int64(i))
		if err != nil {
			return nil, err
		}
		return rows[0]["n"], nil
	}
	return fmt.Sprintf("%v-new%d", v, i+1), nil
}
