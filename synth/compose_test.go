package synth_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// ordersSchema: customers with several orders each, in declared states,
// so that "my pending orders" or "my two most recent orders" pick out
// some of them.
const ordersSchema = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE, customer_id INTEGER NOT NULL REFERENCES customers(id),
  status TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'cancelled')), placed_at TEXT NOT NULL, cancelled_at TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 12)
INSERT INTO customers SELECT i, 'c' || i || '@example.org', 'Customer ' || char(64+i) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 60)
INSERT INTO orders SELECT i, 'ORD-' || (1000+i), 1 + i % 12, CASE i % 5 WHEN 0 THEN 'shipped' WHEN 3 THEN 'cancelled' ELSE 'pending' END,
  '2024-' || printf('%02d', 1 + i / 12) || '-' || printf('%02d', 1 + i % 28), CASE i % 5 WHEN 3 THEN '2024-06-01' END FROM n;
`

// TestComposedTasks: a request as a chain over related rows. The user is
// found by what they know, the rows that refer to them are listed, some
// are chosen by a condition they state, and the same change is made on
// each (the domain's action): one call per row, a check per row touched.
// Where the rules refuse the change on some of them (already in that
// state), the others are changed and the user learns how many were
// refused: the policy decides, not the request.
func TestComposedTasks(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "orders.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec(ordersSchema); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 40, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	all, some := 0, 0
	for _, task := range res.Tasks {
		if !strings.Contains(task.ID, "-action-all") && !strings.Contains(task.ID, "-refuse-some-") {
			continue
		}
		if len(task.Calls) < 3 {
			t.Fatalf("%s: %d calls, want a find, a list and the changes", task.ID, len(task.Calls))
		}
		if first := res.Spec.Tool(task.Calls[0].Name); first == nil || first.Table != "customers" || first.Kind.Writes() {
			t.Errorf("%s: starts with %s, want the customer found by what they know", task.ID, task.Calls[0].Name)
		}
		if list := res.Spec.Tool(task.Calls[1].Name); list == nil || list.Kind != toolgen.Children || list.Table != "orders" {
			t.Errorf("%s: then %s, want the customer's orders listed", task.ID, task.Calls[1].Name)
		}
		writes := 0
		for _, c := range task.Calls[2:] {
			if tl := res.Spec.Tool(c.Name); tl == nil || tl.Kind != toolgen.DomainAction {
				t.Errorf("%s: %s after the list, want only the action", task.ID, c.Name)
			}
			writes++
		}
		changes := 0
		for _, c := range task.Checks {
			if !c.Guard {
				changes++
			}
		}
		if changes != writes {
			t.Errorf("%s: %d rows changed and %d checked: every row touched is checked", task.ID, writes, changes)
		}
		namedApart(t, task)
		if strings.Contains(task.ID, "-refuse-some-") {
			some++
			if task.Answer == nil || task.Answer.Match != "number" {
				t.Errorf("%s: a partly refused change tells how many were refused: %+v", task.ID, task.Answer)
			}
		} else {
			all++
			if writes < 2 {
				t.Errorf("%s: %d rows changed, want two or more", task.ID, writes)
			}
		}
	}
	if all < 3 || some < 1 {
		t.Errorf("%d composed changes and %d partly refused of %d tasks, want 3 and 1", all, some, len(res.Tasks))
	}
}

// bookingsSchema has no action (a cabin is no state a row goes
// through): the composed changes use the edit tool.
const bookingsSchema = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE bookings (id INTEGER PRIMARY KEY, booking_code TEXT NOT NULL UNIQUE, customer_id INTEGER NOT NULL REFERENCES customers(id),
  cabin TEXT NOT NULL CHECK (cabin IN ('economy', 'business', 'first')), booked_on TEXT NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 12)
INSERT INTO customers SELECT i, 'c' || i || '@example.org', 'Customer ' || char(64+i) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 72)
INSERT INTO bookings SELECT i, 'BK' || (1000+i), 1 + i % 12, CASE (i / 12) % 3 WHEN 0 THEN 'economy' WHEN 1 THEN 'business' ELSE 'first' END,
  '2024-' || printf('%02d', 1 + i / 12) || '-' || printf('%02d', 1 + i % 28) FROM n;
`

