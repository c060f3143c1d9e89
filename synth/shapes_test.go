package synth_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

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
