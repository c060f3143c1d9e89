package synth_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestScopeKeepsChangesToThePersonsRows (issue 34, round 8, finding 1):
// airline serves its users; with no design, the scope comes from the
// schema: the users' own records and the rows that are theirs through
// references (reservations, their passengers, flights and payments, the
// payment methods). A flight's status is the airline's, not the
// passenger's: no tool of the domain toolset writes a table outside the
// scope, no task changes one, and the policy says what the agent may
// change and that it refuses the rest. Before the scope, the toolset
// offered mark_flight_date_landed and friends.
func TestScopeKeepsChangesToThePersonsRows(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), corpusDB(t, dir, "airline"), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 40, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	theirs := []string{"users", "reservations", "passengers", "payment_methods", "payments", "reservation_flights"}
	writes := 0
	for _, tl := range res.Spec.Tools {
		if !tl.Kind.Writes() {
			continue
		}
		writes++
		if !slices.Contains(theirs, tl.Table) {
			t.Errorf("%s (%s) writes %s, which is not the user's to change", tl.Name, tl.Kind, tl.Table)
		}
	}
	if writes == 0 {
		t.Fatal("no write tool at all: the scope left the user nothing of their own")
	}
	for _, task := range res.Tasks {
		for _, c := range task.Calls {
			if tl := res.Spec.Tool(c.Name); tl != nil && tl.Kind.Writes() && !slices.Contains(theirs, tl.Table) {
				t.Errorf("%s: %s writes %s", task.ID, c.Name, tl.Table)
			}
		}
	}
	rules := res.Bundle.Manifest.Rules
	for _, want := range []string{"You may change only these records (", "reservations", "Refuse any other change"} {
		if !strings.Contains(rules, want) {
			t.Errorf("the policy does not say %q:\n%s", want, rules)
		}
	}
	if strings.Contains(rules, "flight dates") {
		t.Errorf("the policy lets the user change flights:\n%s", rules)
	}
}

// TestActionIsTheOnlyWayToItsColumns (issue 34, round 8, finding 2):
// where an action moves a column (a status and the stamps that move with
// it, a milestone, a stock or balance drawn by a consume, a total kept by
// the lines), no plain update of the domain toolset sets it, and no task
// changes it but through the action: its rules cannot be bypassed field
// by field. Before, update_order set the status the mark_order_ actions
// guard, and update_gift_card the balance a payment draws on.
func TestActionIsTheOnlyWayToItsColumns(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), shopDB(t, dir), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 30, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	moved := map[[2]string]string{}
	for _, tl := range res.Spec.Tools {
		a := tl.Action
		if tl.Kind != toolgen.DomainAction || a == nil {
			continue
		}
		if a.Rule == toolgen.RuleStatus || a.Rule == toolgen.RuleMilestone || a.Rule == toolgen.RuleConsume {
			moved[[2]string{tl.Table, a.Column}] = tl.Name
		}
		for _, m := range a.Moves {
			moved[[2]string{tl.Table, m.Column}] = tl.Name
		}
		if a.Stock != nil {
			moved[[2]string{a.Stock.Table, a.Stock.Column}] = tl.Name
		}
	}
	for _, want := range [][2]string{{"orders", "status"}, {"orders", "cancelled_at"}, {"gift_cards", "balance"}} {
		if moved[want] == "" {
			t.Fatalf("no action moves %s.%s (actions: %v)", want[0], want[1], moved)
		}
	}
	for _, tl := range res.Spec.Tools {
		if tl.Kind != toolgen.Update {
			continue
		}
		for _, p := range tl.Params {
			if by := moved[[2]string{tl.Table, p.Column}]; p.Op == toolgen.OpSet && by != "" {
				t.Errorf("%s sets %s.%s, which only %s may move", tl.Name, tl.Table, p.Column, by)
			}
		}
	}
	for _, task := range res.Tasks {
		for _, c := range task.Calls {
			tl := res.Spec.Tool(c.Name)
			if tl == nil || tl.Kind != toolgen.Update {
				continue
			}
			var args map[string]any
			if err := json.Unmarshal(c.Arguments, &args); err != nil {
				t.Fatal(err)
			}
			for _, p := range tl.Params {
				if _, set := args[p.Name]; set && p.Op == toolgen.OpSet && moved[[2]string{tl.Table, p.Column}] != "" {
					t.Errorf("%s: %s sets %s.%s", task.ID, c.Name, tl.Table, p.Column)
				}
			}
		}
	}
}
