package synth_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
)

// sqlDB writes a database made by script to dir/name.
func sqlDB(t testing.TB, dir, name, script string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(script); err != nil {
		t.Fatal(err)
	}
	return path
}

// synthShape runs FromDB on db and fails the test on any error but "no
// task could be made" (some shapes have nothing a user can name).
func synthShape(t *testing.T, db string, n int) (*synth.Result, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "env")
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: out, Tasks: n, Seed: 5})
	if err != nil && !errors.Is(err, synth.ErrNoTasks) {
		t.Fatal(err)
	}
	if res != nil {
		res.Summary.Print(testWriter{t})
	}
	return res, out
}

// TestReferenceOrder: tables whose names sort before the tables they
// refer to, a self-reference whose parent row comes later, and a
// reference cycle all load (seed.sql used to be written in name order and
// failed with "FOREIGN KEY constraint failed").
func TestReferenceOrder(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "shop.sqlite", `
PRAGMA foreign_keys = OFF;
CREATE TABLE a_orders (id INTEGER PRIMARY KEY, number TEXT NOT NULL UNIQUE, customer_id INTEGER NOT NULL REFERENCES z_customers(id), total INTEGER);
CREATE TABLE z_customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE employees (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, manager_id INTEGER REFERENCES employees(id), dept_id INTEGER REFERENCES departments(id));
CREATE TABLE departments (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, head_id INTEGER REFERENCES employees(id));
INSERT INTO a_orders VALUES (1, 'A-1', 2, 10), (2, 'A-2', 1, 20), (3, 'A-3', 3, 30);
INSERT INTO z_customers VALUES (1, 'x@example.org', 'Xavier'), (2, 'y@example.org', 'Yolanda'), (3, 'z@example.org', 'Zed');
INSERT INTO employees VALUES (1, 'boss@example.org', 3, 1), (2, 'ann@example.org', 1, 2), (3, 'ceo@example.org', NULL, 1);
INSERT INTO departments VALUES (1, 'Sales', 1), (2, 'Support', 2);
`)
	res, out := synthShape(t, db, 20)
	if res.Bundle == nil {
		t.Fatal("no bundle")
	}
	seed, err := os.ReadFile(filepath.Join(out, "seed.sql"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(seed)
	if strings.Index(s, `INSERT INTO "z_customers"`) > strings.Index(s, `INSERT INTO "a_orders"`) {
		t.Error("a_orders is inserted before the customers it refers to")
	}
}

// TestBrokenReferences: source data that violates its own declared
// references (SQLite does not enforce them unless asked) keeps its rows;
// the reference is dropped and the summary says which and why.
func TestBrokenReferences(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "broken.sqlite", `
PRAGMA foreign_keys = OFF;
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
CREATE TABLE orders (id INTEGER PRIMARY KEY, number TEXT NOT NULL UNIQUE, customer_id INTEGER REFERENCES customers(id), note_id INTEGER REFERENCES nothere(id));
INSERT INTO customers VALUES (1, 'a@example.org'), (2, 'b@example.org');
INSERT INTO orders VALUES (1, 'N-1', 1, 5), (2, 'N-2', 99, NULL), (3, 'N-3', 2, NULL);
`)
	res, _ := synthShape(t, db, 10)
	if res.Model.Table("orders").Rows != 3 {
		t.Errorf("orders: %d rows, want all 3 kept", res.Model.Table("orders").Rows)
	}
	skipped := strings.Join(res.Summary.Skipped, "\n")
	for _, want := range []string{"orders.customer_id", "1 row", "orders.note_id", "nothere"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("summary's skipped list %q does not mention %q", skipped, want)
		}
	}
}

// TestAllOptionalCreate: create on a table whose every column is optional
// inserts a row of defaults (it panicked: strings: negative Repeat count).
func TestAllOptionalCreate(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "notes.sqlite", `
CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT, body TEXT DEFAULT 'empty');
INSERT INTO notes VALUES (1, 'first', 'x'), (2, 'second', 'y');
`)
	res, _ := synthShape(t, db, 3)
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	r, err := ep.Call(context.Background(), "create_note", json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != runtime.OutcomeOK || !strings.Contains(r.Content, `"body":"empty"`) {
		t.Errorf("create_note {}: %s %s", r.Outcome, r.Content)
	}
}

