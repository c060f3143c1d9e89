package compiler

import (
	"context"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"
)

// A field missing from a JSON record takes the column's DEFAULT; an
// explicit null stays NULL (issue 14, point 3).
func TestImportsUseColumnDefaults(t *testing.T) {
	dir := writeEnv(t, okTool, map[string]string{
		"env.yaml": "name: t\nimports:\n  - {file: data/m.json, table: m}\n",
		"schema.sql": "CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT);\n" +
			"CREATE TABLE m (id TEXT PRIMARY KEY, tier TEXT NOT NULL DEFAULT 'standard', note TEXT DEFAULT 'none', n INTEGER);\n",
		"data/m.json": `[{"id": "a"}, {"id": "b", "tier": "gold", "note": null, "n": 3}, {"id": "c", "n": 1}]`,
	})
	b, err := Build(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := serdes.Deserialize(conn, "main", b.DB); err != nil {
		t.Fatal(err)
	}
	stmt, _, err := conn.Prepare(`SELECT id, tier, coalesce(note, 'NULL'), coalesce(n, -1) FROM m ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	want := [][4]any{{"a", "standard", "none", int64(-1)}, {"b", "gold", "NULL", int64(3)}, {"c", "standard", "none", int64(1)}}
	for i := 0; stmt.Step(); i++ {
		got := [4]any{stmt.ColumnText(0), stmt.ColumnText(1), stmt.ColumnText(2), stmt.ColumnInt64(3)}
		if i >= len(want) || got != want[i] {
			t.Errorf("row %d: %v, want %v", i, got, want)
		}
	}
}
