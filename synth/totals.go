package synth

import (
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// lineTotals finds the parent columns the data shows to be the sum of
// their lines (an invoice's total and its lines' unit price × quantity):
// a place_ action computes them rather than asking. Shown means every
// parent that has lines has that total, to the cent, and there are some.
func lineTotals(conn *sqlite3.Conn, m *dbmodel.Model) (map[string]toolgen.Total, error) {
	out := map[string]toolgen.Total{}
	for _, p := range m.Tables {
		if len(p.PrimaryKey) != 1 {
			continue
		}
		for _, l := range m.Tables {
			fk := refTo(l, p)
			if fk == "" || l == p {
				continue
			}
			if tot, ok, err := totalOf(conn, p, l, fk); err != nil {
				return nil, err
			} else if ok {
				out[p.Name] = tot
				break
			}
		}
	}
	return out, nil
}

// refTo is l's one column referring to p's key, "" when none.
func refTo(l, p *dbmodel.Table) string {
	for _, fk := range l.ForeignKeys {
		if fk.RefTable == p.Name && len(fk.Columns) == 1 && fk.RefColumns[0] == p.PrimaryKey[0] {
			return fk.Columns[0]
		}
	}
	return ""
}

func numeric(c *dbmodel.Column) bool { return c.Kind == dbmodel.Integer || c.Kind == dbmodel.Real }

func totalOf(conn *sqlite3.Conn, p, l *dbmodel.Table, ref string) (toolgen.Total, bool, error) {
	var qty string
	for _, c := range l.Columns {
		n := strings.ToLower(c.Name)
		if c.Kind == dbmodel.Integer && (n == "quantity" || n == "qty") {
			qty = c.Name
		}
	}
	for _, t := range p.Columns {
		if !numeric(t) || p.IsKey(t.Name) || p.ForeignKeyOf(t.Name) != nil {
			continue
		}
		for _, price := range l.Columns {
			if price.Kind != dbmodel.Real && price.Kind != dbmodel.Integer || l.IsKey(price.Name) || l.ForeignKeyOf(price.Name) != nil || price.Name == qty {
				continue
			}
			times := ""
			if qty != "" {
				times = " * " + dbmodel.Quote(qty)
			}
			// One pass over the lines, grouped, joined to the parents.
			sums := "(SELECT " + dbmodel.Quote(ref) + " AS ref, sum(" + dbmodel.Quote(price.Name) + times + ") AS v FROM " + dbmodel.Quote(l.Name) + " GROUP BY 1) AS s"
			sql := "SELECT count(*), coalesce(sum(abs(p." + dbmodel.Quote(t.Name) + " - s.v) > 0.005), 0) FROM " + sums + " JOIN " + dbmodel.Quote(p.Name) + " AS p ON p." + dbmodel.Quote(p.PrimaryKey[0]) + " = s.ref"
			n, bad, err := countPair(conn, sql)
			if err != nil {
				return toolgen.Total{}, false, err
			}
			if n >= 3 && bad == 0 {
				return toolgen.Total{Line: l.Name, Column: t.Name, Price: price.Name, Qty: qty}, true, nil
			}
		}
	}
	return toolgen.Total{}, false, nil
}

// countPair runs a query of two integer results.
func countPair(conn *sqlite3.Conn, sql string) (int64, int64, error) {
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return 0, 0, err
	}
	defer stmt.Close()
	if !stmt.Step() {
		return 0, 0, stmt.Err()
	}
	return stmt.ColumnInt64(0), stmt.ColumnInt64(1), stmt.Err()
}