// TestOddDatabase: issue 25 finding 10, each of which crashed the run or
// made a wrong environment: an empty table, ±inf REALs, a 20 MB TEXT, a
// CHECK on a generated column, tables named like Go build constraints
// (*_test, *_windows) or like the helpers' file (zz_common), an empty
// column name, a path with '#' and '%41'.
func TestOddDatabase(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "odd#%41")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := sqlDB(t, dir, "lib%41#.sqlite", `
CREATE TABLE members (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, first TEXT, last TEXT,
  full TEXT GENERATED ALWAYS AS (first || ' ' || last) VIRTUAL, CHECK (length(full) < 80));
CREATE TABLE empty_things (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE readings (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE, value REAL);
CREATE TABLE notes_test (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, body TEXT);
CREATE TABLE files_windows (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE zz_common (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, "" TEXT);
INSERT INTO members (id, email, first, last) VALUES (1, 'a@example.org', 'Ana', 'Lopez'), (2, 'b@example.org', 'Bo', 'Chen');
INSERT INTO readings VALUES (1, 'hot', 9e999), (2, 'cold', -9e999), (3, 'mild', 20.5);
INSERT INTO notes_test VALUES (1, 'big', zeroblob(0)), (2, 'small', 'x');
UPDATE notes_test SET body = printf('%.*c', 20000000, 'x') WHERE id = 1;
INSERT INTO files_windows VALUES (1, 'boot.ini'), (2, 'autoexec.bat');
INSERT INTO zz_common VALUES (1, 'A1', 'first'), (2, 'B2', 'second');
`)
	res, out := synthShape(t, db, 10)
	for _, f := range []string{"notes_test_tools.go", "files_windows_tools.go", "zz_common_tools.go", "zz_common.go"} {
		if _, err := os.Stat(filepath.Join(out, "tools", f)); err != nil {
			t.Error(err)
		}
	}
	for _, tool := range []string{"get_notes_test", "get_files_window", "get_zz_common", "get_empty_thing", "get_reading", "create_member"} {
		if res.Spec.Tool(tool) == nil || !slices.ContainsFunc(res.Bundle.Manifest.Tools, func(m envpkg.Tool) bool { return m.Name == tool }) {
			t.Errorf("tool %s missing from the spec or the bundle", tool)
		}
	}
	if c := res.Model.Table("members").Column("full"); c == nil || c.Expr == "" {
		t.Errorf("generated column: %+v", c)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	for _, c := range []struct{ tool, args, want string }{
		{"create_member", `{"email": "c@example.org", "first": "Cy", "last": "Diaz"}`, `"full":"Cy Diaz"`},
		{"get_reading", `{"id": 1}`, `"label":"hot"`},
		{"get_notes_test", `{"id": 2}`, `"body":"x"`},
		{"delete_zz_common", `{"id": 2}`, `deleted`},
	} {
		r, err := ep.Call(context.Background(), c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != runtime.OutcomeOK || !strings.Contains(r.Content, c.want) {
			t.Errorf("%s %s: %s %.200s", c.tool, c.args, r.Outcome, r.Content)
		}
	}
}

// TestSampleClosure: tables over the row cap are sampled, and every kept
// row's references point to kept rows (the bundle builds with its
// references enforced), through a chain, a self-reference and a cycle.
func TestSampleClosure(t *testing.T) {
	var b strings.Builder
	b.WriteString(`PRAGMA foreign_keys = OFF;
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, referrer_id INTEGER REFERENCES customers(id), team_id INTEGER REFERENCES teams(id));
CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, captain_id INTEGER REFERENCES customers(id));
CREATE TABLE orders (id INTEGER PRIMARY KEY, number TEXT NOT NULL UNIQUE, customer_id INTEGER NOT NULL REFERENCES customers(id));
CREATE TABLE items (order_id INTEGER NOT NULL REFERENCES orders(id), line INTEGER NOT NULL, sku TEXT NOT NULL, PRIMARY KEY (order_id, line)) WITHOUT ROWID;
BEGIN;
`)
	for i := 1; i <= 400; i++ {
		var ref any = i / 2 // a chain of referrers down to customer 1
		if i == 1 {
			ref = "NULL"
		}
		fmt.Fprintf(&b, "INSERT INTO customers VALUES (%d, 'c%d@example.org', %v, %d);\n", i, i, ref, 1+i%50)
	}
	for i := 1; i <= 50; i++ {
		fmt.Fprintf(&b, "INSERT INTO teams VALUES (%d, 'Team %s', %d);\n", i, word(i), 1+(i*91)%400)
	}
	for i := 1; i <= 600; i++ {
		fmt.Fprintf(&b, "INSERT INTO orders VALUES (%d, 'N-%05d', %d);\n", i, i, 1+(i*13)%400)
		for l := 1; l <= 3; l++ {
			fmt.Fprintf(&b, "INSERT INTO items VALUES (%d, %d, 'SKU-%d');\n", i, l, (i*l)%97)
		}
	}
	b.WriteString("COMMIT;\n")
	db := sqlDB(t, t.TempDir(), "big.sqlite", b.String())
	out := filepath.Join(t.TempDir(), "env")
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: out, Tasks: 10, Seed: 3, MaxRows: sampleCap})
	if err != nil {
		t.Fatal(err)
	}
	// Items and orders keep their first 100 rows; customers, more: the
	// ones kept orders, teams and customers refer to.
	for name, want := range map[string]int64{"items": 100, "orders": 100, "teams": 50} {
		if got := res.Model.Table(name).Rows; got != want {
			t.Errorf("%s: %d rows in the seed, want %d", name, got, want)
		}
	}
	if n := res.Model.Table("customers").Rows; n <= 100 || n >= 400 {
		t.Errorf("customers: %d rows in the seed", n)
	}
	skipped := strings.Join(res.Summary.Skipped, "\n")
	for _, want := range []string{"table customers: 400 rows, seeded with", "table items: 1800 rows, seeded with"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("summary %q lacks %q", skipped, want)
		}
	}
	// The built database agrees with the model and keeps its references.
	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := serdesLoad(conn, res.Bundle.DB); err != nil {
		t.Fatal(err)
	}
	stmt, _, err := conn.Prepare("SELECT COUNT(*) FROM pragma_foreign_key_check")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	if stmt.Step(); stmt.ColumnInt(0) != 0 {
		t.Errorf("%d broken references in the seed", stmt.ColumnInt(0))
	}
}

