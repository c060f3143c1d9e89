package emit

import (
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// DefaultMaxRows is the most rows a table brings into the seed by default:
// a bundle holds its whole database, and an agent's tasks need a sample,
// not the source's millions of rows.
const DefaultMaxRows = 5000

// Sample chooses, on conn, the rows of each table the seed keeps, and
// returns the SQL condition (on the table's key) that selects them, by
// table name; a table kept whole has none. A table over maxRows keeps its
// first maxRows rows by key; then, until nothing changes, every row a kept
// row refers to (declared references, self-references and cycles
// included) is kept too. So the seed is closed under its references, and
// a table can keep more than maxRows rows when others refer to them. The
// choice lives in temporary tables of conn (the source may be read-only:
// TEMP is not). m's row counts become the seed's, and every sampled table
// is named in m.Skipped.
func Sample(conn *sqlite3.Conn, m *dbmodel.Model, maxRows int) (map[string]string, error) {
	if maxRows <= 0 {
		maxRows = DefaultMaxRows
	}
	big := false
	for _, t := range m.Tables {
		big = big || t.Rows > int64(maxRows)
	}
	if !big {
		return nil, nil
	}
	keys := map[string]string{} // table → its key expression
	sets := map[string]string{} // table → temp table of kept keys
	for i, t := range m.Tables {
		key := quoteList(t.PrimaryKey)
		if t.RowID {
			key = "rowid"
		}
		keys[t.Name] = key
		sets[t.Name] = fmt.Sprintf("temp.synth_keep_%d", i)
		limit := ""
		if t.Rows > int64(maxRows) {
			limit = fmt.Sprintf(" ORDER BY %s LIMIT %d", key, maxRows)
		}
		dbmodel.Fresh(conn) // each statement has its own work limit
		if err := conn.Exec(fmt.Sprintf("CREATE TEMP TABLE synth_keep_%d AS SELECT %s FROM %s%s", i, keyCols(key), dbmodel.Quote(t.Name), limit)); err != nil {
			return nil, fmt.Errorf("emit: sample %s: %w", dbmodel.CommentText(t.Name), err)
		}
	}
	for {
		added := 0
		for _, t := range m.Tables {
			for _, fk := range t.ForeignKeys {
				p := m.Table(fk.RefTable)
				if fk.Inferred || p == nil {
					continue
				}
				var cols, refs []string
				for i := range fk.Columns {
					cols = append(cols, "c."+dbmodel.Quote(fk.Columns[i]))
					refs = append(refs, "p."+dbmodel.Quote(fk.RefColumns[i]))
				}
				pk := prefixed("p.", keys[p.Name])
				dbmodel.Fresh(conn)
				err := conn.Exec(fmt.Sprintf(`INSERT INTO %s SELECT %s FROM %s AS p WHERE (%s) IN (SELECT %s FROM %s AS c WHERE (%s) IN (SELECT * FROM %s))
					AND (%s) NOT IN (SELECT * FROM %s)`, sets[p.Name], pk, dbmodel.Quote(p.Name), strings.Join(refs, ", "), strings.Join(cols, ", "),
					dbmodel.Quote(t.Name), prefixed("c.", keys[t.Name]), sets[t.Name], pk, sets[p.Name]))
				if err != nil {
					return nil, fmt.Errorf("emit: sample %s: %w", dbmodel.CommentText(t.Name), err)
				}
				added += int(conn.Changes())
			}
		}
		if added == 0 {
			break
		}
	}
	out := map[string]string{}
	for _, t := range m.Tables {
		n, err := count(conn, "SELECT COUNT(*) FROM "+sets[t.Name])
		if err != nil {
			return nil, err
		}
		if n < t.Rows {
			m.Skip("table %s: %d rows, seeded with %d (the first %d by key and the rows kept rows refer to; --max-rows)", t.Name, t.Rows, n, min(int64(maxRows), t.Rows))
			out[t.Name] = fmt.Sprintf("(%s) IN (SELECT * FROM %s)", keys[t.Name], sets[t.Name])
			t.Rows = n
		}
	}
	return out, nil
}

// prefixed qualifies each column of a key expression with an alias.
func prefixed(alias, key string) string {
	parts := strings.Split(key, ", ")
	for i, p := range parts {
		parts[i] = alias + p
	}
	return strings.Join(parts, ", ")
}

func count(conn *sqlite3.Conn, sql string) (int64, error) {
	dbmodel.Fresh(conn)
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return 0, err
	}
	defer stmt.Close()
	if !stmt.Step() {
		return 0, stmt.Err()
	}
	return stmt.ColumnInt64(0), nil
}

// keyCols turns a key expression into the columns of the temp table.
func keyCols(key string) string {
	if key == "rowid" {
		return "rowid AS rowid"
	}
	return key
}

func sameCols(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
