package design_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/design"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// relayedModel is the model name the recordings were made with (a Claude
// model answering through cmd/llmrelay).
const relayedModel = "claude (via relay)"

// TestModelRouteReplayed replays a recorded model route over envs/store
// through a real HTTP server (testdata/store: a design answer and two
// wording batches, answered by a model through the relay): every designed
// action is validated, rendered, and kept only after one call succeeded
// and one its rules refused with nothing changed; the designed status
// moves replace the CHECK's every-value actions on their columns; the
// policy carries the model's words and rules; each kept rewrite keeps the
// values the ground truth takes from the user and not the answer, and a
// failed one keeps the procedural wording.
func TestModelRouteReplayed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	srv := llmreplay.New(t, "testdata/store")
	type trace struct{ before, after, why string }
	traces := map[string]trace{}
	stage := &design.Stage{Client: chatapi.New(srv.URL+"/v1", llmreplay.Key, 1), Model: relayedModel,
		Trace: func(id, before, after, why string) { traces[id] = trace{before, after, why} }}
	out := filepath.Join(t.TempDir(), "store")
	res, err := synth.FromDB(context.Background(), "../../envs/store", synth.Options{Out: out, Tasks: 40, Seed: 1, Toolset: toolgen.ToolsetDomain, Design: stage})
	if err != nil {
		t.Fatal(err)
	}
	rep := res.Summary.Design
	if rep == nil || rep.Answers != 1 || rep.Designed != 7 || len(rep.Kept) != 7 || len(rep.Dropped) != 0 {
		t.Fatalf("design report %+v", rep)
	}
	tools := map[string]*toolgen.Tool{}
	for _, tl := range res.Spec.Tools {
		tools[tl.Name] = tl
	}
	for _, name := range rep.Kept {
		tl := tools[name]
		if tl == nil || tl.Kind != toolgen.DomainAction {
			t.Fatalf("kept action %s is not in the toolset", name)
		}
		if tl.Action.Rule == toolgen.RuleStatus && len(tl.Action.From) == 0 {
			t.Errorf("%s: a designed status without its moves: %+v", name, tl.Action)
		}
		gated := false
		for _, sm := range res.Smoke {
			if sm.Tool == name && sm.Passed && len(sm.Refused) > 0 && strings.Contains(sm.RefusedWith, "nothing was changed") {
				gated = true
			}
		}
		if !gated {
			t.Errorf("%s: no passed succeed-and-refuse check", name)
		}
	}
	// cancel_order owns orders.status: the CHECK's mark_order_* are gone.
	for name := range tools {
		if strings.HasPrefix(name, "mark_order_") && !strings.HasPrefix(name, "mark_order_item") {
			t.Errorf("%s: the schema's action on a column a designed status owns", name)
		}
	}
	if c := tools["cancel_order"]; c == nil || strings.Join(c.Action.From, ",") != "pending,processing" {
		t.Fatalf("cancel_order: %+v", c)
	}
	rules := res.Bundle.Manifest.Rules
	for _, want := range []string{"Whom you serve: Shoppers", "An order can be cancelled only while it is pending or processing", "cancel_order: not allowed when it is already cancelled; nor unless it is pending or processing."} {
		if !strings.Contains(rules, want) {
			t.Errorf("the policy lacks %q:\n%s", want, rules)
		}
	}

	w := rep.Wording
	if w.Prompts != 2 || w.Sent != 40 || w.Kept+w.Failed != 40 || w.Kept < 30 || len(traces) != 40 {
		t.Fatalf("wording %+v, %d traced", w, len(traces))
	}
	byID := map[string]envpkg.Task{}
	for _, task := range res.Tasks {
		byID[task.ID] = task
	}
	kept := 0
	for id, tr := range traces {
		task := byID[id]
		if task.Instruction != tr.after {
			t.Fatalf("%s: the written instruction is not the traced one", id)
		}
		if tr.why != "" {
			if tr.after != tr.before {
				t.Errorf("%s: a failed rewrite (%s) changed the wording", id, tr.why)
			}
			continue
		}
		kept++
		if tr.after == tr.before {
			t.Errorf("%s: a kept rewrite that changed nothing", id)
		}
		orig := task
		orig.Instruction = tr.before
		for _, v := range design.UserValues(orig) {
			if !strings.Contains(tr.after, v) {
				t.Errorf("%s: the rewrite %q lost %q", id, tr.after, v)
			}
		}
		if a := task.Answer; a != nil && a.Value != "" && !strings.Contains(tr.before, a.Value) && strings.Contains(tr.after, a.Value) {
			t.Errorf("%s: the rewrite states the answer %q", id, a.Value)
		}
	}
	if kept != w.Kept {
		t.Errorf("traced %d kept rewrites, the report says %d", kept, w.Kept)
	}
	// The written environment has the reworded instructions.
	if b, err := os.ReadFile(filepath.Join(out, "tasks.jsonl")); err != nil || !strings.Contains(string(b), traces["synth-0006-action-gift-card"].after) {
		t.Errorf("tasks.jsonl lacks a kept rewrite: %v", err)
	}
}

// TestDesignRepairReplayed replays the design conversation recorded on
// the corpus's sakila (synth/testdata/corpus/llm/sakila, a model through
// the relay): the first answer's return action is rejected by the data
// (every rental is returned already), the repair prompt says so, the
// second answer's policy text is too long and is sent back, and the third
// is kept; the rejected action is reported dropped with its reason.
func TestDesignRepairReplayed(t *testing.T) {
	sql, err := os.ReadFile("../testdata/corpus/sakila.sql")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := sqlite3.Open(filepath.Join(t.TempDir(), "sakila.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(string(sql)); err != nil {
		t.Fatal(err)
	}
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmreplay.New(t, "../testdata/corpus/llm/sakila")
	stage := &design.Stage{Client: chatapi.New(srv.URL+"/v1", llmreplay.Key, 1), Model: relayedModel}
	plan, err := stage.Propose(context.Background(), m, conn)
	if err != nil {
		t.Fatal(err)
	}
	stage.Settle(plan, nil)
	rep := stage.Report()
	if rep.Answers != 3 || len(rep.Problems) != 2 || len(plan.Actions) != 0 || rep.Designed != 1 || len(rep.Kept) != 0 {
		t.Fatalf("report %+v, plan %+v", rep, plan)
	}
	if !strings.Contains(rep.Problems[0], "every row already has it set") || !strings.Contains(rep.Problems[1], "serves is longer than 300 characters") {
		t.Errorf("repair prompts:\n%s", strings.Join(rep.Problems, "\n---\n"))
	}
	if len(rep.Dropped) != 1 || rep.Dropped[0].Name != "return_rental" || !strings.Contains(rep.Dropped[0].Reason, "every row already has it set") {
		t.Errorf("dropped %+v", rep.Dropped)
	}
	if !strings.Contains(plan.Policy.Serves, "every rental is already returned") {
		t.Errorf("serves: %q", plan.Policy.Serves)
	}
}