func serdesLoad(conn *sqlite3.Conn, img []byte) error {
	return serdes.Deserialize(conn, "main", slices.Clone(img))
}

var sampleCap = 100

// TestQuotedNumbersAreEntryPoints: a database whose only thing a user can
// name is an invoice number (an integer) still gives tasks (it gave "no
// task could be made").
func TestQuotedNumbersAreEntryPoints(t *testing.T) {
	var b strings.Builder
	b.WriteString(`CREATE TABLE invoices (id INTEGER PRIMARY KEY, invoice_number INTEGER NOT NULL UNIQUE, total_cents INTEGER NOT NULL, paid INTEGER NOT NULL);
CREATE TABLE lines (id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL REFERENCES invoices(id), qty INTEGER NOT NULL, cents INTEGER NOT NULL);
`)
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO invoices VALUES (%d, %d, %d, %d);\n", i, 100000+i*37, 1000+i*7, i%2)
		for l := 1; l <= 1+i%3; l++ {
			fmt.Fprintf(&b, "INSERT INTO lines (invoice_id, qty, cents) VALUES (%d, %d, %d);\n", i, l, 100*l+i)
		}
	}
	db := sqlDB(t, t.TempDir(), "invoices.sqlite", b.String())
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(t.TempDir(), "env"), Tasks: 10, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Spec.Tool("find_invoice_by_invoice_number") == nil || len(res.Tasks) < 5 {
		t.Errorf("find tool %v, %d tasks", res.Spec.Tool("find_invoice_by_invoice_number") != nil, len(res.Tasks))
	}
}

