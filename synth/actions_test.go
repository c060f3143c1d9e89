package synth_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// shopSchema is a small domain: orders with a declared status and the
// times that move with it, lines that take stock, payments drawn on a
// customer's gift card, loans returned once.
const shopSchema = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE products (id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, title TEXT NOT NULL, unit_price REAL NOT NULL, units_in_stock INTEGER);
CREATE TABLE orders (id INTEGER PRIMARY KEY, order_number TEXT NOT NULL UNIQUE, customer_id INTEGER NOT NULL REFERENCES customers(id),
  status TEXT NOT NULL CHECK (status IN ('pending', 'shipped', 'cancelled')), placed_at TEXT NOT NULL, shipped_at TEXT, cancelled_at TEXT,
  total REAL NOT NULL DEFAULT 0);
CREATE TABLE order_lines (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), product_id INTEGER NOT NULL REFERENCES products(id),
  unit_price REAL NOT NULL, quantity INTEGER NOT NULL CHECK (quantity > 0));
CREATE TABLE gift_cards (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, customer_id INTEGER NOT NULL REFERENCES customers(id), balance REAL);
CREATE TABLE payments (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), card_id INTEGER NOT NULL REFERENCES gift_cards(id), amount REAL NOT NULL);
CREATE TABLE loans (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), loaned_at TEXT NOT NULL, return_date TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 30)
INSERT INTO customers SELECT i, 'c' || i || '@example.org', 'Customer ' || char(64+i%26) || i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20)
INSERT INTO products SELECT i, 'SKU-' || i, 'Product ' || i, 2.5 * i, CASE WHEN i = 20 THEN NULL ELSE i % 6 END FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 40)
INSERT INTO orders SELECT i, 'ORD-' || (1000+i), 1 + i % 30, CASE i % 3 WHEN 0 THEN 'pending' WHEN 1 THEN 'shipped' ELSE 'cancelled' END,
  '2024-01-' || printf('%02d', 1 + i % 28) || ' 10:00:00',
  CASE i % 3 WHEN 1 THEN '2024-02-' || printf('%02d', 1 + i % 28) || ' 09:00:00' END,
  CASE i % 3 WHEN 2 THEN '2024-02-' || printf('%02d', 1 + i % 28) || ' 11:00:00' END, 0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 80)
