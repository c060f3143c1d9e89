package synth_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/emit"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// FuzzHostileSchema: whatever names, declared types, DEFAULTs and CHECKs
// a database holds, the generated schema creates no object the source did
// not have, and the generated Go declares exactly one function per tool
// (text from the database stays data: issue 25 findings 2 and 3).
func FuzzHostileSchema(f *testing.F) {
	f.Add("customers", "name", `'TEXT); CREATE TRIGGER zz_t AFTER UPDATE ON customers BEGIN DELETE FROM customers; END; CREATE TABLE zz (x'`, "'x'", "name <> ''")
	f.Add("notes", "body", "TEXT /* CHECK (body <> 'a') */", "NULL", "1 /* ) ; CREATE TABLE yy (a) -- */")
	f.Add("c3\nfunc P() {}\n//", "cust\nfunc P() {}\n//", "INTEGER", "(1\n)", "\"cust\nfunc P() {}\n//\" > 0")
	f.Add(`"quoted" [br]`, "select", "VARCHAR(40)", "'a\nb'", "length(\"select\") < 40")
	f.Add("Größe", "", "NUMERIC(10, 2)", "-1.5e3", "1")
	f.Add("x_test", "y", "DATE", "CURRENT_TIMESTAMP", "y IS NULL OR y > 0")
	f.Fuzz(func(t *testing.T, table, col, decl, dflt, check string) {
		src, ok := hostileSource(t, table, col, decl, dflt, check)
		if !ok {
			t.Skip("SQLite refuses this source")
		}
		defer src.Close()
		m, err := dbmodel.Read(src, dbmodel.Options{})
		if err != nil {
			return // a clear error is a fine answer
		}
		objs, err := emit.CheckSchema(m, nil)
		if err != nil || len(m.Tables) == 0 {
			return
		}
		schema := emit.Schema(m, objs)
		if err := emit.VerifySchema(m, schema, objs); err != nil {
			t.Fatalf("%v\n%s", err, schema)
		}
		// The emitted schema, run on its own, creates only source objects.
		made := objectsOf(t, schema)
		have := objectsOfConn(t, src)
		for _, o := range made {
			if !slices.Contains(have, o) && !strings.HasPrefix(o, "index synth_ix_") {
				t.Fatalf("the generated schema creates %s, which the source does not have\n%s", o, schema)
			}
		}
		spec, err := toolgen.Generate(m, toolgen.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if n := exportedFuncs(t, spec.Files); n != len(spec.Tools) {
			t.Fatalf("the generated Go declares %d exported functions for %d tools", n, len(spec.Tools))
		}
	})
}

// hostileSource makes a database from one CREATE TABLE statement built
// with the pieces pasted in (as a hostile author would), plus one row.
func hostileSource(t *testing.T, table, col, decl, dflt, check string) (*sqlite3.Conn, bool) {
	path := filepath.Join(t.TempDir(), "src.sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	sql := "CREATE TABLE " + dbmodel.Quote(table) + " (id INTEGER PRIMARY KEY, " + dbmodel.Quote(col) + " " + decl +
		" DEFAULT " + dflt + ", ref INTEGER REFERENCES " + dbmodel.Quote(table) + " (id), CHECK (" + check + "))"
	stmt, _, err := conn.Prepare(sql) // the first statement only
	if err != nil || stmt == nil {
		conn.Close()
		return nil, false
	}
	err = stmt.Exec()
	stmt.Close()
	if err != nil {
		conn.Close()
		return nil, false
	}
	conn.Exec("INSERT INTO " + dbmodel.Quote(table) + " (id) VALUES (1)")
	return conn, true
}

func objectsOf(t *testing.T, schema string) []string {
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(schema); err != nil {
		t.Fatalf("the generated schema does not run: %v\n%s", err, schema)
	}
	return objectsOfConn(t, conn)
}

func objectsOfConn(t *testing.T, conn *sqlite3.Conn) []string {
	stmt, _, err := conn.Prepare(`SELECT type || ' ' || name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	var out []string
	for stmt.Step() {
		out = append(out, stmt.ColumnText(0))
	}
	return out
}

// exportedFuncs counts the exported top-level functions of the files (the
// compiler makes each one a tool).
func exportedFuncs(t *testing.T, files map[string][]byte) int {
	n := 0
	fset := token.NewFileSet()
	for name, src := range files {
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatalf("%s does not parse: %v", name, err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && ast.IsExported(fd.Name.Name) {
				n++
			}
		}
	}
	return n
}

// TestHostileNamesInGo: issue 25 finding 3: a newline in a reference
// column's name (and in a DEFAULT) injected a function into the generated
// Go; the bundle must have exactly the tools the summary counts.
func TestHostileNamesInGo(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "hostile.sqlite", "CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);\n"+
		"CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, \"cust\nfunc P() (any, error) { return \"\"pwned\"\", nil }\n//\" INTEGER REFERENCES customers(id),"+
		" body TEXT DEFAULT 'x\nfunc Q() (any, error) { return 1, nil }\n//');\n"+
		"INSERT INTO customers VALUES (1, 'a@example.org'), (2, 'b@example.org');\n"+
		"INSERT INTO notes (id, title, \"cust\nfunc P() (any, error) { return \"\"pwned\"\", nil }\n//\") VALUES (1, 'one', 1), (2, 'two', 2);\n")
	res, _ := synthShape(t, db, 5)
	if len(res.Bundle.Manifest.Tools) != len(res.Spec.Tools) || res.Summary.Tools != len(res.Spec.Tools) {
		t.Errorf("bundle has %d tools, spec %d, summary %d", len(res.Bundle.Manifest.Tools), len(res.Spec.Tools), res.Summary.Tools)
	}
	for _, tl := range res.Bundle.Manifest.Tools {
		if tl.Name == "p" || tl.Name == "q" {
			t.Errorf("injected tool %s", tl.Name)
		}
	}
}
