package dbmodel

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/ncruces/go-sqlite3"
)

func makeDB(t *testing.T, sql string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(sql); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestIntrospect(t *testing.T) {
	path := makeDB(t, `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT, tier TEXT NOT NULL DEFAULT 'std' CHECK (tier IN ('std', 'gold')), active INTEGER CHECK (active IN (0,1)));
CREATE TABLE orders (order_no TEXT PRIMARY KEY, customer_id INTEGER, status TEXT, total REAL);
CREATE TABLE tags (order_no TEXT NOT NULL REFERENCES orders, tag TEXT NOT NULL, PRIMARY KEY (order_no, tag)) WITHOUT ROWID;
CREATE TABLE log (msg TEXT, at TEXT);
INSERT INTO customers VALUES (1, 'a@x.io', 'Ana', 'gold', 1), (2, 'b@x.io', 'Bo', 'std', 0), (3, 'c@x.io', NULL, 'std', 1);
INSERT INTO orders VALUES ('W1', 1, 'open', 1.5), ('W2', 1, 'open', 2), ('W3', 2, 'closed', 3), ('W4', 3, 'open', NULL), ('W5', 3, 'closed', 1), ('W6', NULL, 'open', 9);
INSERT INTO tags VALUES ('W1', 'gift'), ('W1', 'rush');
INSERT INTO log VALUES ('héllo 世界', '2024-01-01');
`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Table("customers")
	if !slices.Equal(c.PrimaryKey, []string{"id"}) || !c.Column("id").Generated {
		t.Errorf("customers key: %v", c.PrimaryKey)
	}
	if !slices.Equal(c.Column("tier").Enum, []string{"std", "gold"}) || c.Column("tier").EnumInferred {
		t.Errorf("tier enum: %+v", c.Column("tier"))
	}
	if !c.Column("active").Bool || !c.Column("email").Unique || c.Column("tier").Default == nil {
		t.Errorf("active/email/tier: %+v %+v", c.Column("active"), c.Column("email"))
	}
	if !slices.Equal(c.NaturalKeys, []string{"email"}) || c.Label != "email" {
		t.Errorf("natural keys %v label %q", c.NaturalKeys, c.Label)
	}
	o := m.Table("orders")
	fk := o.ForeignKeyOf("customer_id")
	if fk == nil || !fk.Inferred || fk.RefTable != "customers" || fk.RefColumns[0] != "id" {
		t.Errorf("inferred fk: %+v", fk)
	}
	if s := o.Column("status"); !s.EnumInferred || !slices.Equal(s.Enum, []string{"closed", "open"}) {
		t.Errorf("status enum: %+v", s)
	}
	if o.Column("total").Kind != Real || o.Column("total").Nulls != 1 {
		t.Errorf("total: %+v", o.Column("total"))
	}
	tg := m.Table("tags")
	if !slices.Equal(tg.PrimaryKey, []string{"order_no", "tag"}) || tg.ForeignKeyOf("order_no") == nil ||
		tg.ForeignKeyOf("order_no").RefColumns[0] != "order_no" || tg.ForeignKeyOf("order_no").Inferred {
		t.Errorf("tags: %+v", tg)
	}
	l := m.Table("log")
	if !l.RowID || !slices.Equal(l.PrimaryKey, []string{RowIDColumn}) || l.Rows != 1 {
		t.Errorf("log: %+v", l)
	}
}

func TestInferenceNeedsValues(t *testing.T) {
	// customer_id names the customers table, but a value is missing there:
	// no reference is inferred.
	path := makeDB(t, `CREATE TABLE customers (id INTEGER PRIMARY KEY);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER);
INSERT INTO customers VALUES (1); INSERT INTO orders VALUES (1, 1), (2, 7);`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fk := m.Table("orders").ForeignKeyOf("customer_id"); fk != nil {
		t.Errorf("inferred despite a dangling value: %+v", fk)
	}
}

func TestSingular(t *testing.T) {
	for in, want := range map[string]string{"orders": "order", "order_items": "order_item", "categories": "category",
		"addresses": "address", "status": "status", "boxes": "box", "data": "data", "person": "person"} {
		if got := Singular(in); got != want {
			t.Errorf("Singular(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestErrors(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "missing.db"), Options{}); err == nil {
		t.Error("no error for a missing file")
	}
	if _, err := Open(makeDB(t, `SELECT 1`), Options{}); err != ErrNoTables {
		t.Errorf("empty database: %v", err)
	}
}