INSERT INTO order_lines SELECT i, 1 + i % 40, 1 + i % 20, 2.5 * (1 + i % 20), 1 + i % 3 FROM n;
UPDATE orders SET total = (SELECT sum(unit_price * quantity) FROM order_lines WHERE order_id = orders.id);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 30)
INSERT INTO gift_cards SELECT i, 'GC-' || i, i, CASE WHEN i % 5 = 0 THEN NULL ELSE 10.0 * (i % 4) END FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 40)
INSERT INTO payments SELECT i, i, 1 + i % 30, 5.0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 40)
INSERT INTO loans SELECT i, 1 + i % 30, '2024-03-' || printf('%02d', 1 + i % 28), CASE WHEN i % 2 = 0 THEN '2024-04-' || printf('%02d', 1 + i % 28) END FROM n;
`

func shopDB(t testing.TB, dir string) string {
	path := filepath.Join(dir, "shop.sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(shopSchema); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestDomainActions: the schema's certain actions exist and keep their
// rules: a status moves with its stamp and is refused when already
// there; a milestone is stamped once; a line takes stock, and is refused
// when the stock is short, the quantity is not positive, or the card is
// another customer's; every refusal leaves the state as it was.
func TestDomainActions(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), shopDB(t, dir), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"mark_order_cancelled":        toolgen.RuleStatus,
		"mark_order_shipped":          toolgen.RuleStatus,
		"mark_loan_returned":          toolgen.RuleMilestone,
		"add_order_line_from_product": toolgen.RuleConsume,
		"add_payment_from_gift_card":  toolgen.RuleConsume,
	}
	for name, rule := range want {
		tl := res.Spec.Tool(name)
		if tl == nil || tl.Kind != toolgen.DomainAction || tl.Action.Rule != rule {
			t.Errorf("%s: %+v, want a %s action", name, tl, rule)
		}
	}
	if a := res.Spec.Tool("add_payment_from_gift_card"); a != nil && len(a.Action.Owners) != 1 {
		t.Errorf("a payment's card and order are both a customer's: owners %+v", a.Action.Owners)
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
	for _, c := range []struct {
		tool, args string
		outcome    runtime.Outcome
		want       string
	}{
		// order 3 is pending, 4 shipped, 5 cancelled
		{"mark_order_cancelled", `{"id": 5}`, runtime.OutcomeToolError, "already cancelled"},
		{"mark_order_cancelled", `{"id": 999}`, runtime.OutcomeToolError, "not found"},
		{"mark_order_cancelled", `{"id": 3}`, runtime.OutcomeOK, `"status":"cancelled"`},
		{"mark_loan_returned", `{"id": 2}`, runtime.OutcomeToolError, "already returned"},
		{"mark_loan_returned", `{"id": 1}`, runtime.OutcomeOK, `"return_date":"`},
		// product 6 has 0 in stock, product 5 has 5, product 20 is not tracked
		{"add_order_line_from_product", `{"order_id": 3, "product_id": 6, "quantity": 1}`, runtime.OutcomeToolError, "units in stock 0, less than the 1 asked"},
		{"add_order_line_from_product", `{"order_id": 3, "product_id": 5, "quantity": 0}`, runtime.OutcomeToolError, "must be positive"},
		{"add_order_line_from_product", `{"order_id": 3, "product_id": 999, "quantity": 1}`, runtime.OutcomeToolError, "product 999 does not exist"},
		{"add_order_line_from_product", `{"order_id": 999, "product_id": 5, "quantity": 1}`, runtime.OutcomeToolError, "does not exist"},
		{"add_order_line_from_product", `{"order_id": 3, "product_id": 5, "quantity": 2}`, runtime.OutcomeOK, `"quantity":2`},
		{"add_order_line_from_product", `{"order_id": 3, "product_id": 20, "quantity": 50}`, runtime.OutcomeOK, `"quantity":50`},
		// order 3 is customer 4's; card 4 is customer 4's (balance 0), card 3 customer 3's
		{"add_payment_from_gift_card", `{"order_id": 3, "card_id": 3, "amount": 1}`, runtime.OutcomeToolError, "belong to different customers"},
		{"add_payment_from_gift_card", `{"order_id": 3, "card_id": 4, "amount": 1}`, runtime.OutcomeToolError, "balance 0, less than the 1 asked"},
	} {
		r, err := ep.Call(context.Background(), c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != c.outcome || !strings.Contains(r.Content, c.want) {
			t.Errorf("%s %s: %s %q, want %s containing %q", c.tool, c.args, r.Outcome, r.Content, c.outcome, c.want)
		}
	}
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	// The successful calls only: order 3 cancelled, loan 1 returned, two
	// lines added and product 5's stock taken (20 is not tracked).
	if len(d) != 4 || len(d["orders"]) != 1 || len(d["loans"]) != 1 || len(d["order_lines"]) != 2 || len(d["products"]) != 1 {
		t.Errorf("diff: %v", d)
	}
	row := func(sql string) string {
		r, err := ep.Call(context.Background(), "get_order", json.RawMessage(sql))
		if err != nil {
			t.Fatal(err)
		}
		return r.Content
	}
	if got := row(`{"id": 3}`); !strings.Contains(got, `"cancelled_at":"`) || strings.Contains(got, `"cancelled_at":null`) {
		t.Errorf("cancelling stamps cancelled_at: %s", got)
	}
	// The order's total is the sum of its lines (30 in the data): the two
	// lines added, 2 × 12.5 and 50 × 50, are in it.
	if got := row(`{"id": 3}`); !strings.Contains(got, `"total":2555`) {
		t.Errorf("a line added leaves the order's total the sum of its lines (2555): %s", got)
	}
	if r, _ := ep.Call(context.Background(), "get_product", json.RawMessage(`{"id": 5}`)); !strings.Contains(r.Content, `"units_in_stock":3`) {
		t.Errorf("two units taken from product 5's 5: %s", r.Content)
	}
}

