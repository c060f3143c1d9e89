package tasks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// distinguish finds an attribute that singles row out among the rows of
// child whose fkCol is parentKey: " whose status is shipped", or "" when the
// parent has only this one.
func (w *walker) distinguish(child *dbmodel.Table, fkCol string, parentKey any, row map[string]any, n int) (string, error) {
	count, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s = ?`, dbmodel.Quote(child.Name), dbmodel.Quote(fkCol)), parentKey)
	if err != nil {
		return "", err
	}
	if count == 1 {
		return "", nil
	}
	cols := describable(child)
	w.rng.Shuffle(len(cols), func(i, j int) { cols[i], cols[j] = cols[j], cols[i] })
	for _, col := range cols {
		v := row[col.Name]
		if v == nil || !sayable(v) {
			continue
		}
		same, err := dbmodel.QueryInt64(w.src, fmt.Sprintf(`SELECT COUNT(*) FROM %s WHERE %s = ? AND %s = ?`, dbmodel.Quote(child.Name), dbmodel.Quote(fkCol), dbmodel.Quote(col.Name)), parentKey, sqlValue(v))
		if err != nil {
			return "", err
		}
		if same == 1 {
			return fmt.Sprintf(" with %s %s", dbmodel.Words(col.Name), showCol(col, v)), nil
		}
	}
	return "", errDeadEnd
}

// describable lists the columns a user could use to pick a row out.
func describable(t *dbmodel.Table) []*dbmodel.Column {
	var out []*dbmodel.Column
	for _, c := range t.Columns {
		if t.IsKey(c.Name) && !t.IsNatural(c.Name) || t.ForeignKeyOf(c.Name) != nil || c.Kind == dbmodel.Blob || c.Bool {
			continue
		}
		out = append(out, c)
	}
	return out
}

// noteIDs records the entity's internal ids: its key (unless natural) and
// its references. Short numbers are left out: "3" would match any text.
func (c *chain) noteIDs(w *walker, e *entity) {
	for _, col := range e.table.Columns {
		internal := e.table.IsKey(col.Name) && !e.table.IsNatural(col.Name)
		if fk := e.table.ForeignKeyOf(col.Name); fk != nil {
			// A reference to a natural key (an ISBN, an email) is something
			// a user may say; a reference to an opaque id is not.
			internal = !w.spec.Model.Table(fk.RefTable).IsNatural(fk.RefColumns[0])
		}
		if !internal || e.row[col.Name] == nil {
			continue
		}
		s := fmt.Sprint(e.row[col.Name])
		if n, err := strconv.ParseInt(s, 10, 64); err == nil && n < 100 && n > -100 {
			continue
		}
		if len(s) >= 3 {
			c.ids = append(c.ids, s)
		}
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// showCol renders a column's value (booleans as yes/no).
func showCol(c *dbmodel.Column, v any) string {
	if c != nil && c.Bool {
		if sqlValue(v) == int64(1) {
			return "yes"
		}
		return "no"
	}
	return show(v)
}

// show renders a value for an instruction.
func show(v any) string {
	switch x := sqlValue(v).(type) {
	case string:
		if x == "" || strings.ContainsAny(x, " ,") {
			return strconv.Quote(x)
		}
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []byte:
		return "(binary)"
	}
	return fmt.Sprint(v)
}

// sayable: a value a person would say: not empty, not long prose, not a
// JSON document.
func sayable(v any) bool {
	s, ok := v.(string)
	if !ok {
		return true
	}
	s = strings.TrimSpace(s)
	return s != "" && len(s) <= 80 && !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[")
}
