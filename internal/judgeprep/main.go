// Command judgeprep writes what an LLM judge reads of a bundle (the AWM
// rubric, docs/SYNTHESIS.md "Judged"): schema.sql (every object's SQL) and
// data.txt (each table's row count and first rows) from the bundle's
// database. docs/judge/prepare.py adds the tools and a task sample.
//
//	go run ./internal/judgeprep BUNDLE OUTDIR
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"

	"github.com/wasmenv/wasmenv/envpkg"
)

const rowsShown = 12

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: judgeprep BUNDLE OUTDIR")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "judgeprep:", err)
		os.Exit(1)
	}
}

func run(bundle, out string) error {
	b, err := envpkg.Read(bundle)
	if err != nil {
		return err
	}
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := serdes.Deserialize(conn, "main", slices.Clone(b.DB)); err != nil {
		return err
	}
	var schema, data strings.Builder
	objects, err := column(conn, `SELECT sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		return err
	}
	for _, sql := range objects {
		schema.WriteString(sql + ";\n")
	}
	tables, err := column(conn, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return err
	}
	for _, t := range tables {
		if err := dumpTable(conn, t, &data); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "schema.sql"), []byte(schema.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "data.txt"), []byte(data.String()), 0o644)
}

func dumpTable(conn *sqlite3.Conn, table string, w *strings.Builder) error {
	q := `"` + strings.ReplaceAll(table, `"`, `""`) + `"`
	n, err := column(conn, `SELECT COUNT(*) FROM `+q)
	if err != nil {
		return err
	}
	s, _, err := conn.Prepare(fmt.Sprintf(`SELECT * FROM %s LIMIT %d`, q, rowsShown))
	if err != nil {
		return err
	}
	defer s.Close()
	var cols []string
	for i := range s.ColumnCount() {
		cols = append(cols, s.ColumnName(i))
	}
	fmt.Fprintf(w, "## %s (%s rows; first %d)\n%s\n", table, n[0], rowsShown, strings.Join(cols, " | "))
	for s.Step() {
		var vals []string
		for i := range s.ColumnCount() {
			switch s.ColumnType(i) {
			case sqlite3.NULL:
				vals = append(vals, "")
			case sqlite3.BLOB:
				vals = append(vals, fmt.Sprintf("<%d bytes>", len(s.ColumnRawBlob(i))))
			default:
				v := s.ColumnText(i)
				if len(v) > 80 {
					v = strings.ToValidUTF8(v[:80], "") + "…"
				}
				vals = append(vals, v)
			}
		}
		w.WriteString(strings.Join(vals, " | ") + "\n")
	}
	w.WriteString("\n")
	return s.Err()
}

func column(conn *sqlite3.Conn, sql string) ([]string, error) {
	s, _, err := conn.Prepare(sql)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var out []string
	for s.Step() {
		out = append(out, s.ColumnText(0))
	}
	return out, s.Err()
}
