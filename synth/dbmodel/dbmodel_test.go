package dbmodel

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
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
		"addresses": "address", "status": "status", "boxes": "box", "data": "data", "person": "person",
		"recurring_series": "recurring_series", "species": "species"} {
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

// TestEnumsOnlyForClosedSets: a status is an enumeration; surnames,
// cities and titles with few distinct values are not (issue 28: a 12-value
// last_name enum refused every new member).
func TestEnumsOnlyForClosedSets(t *testing.T) {
	sql := "CREATE TABLE people (id INTEGER PRIMARY KEY, last_name TEXT, city TEXT, status TEXT, tier TEXT, visit_kind TEXT);\n"
	last := []string{"Brown", "Cohen", "García", "Li"}
	for i := range 40 {
		sql += fmt.Sprintf("INSERT INTO people VALUES (%d, '%s', '%s', '%s', '%s', '%s');\n", i, last[i%4], []string{"Lisbon", "Osaka"}[i%2],
			[]string{"active", "on_hold"}[i%2], []string{"Gold", "Silver"}[i%2], []string{"a", "b"}[i%2])
	}
	m, err := Open(makeDB(t, sql), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := m.Table("people")
	for col, want := range map[string]bool{"last_name": false, "city": false, "status": true, "tier": true, "visit_kind": true} {
		if got := p.Column(col).Enum != nil; got != want {
			t.Errorf("%s: enum %v, want %v", col, p.Column(col).Enum, want)
		}
	}
}

// TestReferencesChecked: references to a missing table, to columns that
// are not a key, or broken by the data are dropped and named; the rows stay.
func TestReferencesChecked(t *testing.T) {
	m, err := Open(makeDB(t, `PRAGMA foreign_keys = OFF;
CREATE TABLE a (id INTEGER PRIMARY KEY, code TEXT);
CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a(id), a_code TEXT REFERENCES a(code), x_id INTEGER REFERENCES nothere(id), a2 INTEGER REFERENCES a);
INSERT INTO a VALUES (1, 'one');
INSERT INTO b VALUES (1, 1, 'one', 7, 1), (2, 5, NULL, NULL, 1);`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := m.Table("b")
	if len(b.ForeignKeys) != 1 || b.ForeignKeys[0].Columns[0] != "a2" || b.ForeignKeys[0].RefColumns[0] != "id" {
		t.Errorf("kept references %+v, want only a2 → a(id)", b.ForeignKeys)
	}
	all := strings.Join(m.Skipped, "\n")
	for _, want := range []string{"b.a_id → a: 1 row refers to a missing a row", "a(code) is not a key of a", "table nothere does not exist"} {
		if !strings.Contains(all, want) {
			t.Errorf("skipped %q lacks %q", all, want)
		}
	}
	if b.Rows != 2 {
		t.Errorf("rows %d", b.Rows)
	}
}

// TestHostileTextCleaned: a declared type that is SQL, a CHECK inside a
// comment, a CHECK whose text holds a comment and brackets (issue 25
// finding 2).
func TestHostileTextCleaned(t *testing.T) {
	m, err := Open(makeDB(t, `CREATE TABLE c (id INTEGER PRIMARY KEY,
  name 'TEXT); CREATE TRIGGER t AFTER UPDATE ON c BEGIN DELETE FROM c; END; CREATE TABLE zz (x',
  x TEXT /* CHECK (x <> 'a') */, [odd ) name] TEXT CHECK ([odd ) name] <> ')' /* ) */),
  d TEXT DEFAULT 'a;b', g TEXT GENERATED ALWAYS AS (upper(x) /* ) */) VIRTUAL);`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := m.Table("c")
	if got := c.Column("name").DeclType; got != "BLOB" && got != "TEXT" {
		t.Errorf("hostile declared type kept as %q", got)
	}
	if len(c.Checks) != 1 || c.Checks[0] != "[odd ) name] <> ')'" {
		t.Errorf("checks %q", c.Checks)
	}
	if d := c.Column("d").Default; d == nil || *d != "'a;b'" {
		t.Errorf("default %v", d)
	}
	if g := c.Column("g"); g.Computed != 2 || g.Expr != "upper(x)" {
		t.Errorf("generated column %+v", g)
	}
	if !strings.Contains(strings.Join(m.Skipped, "\n"), "declared type") {
		t.Errorf("skipped: %q", m.Skipped)
	}
}

// TestPersonReference: user_id refers to members when members is the
// only table of people (and every value is there).
func TestPersonReference(t *testing.T) {
	m, err := Open(makeDB(t, `CREATE TABLE members (id INTEGER PRIMARY KEY, email TEXT UNIQUE);
CREATE TABLE loans (id INTEGER PRIMARY KEY, user_id INTEGER, book TEXT);
INSERT INTO members VALUES (1, 'a@x.io'), (2, 'b@x.io');
INSERT INTO loans VALUES (1, 1, 'x'), (2, 2, 'y'), (3, 2, 'z');`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fk := m.Table("loans").ForeignKeyOf("user_id"); fk == nil || fk.RefTable != "members" || !fk.Inferred {
		t.Errorf("user_id: %+v", fk)
	}
}

// TestPostalCodeIsNoName: a postal code unique by chance in a small table
// is not how a person names an employee (Chinook gave
// find_employee_by_postal_code); a declared UNIQUE one still counts.
func TestPostalCodeIsNoName(t *testing.T) {
	m, err := Open(makeDB(t, `CREATE TABLE employees (id INTEGER PRIMARY KEY, email TEXT UNIQUE, postal_code TEXT, zip_code TEXT UNIQUE);
INSERT INTO employees VALUES (1, 'a@x.io', 'T5K 2N1', '10001'), (2, 'b@x.io', 'T2P 2T3', '10002'), (3, 'c@x.io', 'T3B 0C5', '10003');`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Table("employees").NaturalKeys; !slices.Equal(got, []string{"email", "zip_code"}) {
		t.Errorf("natural keys %q", got)
	}
}

// TestDocumentNumbers: the integer key of orders and invoices, named for
// the table, is the number people quote ("order 10248"); a surrogate key
// of other tables stays internal.
func TestDocumentNumbers(t *testing.T) {
	path := makeDB(t, `
CREATE TABLE Orders (OrderID INTEGER PRIMARY KEY, ShipName TEXT, Freight REAL);
CREATE TABLE invoice (invoice_id INTEGER PRIMARY KEY, total REAL);
CREATE TABLE tracks (TrackId INTEGER PRIMARY KEY, Milliseconds INTEGER);
INSERT INTO Orders VALUES (10248, 'Vins et alcools', 32.38), (10249, 'Toms Spezialitäten', 11.61), (10250, 'Vins et alcools', 65.83);
INSERT INTO invoice VALUES (1, 3.98), (2, 5.94);
INSERT INTO tracks VALUES (1, 343719), (2, 342562);
`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		table, key string
		natural    bool
	}{{"Orders", "OrderID", true}, {"invoice", "invoice_id", true}, {"tracks", "TrackId", false}} {
		tb := m.Table(c.table)
		if got := tb.IsNatural(c.key) && tb.KeyIsNatural; got != c.natural {
			t.Errorf("%s.%s natural = %v, want %v (natural keys %v)", c.table, c.key, got, c.natural, tb.NaturalKeys)
		}
	}
}
