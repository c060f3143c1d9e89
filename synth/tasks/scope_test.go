package tasks_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/tasks"
)

// TestDeriveScope: with no design, the served person is the person table
// others refer to with the most rows (the customers, not the three
// employees); they may change their record, the rows that refer to it
// (orders, reviews) and those rows' rows (an order's lines), and not the
// rows their record refers to (their support rep), other people who refer
// to them, nor reference tables (products). No person table: no scope.
func TestDeriveScope(t *testing.T) {
	m := model(t, `
CREATE TABLE employees (id INTEGER PRIMARY KEY, email TEXT UNIQUE, boss INTEGER REFERENCES employees(id));
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT UNIQUE, rep INTEGER REFERENCES employees(id));
CREATE TABLE members (id INTEGER PRIMARY KEY, sponsor INTEGER REFERENCES customers(id));
CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT UNIQUE, stock INTEGER);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), handled_by INTEGER REFERENCES employees(id));
CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id INTEGER REFERENCES orders(id), product_id INTEGER REFERENCES products(id), qty INTEGER);
CREATE TABLE reviews (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), product_id INTEGER REFERENCES products(id), stars INTEGER);
INSERT INTO employees VALUES (1, 'a@x', NULL), (2, 'b@x', 1), (3, 'c@x', 1);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20) INSERT INTO customers SELECT i, 'c' || i || '@x', 1 + i % 3 FROM n;
`)
	s := tasks.DeriveScope(m, nil)
	if s == nil || s.Person != "customers" || !slices.Equal(s.Tables, []string{"customers", "orders", "order_lines", "reviews"}) {
		t.Fatalf("scope %+v", s)
	}
	if s := tasks.DeriveScope(model(t, `CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE prices (id INTEGER PRIMARY KEY, product_id INTEGER REFERENCES products(id));`), nil); s != nil {
		t.Errorf("no person table, yet a scope %+v", s)
	}
}

func model(t *testing.T, schema string) *dbmodel.Model {
	t.Helper()
	conn, err := sqlite3.Open(filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(schema); err != nil {
		t.Fatal(err)
	}
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}
