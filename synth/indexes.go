package synth

import (
	"fmt"
	"strings"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// A lookup is one way the generated tools find rows: equality on a column
// of a table, ignoring case (find_* tools compare with COLLATE NOCASE) or
// in the column's own collation (list filters, follow-reference tools).
type lookup struct {
	table, column string
	noCase        bool
}

// where is the lookup's WHERE clause, as the generated tools write it.
func (l lookup) where() string {
	w := dbmodel.Quote(l.column) + " = ?1"
	if l.noCase {
		w += " COLLATE NOCASE"
	}
	return w
}

// lookupIndexSet is what lookupIndexes adds to the schema.
type lookupIndexSet struct {
	sql   string   // CREATE INDEX statements with a heading comment; "" for none
	names []string // the indexes' names
}

// lookupIndexes returns the CREATE INDEX statements for the lookups of spec's tools that
// no key or index of schema serves. Without them a find by name, a list
// filter or a reference followed from its parent scans the whole table,
// so an episode's cost grows with the data. Each lookup is asked of
// SQLite itself (EXPLAIN QUERY PLAN on schema): an index is added only
// where the plan scans, kept only where the plan then uses it, and has
// the collation the query compares in (a NOCASE lookup cannot use a
// BINARY index). Names are deterministic: synth_lookup_<table>_<column>,
// "_nocase" for a case-insensitive one. Rows come back in the same order
// as without the index (ties in key order), so no tool's output changes.
func lookupIndexes(schema string, spec *toolgen.Spec) (*lookupIndexSet, error) {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.Exec(schema); err != nil {
		return nil, fmt.Errorf("synth: lookup indexes: the schema: %w", err)
	}
	var out []string
	set := &lookupIndexSet{}
	seen := map[lookup]bool{}
	for _, l := range toolLookups(spec) {
		if seen[l] {
			continue
		}
		seen[l] = true
		if ok, err := isTable(conn, l.table); err != nil || !ok {
			if err != nil {
				return nil, err
			}
			continue // a view: nothing to index
		}
		if served, err := searches(conn, l); err != nil || served {
			if err != nil {
				return nil, err
			}
			continue
		}
		name, err := freeIndexName(conn, l)
		if err != nil {
			return nil, err
		}
		col := dbmodel.Quote(l.column)
		if l.noCase {
			col += " COLLATE NOCASE"
		}
		stmt := fmt.Sprintf("CREATE INDEX %s ON %s (%s)", dbmodel.Quote(name), dbmodel.Quote(l.table), col)
		if err := conn.Exec(stmt); err != nil {
			return nil, fmt.Errorf("synth: lookup index on %s.%s: %w", l.table, l.column, err)
		}
		if served, err := searches(conn, l); err != nil || !served {
			if err != nil {
				return nil, err
			}
			if err := conn.Exec("DROP INDEX " + dbmodel.Quote(name)); err != nil {
				return nil, err
			}
			continue // the planner would not use it: no point storing it
		}
		out = append(out, stmt+";\n")
		set.names = append(set.names, name)
	}
	if len(out) > 0 {
		set.sql = "\n-- Indexes on the columns the tools look rows up by (find_* ignoring case, list\n" +
			"-- filters), so that a lookup does not scan the table.\n" + strings.Join(out, "")
	}
	return set, nil
}

// dropFrom removes the indexes from conn, a private copy of the built
// database. The task walk samples rows with queries that have no ORDER BY
// ("the first row with a name", LIMIT 1 OFFSET n), whose order an index
// may change (a covering index is read in its own order): on a copy
// without these indexes it sees the rows as before, so the tasks made do
// not depend on them.
func (set *lookupIndexSet) dropFrom(conn *sqlite3.Conn) error {
	for _, name := range set.names {
		if err := conn.Exec("DROP INDEX " + dbmodel.Quote(name)); err != nil {
			return fmt.Errorf("synth: lookup index %s: %w", name, err)
		}
	}
	return nil
}

// toolLookups lists the equality lookups of spec's tools, in tool order.
// Range and substring filters are left out (an index would serve few of
// them and slow every write), and so are boolean filters (two values: an
// index costs more than the scan it saves).
func toolLookups(spec *toolgen.Spec) []lookup {
	var out []lookup
	for _, t := range spec.Tools {
		switch t.Kind {
		case toolgen.Find:
			if len(t.Params) == 1 && t.Params[0].Op == toolgen.OpKey {
				out = append(out, lookup{t.Table, t.Params[0].Column, true})
			}
		case toolgen.List, toolgen.Children:
			for _, p := range t.Params {
				if (p.Op == toolgen.OpEq || p.Op == toolgen.OpKey) && p.Type != "boolean" && p.Column != "" {
					out = append(out, lookup{t.Table, p.Column, false})
				}
			}
		case toolgen.Parent:
			if t.Via != nil && len(t.Via.RefColumns) == 1 {
				out = append(out, lookup{t.Table, t.Via.RefColumns[0], false})
			}
		}
	}
	return out
}

func isTable(conn *sqlite3.Conn, name string) (bool, error) {
	stmt, _, err := conn.Prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`)
	if err != nil {
		return false, err
	}
	defer stmt.Close()
	if err := stmt.BindText(1, name); err != nil {
		return false, err
	}
	ok := stmt.Step()
	return ok, stmt.Err()
}

// searches reports whether SQLite answers l with a search (a key or an
// index) rather than a scan of the table.
func searches(conn *sqlite3.Conn, l lookup) (bool, error) {
	stmt, _, err := conn.Prepare("EXPLAIN QUERY PLAN SELECT * FROM " + dbmodel.Quote(l.table) + " WHERE " + l.where())
	if err != nil {
		return false, fmt.Errorf("synth: lookup on %s.%s: %w", l.table, l.column, err)
	}
	defer stmt.Close()
	search := false
	for stmt.Step() {
		detail := stmt.ColumnText(3)
		if strings.HasPrefix(detail, "SCAN ") {
			return false, stmt.Err()
		}
		search = search || strings.HasPrefix(detail, "SEARCH ")
	}
	return search, stmt.Err()
}

// freeIndexName is synth_lookup_<table>_<column>[_nocase], with a number
// appended while the schema already has an object of that name.
func freeIndexName(conn *sqlite3.Conn, l lookup) (string, error) {
	base := "synth_lookup_" + l.table + "_" + l.column
	if l.noCase {
		base += "_nocase"
	}
	stmt, _, err := conn.Prepare(`SELECT 1 FROM sqlite_schema WHERE name = ? COLLATE NOCASE`)
	if err != nil {
		return "", err
	}
	defer stmt.Close()
	for i := 1; ; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s_%d", base, i)
		}
		if err := stmt.BindText(1, name); err != nil {
			return "", err
		}
		taken := stmt.Step()
		if err := stmt.Reset(); err != nil {
			return "", err
		}
		if !taken {
			return name, nil
		}
	}
}
