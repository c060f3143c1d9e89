package dbmodel

import (
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// checkReferences completes declared references (an omitted parent column
// means the parent's primary key) and drops, naming each in m.Skipped, the
// ones an environment could not enforce: to a table or column that does
// not exist, to columns that are not a key of the parent (SQLite's
// "foreign key mismatch"), or broken by the data itself (SQLite enforces
// references only when asked, so many databases hold rows that refer to
// nothing). The rows are always kept: the data is what users query.
func checkReferences(conn *sqlite3.Conn, m *Model) error {
	for _, t := range m.Tables {
		kept := t.ForeignKeys[:0]
		for _, fk := range t.ForeignKeys {
			where := fmt.Sprintf("%s.%s → %s", t.Name, strings.Join(fk.Columns, ","), fk.RefTable)
			p := m.Table(fk.RefTable)
			if p == nil {
				m.skip("reference %s: table %s does not exist; reference dropped", where, fk.RefTable)
				continue
			}
			if len(fk.RefColumns) == 1 && fk.RefColumns[0] == "" && len(fk.Columns) != len(p.PrimaryKey) {
				m.skip("reference %s: %d columns refer to a %d-column key; reference dropped", where, len(fk.Columns), len(p.PrimaryKey))
				continue
			}
			for j, rc := range fk.RefColumns {
				if rc == "" && j < len(p.PrimaryKey) {
					fk.RefColumns[j] = p.PrimaryKey[j]
				}
			}
			if p.RowID && fk.RefColumns[0] == RowIDColumn {
				m.skip("reference %s: %s has no declared key; reference dropped", where, p.Name)
				continue
			}
			if why := badColumns(t, fk.Columns, p, fk.RefColumns); why != "" {
				m.skip("reference %s: %s; reference dropped", where, why)
				continue
			}
			n, err := brokenRows(conn, t.Name, fk.Columns, p.Name, fk.RefColumns)
			if err != nil {
				return err
			}
			if n > 0 {
				s := "s refer"
				if n == 1 {
					s = " refers"
				}
				m.skip("reference %s: %d row%s to a missing %s row; reference dropped, rows kept", where, n, s, p.Name)
				continue
			}
			kept = append(kept, fk)
		}
		t.ForeignKeys = kept
	}
	return nil
}

// badColumns says why cols of t cannot refer to refCols of p, or "".
func badColumns(t *Table, cols []string, p *Table, refCols []string) string {
	if len(cols) != len(refCols) {
		return "column counts differ"
	}
	for _, c := range cols {
		if t.Column(c) == nil {
			return fmt.Sprintf("no column %s", c)
		}
	}
	for _, c := range refCols {
		if p.Column(c) == nil {
			return fmt.Sprintf("%s has no column %s", p.Name, c)
		}
	}
	if sameSet(refCols, p.PrimaryKey) {
		return ""
	}
	if len(refCols) == 1 && p.Column(refCols[0]).Unique {
		return ""
	}
	for _, u := range p.Uniques {
		if sameSet(refCols, u) {
			return ""
		}
	}
	return fmt.Sprintf("%s(%s) is not a key of %s", p.Name, strings.Join(refCols, ","), p.Name)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || strings.EqualFold(x, y)
		}
		if !found {
			return false
		}
	}
	return true
}

// brokenRows counts rows of t whose reference columns are all set but
// match no row of p.
func brokenRows(conn *sqlite3.Conn, t string, cols []string, p string, refCols []string) (int64, error) {
	var set, match []string
	for i, c := range cols {
		set = append(set, "c."+quote(c)+" IS NOT NULL")
		match = append(match, "p."+quote(refCols[i])+" = c."+quote(c))
	}
	rows, err := queryRows(conn, fmt.Sprintf(`SELECT COUNT(*) FROM %s AS c WHERE %s AND NOT EXISTS (SELECT 1 FROM %s AS p WHERE %s)`,
		quote(t), strings.Join(set, " AND "), quote(p), strings.Join(match, " AND ")))
	if err != nil {
		return 0, err
	}
	return asInt(rows[0][0]), nil
}
