package synth

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestLookupIndexesKeepRowOrder: a query the tools make without ORDER BY
// (find_* returns the first row that matches) gives the same rows in the
// same order with the lookup indexes as without them, ties included: names
// equal but for case, rows inserted out of key order, a rowid table and a
// WITHOUT ROWID one. The indexes must change the cost, never the answer.
func TestLookupIndexesKeepRowOrder(t *testing.T) {
	const schema = `
CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT NOT NULL);
CREATE TABLE badges (code TEXT PRIMARY KEY, holder TEXT NOT NULL, city TEXT NOT NULL) WITHOUT ROWID;`
	const rows = `
INSERT INTO people VALUES (5, 'Ann', 'Oslo'), (2, 'ANN', 'Lima'), (9, 'ann', 'Oslo'), (3, 'Bob', 'Oslo'), (7, 'aNn', 'Lima'), (1, 'Ånn', 'Oslo');
INSERT INTO badges VALUES ('k', 'Ann', 'Oslo'), ('c', 'ANN', 'Lima'), ('x', 'ann', 'Oslo'), ('a', 'Bob', 'Oslo'), ('m', 'aNn', 'Oslo');`
	spec := &toolgen.Spec{}
	for _, tbl := range []struct{ table, name string }{{"people", "name"}, {"badges", "holder"}} {
		spec.Tools = append(spec.Tools,
			&toolgen.Tool{Name: "find_" + tbl.table, Kind: toolgen.Find, Table: tbl.table,
				Params: []toolgen.Param{{Name: tbl.name, Op: toolgen.OpKey, Column: tbl.name, Type: "string"}}},
			&toolgen.Tool{Name: "list_" + tbl.table, Kind: toolgen.List, Table: tbl.table,
				Params: []toolgen.Param{{Name: "city", Op: toolgen.OpEq, Column: "city", Type: "string"}}})
	}
	set, err := lookupIndexes(schema, spec)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.names) != 4 {
		t.Fatalf("want 4 lookup indexes, got %v:\n%s", set.names, set.sql)
	}
	queries := []string{
		`SELECT * FROM people WHERE "name" = 'ann' COLLATE NOCASE`,
		`SELECT * FROM people WHERE "city" = 'Oslo'`,
		`SELECT * FROM badges WHERE "holder" = 'ann' COLLATE NOCASE`,
		`SELECT * FROM badges WHERE "city" = 'Oslo'`,
	}
	plain, indexed := openWith(t, schema+rows), openWith(t, schema+set.sql+rows)
	for _, q := range queries {
		if plan := planOf(t, indexed, q); !strings.Contains(plan, "USING INDEX synth_lookup_") {
			t.Errorf("%s: the index is not used: %s", q, plan)
		}
		want, got := rowsOf(t, plain, q), rowsOf(t, indexed, q)
		if !slices.Equal(want, got) {
			t.Errorf("%s:\nwithout the index %v\nwith it           %v", q, want, got)
		}
	}
}

func openWith(t *testing.T, sql string) *sqlite3.Conn {
	t.Helper()
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Exec(sql); err != nil {
		t.Fatal(err)
	}
	return conn
}

func rowsOf(t *testing.T, conn *sqlite3.Conn, q string) []string {
	t.Helper()
	stmt, _, err := conn.Prepare(q)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	var out []string
	for stmt.Step() {
		var cols []string
		for i := range stmt.ColumnCount() {
			cols = append(cols, stmt.ColumnText(i))
		}
		out = append(out, fmt.Sprint(cols))
	}
	if err := stmt.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func planOf(t *testing.T, conn *sqlite3.Conn, q string) string {
	t.Helper()
	return strings.Join(rowsOf(t, conn, "EXPLAIN QUERY PLAN "+q), "; ")
}