// TestActionsAreGated: the smoke stage tries every domain action with a
// call that must succeed and one its rules must refuse, and leaves out an
// action that cannot show both.
func TestActionsAreGated(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), shopDB(t, dir), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range res.Smoke {
		tl := res.Spec.Tool(s.Tool)
		if tl == nil || tl.Kind != toolgen.DomainAction {
			continue
		}
		n++
		if !s.Passed || s.Outcome != runtime.OutcomeOK || len(s.Refused) == 0 || !strings.Contains(s.RefusedWith, "nothing was changed") {
			t.Errorf("%s: passed %v, call %s → %s; refused %s → %q (%s)", s.Tool, s.Passed, s.Args, s.Outcome, s.Refused, s.RefusedWith, s.Detail)
		}
	}
	if n < 5 {
		t.Errorf("%d actions checked, want the shop's 5 or more", n)
	}
}

// TestPlaceWithLines: an order is placed with its lines in one call; each
// line's price is the product's, the total is their sum (the data shows
// it is), the stock of every line is taken, and a call whose lines ask
// for more than a product has (together) or name no product leaves
// nothing behind.
func TestPlaceWithLines(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), shopDB(t, dir), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5})
	if err != nil {
		t.Fatal(err)
	}
	tl := res.Spec.Tool("place_order")
	if tl == nil || tl.Action.Lines == nil || tl.Action.Lines.Total != "total" || tl.Action.Stock == nil {
		t.Fatalf("place_order: %+v", tl)
	}
	if tl.Param("total") != nil || tl.Param("lines") == nil {
		t.Errorf("the total is computed, the lines are asked: %+v", tl.Params)
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
	const order = `"order_number": "ORD-9", "customer_id": 4, "status": "pending", "placed_at": "2024-05-01 10:00:00"`
	for _, c := range []struct {
		args    string
		outcome runtime.Outcome
		want    string
	}{
		// product 5 has 5 in stock: 3 + 3 in two lines is too many
		{`{` + order + `, "lines": [{"product_id": 5, "quantity": 3}, {"product_id": 5, "quantity": 3}]}`, runtime.OutcomeToolError, "less than the 6 the lines ask"},
		{`{` + order + `, "lines": [{"product_id": 5, "quantity": 1}, {"product_id": 999, "quantity": 1}]}`, runtime.OutcomeToolError, "line 2: product 999 does not exist"},
		{`{` + order + `, "lines": []}`, runtime.OutcomeToolError, "at least one"},
		{`{` + order + `, "lines": [{"product_id": 5, "quantity": 2}, {"product_id": 4, "quantity": 1}]}`, runtime.OutcomeOK, `"total":35`},
	} {
		r, err := ep.Call(context.Background(), "place_order", json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != c.outcome || !strings.Contains(r.Content, c.want) {
			t.Errorf("place_order %s: %s %q, want %s containing %q", c.args, r.Outcome, r.Content, c.outcome, c.want)
		}
	}
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	// One order, two lines at the products' prices, two stocks taken.
	if len(d) != 3 || len(d["orders"]) != 1 || len(d["order_lines"]) != 2 || len(d["products"]) != 2 {
		t.Errorf("diff: %v", d)
	}
	for _, l := range d["order_lines"] {
		if !strings.Contains(string(l), `"unit_price":12.5`) && !strings.Contains(string(l), `"unit_price":10`) {
			t.Errorf("a line's price is its product's: %s", l)
		}
	}
}