// TestComposedEdits: where no action is for the rows, the same change is
// made on each chosen row with the edit tool, a check per row; and a
// change that depends on a condition over the rows takes the branch the
// data gives: all changed when it holds on every row, none when it does
// not, with the count the user asked for.
func TestComposedEdits(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "bookings.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec(bookingsSchema); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	// 80 tasks, not 40: since round 9 a third of a served person's own
	// changes are of one row and each kind holds at most an eighth of the
	// set at one length, so 40 asked gave 20 kept with one composed edit
	// (b699468: 38 kept, 7). Written down in docs/SYNTHESIS.md.
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 80, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	all, refused := 0, 0
	for _, task := range res.Tasks {
		writes, changes := 0, 0
		for _, c := range task.Calls {
			if tl := res.Spec.Tool(c.Name); tl != nil && tl.Kind.Writes() {
				writes++
			}
		}
		for _, c := range task.Checks {
			if !c.Guard {
				changes++
			}
		}
		namedApart(t, task)
		switch {
		case strings.Contains(task.ID, "-update-all"):
			all++
			if writes < 2 || changes != writes {
				t.Errorf("%s: %d rows changed, %d checked, want two or more, each checked", task.ID, writes, changes)
			}
		case strings.Contains(task.ID, "-refuse-if-all-"):
			refused++
			if writes != 0 || changes != 0 || task.Answer == nil || task.Answer.Match != "number" {
				t.Errorf("%s: the condition does not hold: no change and a count, got %d writes, %d changes, answer %+v", task.ID, writes, changes, task.Answer)
			}
		}
	}
	if all < 3 || refused < 1 {
		t.Errorf("%d composed edits and %d refused by their condition of %d tasks, want 3 and 1", all, refused, len(res.Tasks))
	}
}

// invoicesSchema: customers with five invoices each, of three lines.
const invoicesSchema = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE tracks (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, unit_price REAL NOT NULL);
CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), invoice_date TEXT NOT NULL);
CREATE TABLE invoice_lines (id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL REFERENCES invoices(id), track_id INTEGER NOT NULL REFERENCES tracks(id),
  quantity INTEGER NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 8)
INSERT INTO customers SELECT i, 'c' || i || '@example.org', 'Customer ' || char(64+i) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20)
INSERT INTO tracks SELECT i, 'Track ' || char(64+i), 0.99 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 40)
INSERT INTO invoices SELECT i, 1 + i % 8, '2024-' || printf('%02d', 1 + i / 8) || '-' || printf('%02d', 1 + i % 28) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 120)
INSERT INTO invoice_lines SELECT i, 1 + i % 40, 1 + i % 20, 1 + i % 3 FROM n;
`

// TestTallyTasks: a composed question adds up the rows of the rows the
// user names ("how many lines do my two most recent invoices have
// together"): the customer, their invoices, then the lines of each
// chosen invoice, one call each; the answer is a number no single call
// shows, and the figure of one invoice alone is among the wrong answers
// the gates try.
func TestTallyTasks(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "invoices.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec(invoicesSchema); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 40, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	tallies := 0
	for _, task := range res.Tasks {
		if !strings.Contains(task.ID, "-tally-") {
			continue
		}
		tallies++
		if len(task.Calls) < 4 || task.Calls[1].Name != "list_invoices_of_customer" {
			t.Errorf("%s: calls %v, want the customer, their invoices, and the lines of two or more", task.ID, task.Calls)
			continue
		}
		for _, c := range task.Calls[2:] {
			if c.Name != "list_invoice_lines_of_invoice" {
				t.Errorf("%s: %s, want the lines of each chosen invoice", task.ID, c.Name)
			}
		}
		if task.Answer == nil || task.Answer.Match != "number" {
			t.Errorf("%s: answer %+v, want a number", task.ID, task.Answer)
		}
	}
	if tallies == 0 {
		t.Errorf("no task adds up the rows of chosen rows among %d", len(res.Tasks))
	}
}

// namedApart: every check of a task has a name of its own (a score
// reports checks by name; two rows set alike are two checks).
func namedApart(t *testing.T, task envpkg.Task) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range task.Checks {
		if seen[c.Name] {
			t.Errorf("%s: two checks named %q", task.ID, c.Name)
		}
		seen[c.Name] = true
	}
}
