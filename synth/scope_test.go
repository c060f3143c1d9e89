package synth_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/design"
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

// TestDesignDecidesTheActions (issue 34, round 8, finding 3): the model's
// design of sakila (its recorded answers of round 7,
// synth/testdata/design-declined, replayed through a real HTTP server) proposed return_rental, a
// milestone on rental.return_date, which validation dropped (every
// rental in the data is returned) and the repaired answer left out. The
// schema's own milestone on that column (mark_rental_returned) must not
// come back behind the design's back: the design decides. The open
// action the design kept stays. The recording answered the prompt of its
// day; its answers are served here by the conversation's turn (the first
// design prompt, then the repair), so that a later change of the prompt's
// wording does not make it unusable (no task is made: the wording
// prompts carry the tasks).
func TestDesignDecidesTheActions(t *testing.T) {
	dir := t.TempDir()
	srv := llmreplay.New(t, "testdata/design-declined")
	srv.Index = []llmreplay.Entry{
		{File: "000001.json", Match: []string{"Design the domain"}},
		{File: "000002.json", Match: []string{"Design the domain", "The design was checked against the schema and the data"}},
	}
	stage := &design.Stage{Client: chatapi.New(srv.URL+"/v1", llmreplay.Key, 1), Model: "claude (via relay)"}
	res, err := synth.FromDB(context.Background(), corpusDB(t, dir, "sakila"), synth.Options{Out: filepath.Join(dir, "env"), Tasks: -1, Seed: 1,
		Toolset: toolgen.ToolsetDomain, Design: stage})
	if err != nil {
		t.Fatal(err)
	}
	rep := stage.Report()
	if !slices.ContainsFunc(rep.Dropped, func(d design.Dropped) bool { return d.Name == "return_rental" }) || !slices.Contains(rep.Kept, "rent_film") {
		t.Fatalf("the recorded design: kept %v, dropped %+v", rep.Kept, rep.Dropped)
	}
	for _, tl := range res.Spec.Tools {
		if tl.Kind == toolgen.DomainAction && tl.Table == "rental" && tl.Action.Column == "return_date" {
			t.Errorf("%s marks rental.return_date, an action the design left out", tl.Name)
		}
	}
	if res.Spec.Tool("rent_film") == nil {
		t.Error("the designed open rent_film is not offered")
	}
}

// TestIdentifyingNamesTheGroundTruthsLookups (issue 34, round 8, finding
// 4): the policy's identification rule names the ways the tools offer to
// find a row by what a person says, the ones the ground truth starts from:
// the finds by a natural key and a table's list filtered by a person's
// first and last name. Played on hr, the rule named only the finds by
// email and phone while gold paths found employees by name through
// list_employees, so an agent that followed the rule strictly could
// refuse a right path. Every task's first call is named in the rule.
func TestIdentifyingNamesTheGroundTruthsLookups(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), corpusDB(t, dir, "hr"), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 40, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(res.Bundle.Manifest.Rules, "Identifying: ")
	rule, _, _ := strings.Cut(rest, "\n")
	if !strings.Contains(rule, "list_employees (first_name_contains, last_name_contains)") {
		t.Errorf("the rule does not name the lookup by name:\n%s", rule)
	}
	for _, task := range res.Tasks {
		if len(task.Calls) > 0 && !strings.Contains(rule, task.Calls[0].Name+" (") {
			t.Errorf("%s starts with %s, which the identification rule does not name:\n%s", task.ID, task.Calls[0].Name, rule)
		}
	}
}

// TestRefusedOutsideTheScope: a request to change a row outside the
// scope (the fare or status of a flight, for a passenger) is a policy
// task: the right outcome is the value asked for and no change; the
// value the user wanted set is no answer. The summary says the scope.
func TestRefusedOutsideTheScope(t *testing.T) {
	dir := t.TempDir()
	// 120: at 60 the set fills before a walk reaches a flight (round 8: the
	// new shapes and conditional refusals take the first places).
	res, err := synth.FromDB(context.Background(), corpusDB(t, dir, "airline"), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 120, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	if sc := res.Summary.Scope; sc == nil || sc.Person != "users" || sc.By != toolgen.ScopeBySchema || len(sc.Tables) != 6 {
		t.Errorf("the summary's scope: %+v", sc)
	}
	n := 0
	for _, task := range res.Tasks {
		if !strings.Contains(task.ID, "-refuse-scope-") {
			continue
		}
		n++
		if task.Answer == nil || len(task.Checks) != 1 || !task.Checks[0].Guard {
			t.Errorf("%s: want an answer and only the nothing-changed guard: %+v", task.ID, task)
		}
		for _, c := range task.Calls {
			if tl := res.Spec.Tool(c.Name); tl == nil || tl.Kind.Writes() {
				t.Errorf("%s: the ground truth calls %s", task.ID, c.Name)
			}
		}
	}
	if n == 0 {
		t.Error("no request outside the scope was made a refusal")
	}
}
