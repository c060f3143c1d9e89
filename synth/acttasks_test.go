package synth_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestActionTasks: with the domain toolset the tasks use the actions: a
// change made by an action is checked on every row it touched (an added
// line and the stock it took are two rows), and where the rules refuse
// (already done, not enough stock, not in the state the user expects)
// the right result is no change and the fact a lookup tells.
//
// 120 tasks, not 60: since round 9 a change asked for rows already in the
// state is a question ("done-action") and a change by no one is no task, so
// the shop's refusals are fewer per task; the mechanism is the same.
func TestActionTasks(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), shopDB(t, dir), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 120, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	acts, refusals, multi := 0, 0, 0
	for _, task := range res.Tasks {
		last := task.Calls[len(task.Calls)-1]
		tl := res.Spec.Tool(last.Name)
		// (An action asked for a row already done is a question since
		// round 9, "done-action": it keeps the state and answers too.)
		refusal := strings.Contains(task.ID, "-refuse-") || strings.Contains(task.ID, "-done-")
		if tl != nil && tl.Kind == toolgen.DomainAction {
			acts++
			tables := map[string]bool{}
			for _, c := range task.Checks {
				if !c.Guard {
					for _, tb := range res.Spec.Model.Tables {
						if strings.Contains(c.SQL, "main.\""+tb.Name+"\"") {
							tables[tb.Name] = true
						}
					}
				}
			}
			if len(tables) >= 2 {
				multi++
			}
		}
		if refusal && strings.Contains(task.ID, "-refuse-some-") {
			// A change the rules refuse on some of the rows asked for
			// (TestComposedTasks): the others change, and the answer
			// says how many were refused.
			refusals++
			if task.Answer == nil {
				t.Errorf("%s: a partly refused change answers: %+v", task.ID, task)
			}
		} else if refusal {
			refusals++
			if task.Answer == nil || len(task.Checks) != 1 || !task.Checks[0].Guard || task.Checks[0].Name != "nothing changed" {
				t.Errorf("%s: a refusal keeps the state and answers: %+v", task.ID, task)
			}
			if tl != nil && tl.Kind.Writes() {
				t.Errorf("%s: a refusal's ground truth writes (%s)", task.ID, last.Name)
			}
		}
	}
	if acts < 5 || refusals < 3 || multi < 1 {
		var ids []string
		for _, task := range res.Tasks {
			ids = append(ids, task.ID)
		}
		t.Errorf("%d tasks end with an action (%d change two tables or more), %d refusals, of %d: %s", acts, multi, refusals, len(res.Tasks), strings.Join(ids, " "))
	}
}

// TestPolicyIsTheSystemMessage: a domain environment's rules (the system
// message wasmenv rollout sends, Manifest.Rules) are its policy: how the
// user is identified, what to check before a change, and every action's
// refusals, named by tool.
func TestPolicyIsTheSystemMessage(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), shopDB(t, dir), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	rules := res.Bundle.Manifest.Rules
	if rules != synth.Policy("shop", res.Spec) {
		t.Errorf("the manifest's rules are not the policy:\n%s", rules)
	}
	for _, want := range []string{"find_customer_by_email (email)", "Never guess or make up an id", "change nothing",
		"- add_order_line_from_product: not allowed when the quantity is not positive or the product has less units in stock than asked",
		"- mark_order_cancelled: not allowed when it is already cancelled", "belong to different customers"} {
		if !strings.Contains(rules, want) {
			t.Errorf("the policy does not say %q:\n%s", want, rules)
		}
	}
	for _, tl := range res.Spec.Tools {
		if tl.Kind == toolgen.DomainAction && !strings.Contains(rules, "- "+tl.Name+": ") {
			t.Errorf("the policy leaves out %s", tl.Name)
		}
	}
}

// musicSchema: invoices with lines priced from their tracks and a total
// the data shows to be their sum.
const musicSchema = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE TABLE tracks (id INTEGER PRIMARY KEY, name TEXT NOT NULL, unit_price REAL NOT NULL);
CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id), invoice_date TEXT NOT NULL, total REAL NOT NULL);
CREATE TABLE invoice_lines (id INTEGER PRIMARY KEY, invoice_id INTEGER NOT NULL REFERENCES invoices(id), track_id INTEGER NOT NULL REFERENCES tracks(id),
  unit_price REAL NOT NULL, quantity INTEGER NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20)
INSERT INTO customers SELECT i, 'fan' || i || '@example.org', 'Fan ' || char(64+i) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 40)
INSERT INTO tracks SELECT i, 'Song ' || char(64 + i % 26) || i, 0.99 + (i % 2) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 30)
INSERT INTO invoices SELECT i, 1 + i % 20, '2024-01-' || printf('%02d', 1 + i % 28) || ' 00:00:00', 0 FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 60)
INSERT INTO invoice_lines SELECT i, 1 + i % 30, 1 + i % 40, 0.99 + ((1 + i % 40) % 2), 1 + i % 2 FROM n;
UPDATE invoices SET total = (SELECT sum(unit_price * quantity) FROM invoice_lines WHERE invoice_id = invoices.id);
`

// TestPlaceTasks: a parent placed with its lines is a task of several
// steps (the person, each item by its name, the action) that changes
// several rows (the parent and each line), checked on every one.
func TestPlaceTasks(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "music.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec(musicSchema); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 40, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	placed, reorders := 0, 0
	for _, task := range res.Tasks {
		if last := task.Calls[len(task.Calls)-1]; last.Name != "place_invoice" {
			continue
		}
		placed++
		if strings.Contains(task.ID, "-reorder-") {
			// A composed reorder (synth/tasks/reorder.go): the customer,
			// their invoices, the lines of the most recent, the action.
			reorders++
			if n := len(task.Calls); n != 4 || task.Calls[1].Name != "list_invoices_of_customer" || task.Calls[2].Name != "list_invoice_lines_of_invoice" {
				t.Errorf("%s: calls %v, want the customer, their invoices, the lines of the latest, the action", task.ID, task.Calls)
			}
		}
		changes := 0
		for _, c := range task.Checks {
			if !c.Guard {
				changes++
			}
		}
		if len(task.Calls) < 4 || changes < 3 {
			t.Errorf("%s: %d calls, %d changes checked: %s", task.ID, len(task.Calls), changes, task.Instruction)
		}
	}
	if placed == 0 || reorders == 0 {
		t.Errorf("%d tasks place an invoice (%d repeat the latest) among %d", placed, reorders, len(res.Tasks))
	}
}
