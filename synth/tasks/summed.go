package tasks

import (
	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// summedBy reports whether a numeric column of parent is, on every parent
// row that has lines, the sum of its lines in line (joined by ref): the
// line's own amount, its amount × qty, or its item's price × qty (the
// item joined by itemRef). One line more would leave such a total wrong,
// so a task never adds one on its own; a payment drawn on a card, whose
// amounts sum to no column of the order, is not held back. Decided by the
// data, like synth's lineTotals, not by the column's name.
func (w *walker) summedBy(parent, line, item *dbmodel.Table, ref, qty, itemRef string) bool {
	if len(parent.PrimaryKey) != 1 {
		return false
	}
	q := func(t, c string) string { return t + "." + dbmodel.Quote(c) }
	var per []string
	for _, c := range line.Columns {
		if numericCol(c) && !line.IsKey(c.Name) && line.ForeignKeyOf(c.Name) == nil {
			per = append(per, q("l", c.Name))
			if qty != "" && c.Name != qty {
				per = append(per, q("l", c.Name)+" * "+q("l", qty))
			}
		}
	}
	if item != nil && itemRef != "" && qty != "" && len(item.PrimaryKey) == 1 {
		for _, c := range item.Columns {
			if numericCol(c) && !item.IsKey(c.Name) && item.ForeignKeyOf(c.Name) == nil {
				per = append(per, q("i", c.Name)+" * "+q("l", qty))
			}
		}
	}
	from := dbmodel.Quote(line.Name) + " AS l"
	if item != nil && itemRef != "" && len(item.PrimaryKey) == 1 {
		from += " LEFT JOIN " + dbmodel.Quote(item.Name) + " AS i ON i." + dbmodel.Quote(item.PrimaryKey[0]) + " = " + q("l", itemRef)
	}
	for _, pc := range parent.Columns {
		if !numericCol(pc) || parent.IsKey(pc.Name) || parent.ForeignKeyOf(pc.Name) != nil {
			continue
		}
		for _, v := range per {
			sums := "(SELECT " + q("l", ref) + " AS ref, sum(" + v + ") AS v FROM " + from + " GROUP BY 1) AS s"
			sql := "SELECT CASE WHEN count(*) >= 3 AND coalesce(sum(abs(p." + dbmodel.Quote(pc.Name) + " - s.v) > 0.005), 0) = 0 THEN 1 ELSE 0 END FROM " +
				sums + " JOIN " + dbmodel.Quote(parent.Name) + " AS p ON p." + dbmodel.Quote(parent.PrimaryKey[0]) + " = s.ref"
			if n, err := w.count(sql); err == nil && n == 1 {
				return true
			}
		}
	}
	return false
}

func numericCol(c *dbmodel.Column) bool { return c.Kind == dbmodel.Integer || c.Kind == dbmodel.Real }
