package design

import (
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// A shop whose invoices have lines and a customer (no milestone, no
// bound, no unique column), and whose bookings are keyed by a text code
// nobody generates (a record locator).
const ownedSchema = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL);
CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), invoiced_at TEXT NOT NULL, total REAL);
CREATE TABLE invoice_lines (id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL REFERENCES invoices(id), qty INTEGER NOT NULL);
CREATE TABLE bookings (code TEXT PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), booked_at TEXT NOT NULL);
INSERT INTO customers VALUES (1, 'a@example.org'), (2, 'b@example.org'), (3, 'c@example.org');
INSERT INTO invoices VALUES (1, 1, '2024-01-01 10:00:00', 3), (2, 1, '2024-01-02 10:00:00', 4), (3, 2, '2024-01-03 10:00:00', 5), (4, 2, '2024-01-04 10:00:00', 6);
INSERT INTO invoice_lines VALUES (1, 1, 1), (2, 1, 2), (3, 2, 4), (4, 3, 5), (5, 4, 6);
INSERT INTO bookings VALUES ('4WQ150', 1, '2024-01-01 10:00:00'), ('K2X9ZZ', 1, '2024-01-02 10:00:00'), ('P0Q1R2', 2, '2024-01-03 10:00:00'), ('AB12CD', 2, '2024-01-04 10:00:00');
`

// TestValidateOpenOwnedAndMadeKey: issue 34 round 8, item 1c. A designed
// open on a parent with lines whose only rule is its owner (the customer
// an invoice is for) was dropped with "no rule the data holds" (round 7:
// chinook's place_purchase, northwind's place_order); one on a table
// whose key is a text code was dropped for "no generated key" (airline's
// book_reservation). Both are kept now: the owner is a rule (every row
// names one, customers have several), and a text key of one shape is made
// by the call. A reference some rows leave empty is no owner.
func TestValidateOpenOwnedAndMadeKey(t *testing.T) {
	conn, err := sqlite3.Open(filepath.Join(t.TempDir(), "owned.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(ownedSchema); err != nil {
		t.Fatal(err)
	}
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := answer(t, `{`+policyWords+`, "actions": [
	  {"name": "place_purchase", "table": "invoices", "rule": "open", "column": "invoiced_at"},
	  {"name": "book_trip", "table": "bookings", "rule": "open", "column": "booked_at"}
	]}`)
	p, err := Validate(m, conn, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 2 {
		t.Fatalf("kept %+v; dropped %+v", p.Actions, p.Dropped)
	}
	for _, d := range p.Actions {
		o := d.Action.Open
		if len(o.Owned) != 1 || o.Owned[0].Column != "customer_id" || o.Owned[0].Parent != "customers" {
			t.Errorf("%s: owned %+v, want customer_id", d.Name, o.Owned)
		}
		switch d.Name {
		case "place_purchase":
			if o.Key != nil {
				t.Errorf("place_purchase: a generated key made by the call: %+v", o.Key)
			}
		case "book_trip":
			if o.Key == nil || o.Key.Length != 6 || o.Key.Alphabet != "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ" {
				t.Errorf("book_trip: key %+v, want 6 of digits and capitals", o.Key)
			}
		}
	}
	// An owner some rows leave empty is no rule.
	if err := conn.Exec(`INSERT INTO customers VALUES (4, 'd@example.org'); INSERT INTO invoices VALUES (5, NULL, '2024-01-05 10:00:00', 1)`); err != nil {
		t.Fatal(err)
	}
	p, err = Validate(m, conn, a)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Actions {
		if d.Name == "place_purchase" {
			t.Errorf("place_purchase kept with an invoice of no customer: %+v", d.Action.Open)
		}
	}
}