// TestPreconditionsFirst: a non-empty output folder that holds no
// environment is refused before any work (it was refused after the whole
// run), as is a bundle path in a folder that does not exist.
func TestPreconditionsFirst(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The source does not exist either: the output folder is checked first.
	_, err := synth.FromDB(context.Background(), filepath.Join(dir, "missing.sqlite"), synth.Options{Out: dir})
	if err == nil || !strings.Contains(err.Error(), "refusing to replace it") {
		t.Errorf("non-empty output folder: %v", err)
	}
	_, err = synth.FromDB(context.Background(), filepath.Join(dir, "missing.sqlite"), synth.Options{Out: filepath.Join(dir, "new"), Bundle: filepath.Join(dir, "nowhere", "x.wasm")})
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("bundle folder: %v", err)
	}
}

// TestOddIdentifiers: keywords, spaces, quotes, brackets and non-ASCII in
// table and column names are quoted everywhere: the environment builds,
// every tool passes its smoke test, and the data reads back.
func TestOddIdentifiers(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "odd names.sqlite", `
CREATE TABLE "select" ("from" INTEGER PRIMARY KEY, "where" TEXT NOT NULL UNIQUE, "group by" TEXT);
CREATE TABLE "a""b [c]" (id INTEGER PRIMARY KEY, "Größe" TEXT NOT NULL UNIQUE, "sel_id" INTEGER REFERENCES "select"("from"), "x'y" REAL);
CREATE TABLE "生产 表" ("名前" TEXT PRIMARY KEY, "a""b_id" INTEGER REFERENCES "a""b [c]"(id));
INSERT INTO "select" VALUES (1, 'alpha', 'g1'), (2, 'beta', 'g2'), (3, 'gamma', 'g1');
INSERT INTO "a""b [c]" VALUES (1, 'groß', 1, 1.5), (2, 'klein', 2, 2.5), (3, 'mittel', 1, NULL);
INSERT INTO "生产 表" VALUES ('一', 1), ('二', 2), ('三', 3);
`)
	res, _ := synthShape(t, db, 10)
	if res.Summary.SmokePassed != len(res.Spec.Tools) || len(res.Summary.SmokeFailed) > 0 {
		t.Errorf("smoke: %d of %d, failed %q", res.Summary.SmokePassed, len(res.Spec.Tools), res.Summary.SmokeFailed)
	}
	if res.Bundle.Manifest.Name != "odd-names" {
		t.Errorf("name %q", res.Bundle.Manifest.Name)
	}
	for _, tb := range res.Model.Tables {
		if tb.Rows != 3 {
			t.Errorf("%q: %d rows", tb.Name, tb.Rows)
		}
	}
}

// TestDatesThreeWays: dates stored as text, as integers (Unix seconds) and
// as reals (Julian days) are data: ranges in list filters, values in tasks.
func TestDatesThreeWays(t *testing.T) {
	var b strings.Builder
	b.WriteString("CREATE TABLE events (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, held_on TEXT, created_at INTEGER, due_date REAL);\n")
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, "INSERT INTO events VALUES (%d, 'EV-%03d', date('2024-01-01', '+%d days'), unixepoch('2024-01-01') + %d * 86400, julianday('2024-01-01') + %d);\n", i, i, i, i, i)
	}
	db := sqlDB(t, t.TempDir(), "events.sqlite", b.String())
	res, _ := synthShape(t, db, 10)
	l := res.Spec.Tool("list_events")
	for _, p := range []string{"min_held_on", "max_held_on", "min_created_at", "max_created_at", "min_due_date", "max_due_date"} {
		if l == nil || l.Param(p) == nil {
			t.Errorf("list_events has no %s", p)
		}
	}
	if len(res.Tasks) == 0 {
		t.Error("no tasks")
	}
}
