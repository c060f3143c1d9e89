package design_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/compiler"
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
	// The recorded design named six actions; its open_ticket held no rule
	// the data keeps (a plain create), the repair prompt said so, and the
	// second answer left it out.
	if rep == nil || rep.Answers != 2 || rep.Designed != 6 || len(rep.Kept) != 5 || len(rep.Dropped) != 1 || rep.Dropped[0].Name != "open_ticket" {
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
	if c := tools["cancel_order"]; c == nil || strings.Join(c.Action.From, ",") != "pending" {
		t.Fatalf("cancel_order: %+v", c)
	}
	// The task generator uses them like the schema's actions.
	used := map[string]int{}
	for _, task := range res.Tasks {
		for _, c := range task.Calls {
			if slices.Contains(rep.Kept, c.Name) {
				used[c.Name]++
			}
		}
	}
	// (Round 9 recorded this again after the scope of rows and the cap per
	// kind and length: 36 tasks, of which one calls a designed action
	// (cancel_order) and five refuse or answer by one; round 8's recording
	// had two actions called. One cause: the walker called cancel_order on
	// rows its from-states refuse, a dead end; it now asks the rule first
	// and makes those rows refusal tasks, TestModelRouteActionTasks.)
	if len(used) < 1 {
		t.Errorf("the tasks call designed actions %v; want at least one of them", used)
	}
	rules := res.Bundle.Manifest.Rules
	// The model's prose about whom the assistant serves, how they identify
	// themselves and how it refuses stays out of the rules: it claimed a
	// scope (read-only records, staff-only work) the task set does not
	// keep, and an agent that followed it failed every edit task (judged
	// and played on the held-out set, round 6). The rules state what the
	// actions and checks enforce.
	for _, prose := range []string{"Whom you serve:", "How they identify themselves:", "When a rule forbids a change:", "The assistant acts for a shopper"} {
		if strings.Contains(rules, prose) {
			t.Errorf("the policy carries the model's prose %q", prose)
		}
	}
	for _, want := range []string{"Only an order that is still pending can be cancelled", "cancel_order: not allowed when it is already cancelled; nor unless it is pending."} {
		if !strings.Contains(rules, want) {
			t.Errorf("the policy lacks %q:\n%s", want, rules)
		}
	}

	w := rep.Wording
	if w.Prompts != 2 || w.Sent != 34 || w.Kept+w.Failed != 34 || w.Kept < 30 || len(traces) != 34 {
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
	b, err := os.ReadFile(filepath.Join(out, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for id, tr := range traces {
		if tr.why == "" && !strings.Contains(string(b), tr.after) {
			t.Errorf("tasks.jsonl lacks the kept rewrite of %s", id)
		}
	}
}

// TestDesignRepairReplayed replays the design conversation recorded on
// the corpus's sakila (synth/testdata/corpus/llm/sakila, a model through
// the relay): the first answer's return_rental fails validation (every
// rental already has its return date: nothing is left to mark), the
// repair prompt says exactly that, and the second answer keeps rent_film
// with its rule.
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
	// The recorded first answer designed return_rental on a column every
	// row already holds; the repair prompt said so, and the second answer
	// kept rent_film alone.
	if rep.Answers != 2 || len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0], "return_rental") || !strings.Contains(rep.Problems[0], "every row already has it set") {
		t.Fatalf("report %+v", rep)
	}
	if len(plan.Actions) != 1 || plan.Actions[0].Name != "rent_film" || plan.Actions[0].Action.Rule != toolgen.RuleOpen {
		t.Errorf("kept actions %+v", plan.Actions)
	}
	if len(rep.Dropped) != 1 || rep.Dropped[0].Name != "return_rental" || len(plan.Policy.Rules["rent_film"]) == 0 {
		t.Errorf("dropped %+v, rules %v", rep.Dropped, plan.Policy.Rules)
	}
}

// TestRewordReplayed rewords forty fixed tasks of envs/store
// (testdata/store-tasks.jsonl, the tasks the run recorded in testdata/reword sent) through a
// real HTTP server replaying the model's answers, apart from the task
// generator: each kept rewrite keeps the values the ground truth takes
// from the user and not the answer, each failed one keeps the procedural
// wording with its reason, and checks, calls and answers never change.
func TestRewordReplayed(t *testing.T) {
	ctx := context.Background()
	src, cleanup, err := synth.SourceDB(ctx, "../../envs/store", compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	conn, err := sqlite3.OpenFlags(src, sqlite3.OPEN_READONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var tasks []envpkg.Task
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, "testdata/store-tasks.jsonl")), "\n") {
		var task envpkg.Task
		if err := json.Unmarshal([]byte(line), &task); err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, task)
	}
	before := slices.Clone(tasks)
	// The recording of the run that sent those tasks, kept apart from
	// testdata/store (the whole route, made again when the generator
	// changes) so this test never goes stale with the generator.
	srv := llmreplay.New(t, "testdata/reword")
	stage := &design.Stage{Client: chatapi.New(srv.URL+"/v1", llmreplay.Key, 1), Model: relayedModel}
	// The wording prompt says whom the assistant serves: the recorded
	// design answer's words (its first exchange), given as they were, so
	// a change to the design prompt leaves this recording valid.
	stage.Serves = recordedServes(t, "testdata/reword/000001.json")
	if err := stage.Reword(ctx, tasks, m, conn); err != nil {
		t.Fatal(err)
	}
	w := stage.Report().Wording
	if w.Prompts != 2 || w.Sent != 40 || w.Kept != 38 || w.Failed != 2 || w.Reasons["it states the expected answer"] != 1 || w.Reasons["a value of another row"] != 1 {
		t.Fatalf("wording %+v", w)
	}
	changed := 0
	for i, task := range tasks {
		was := before[i]
		wantSame, _ := json.Marshal(envpkg.Task{ID: was.ID, Calls: was.Calls, Checks: was.Checks, Answer: was.Answer})
		gotSame, _ := json.Marshal(envpkg.Task{ID: task.ID, Calls: task.Calls, Checks: task.Checks, Answer: task.Answer})
		if string(wantSame) != string(gotSame) {
			t.Errorf("%s: the rewording changed more than the instruction", task.ID)
		}
		if task.Instruction == was.Instruction {
			continue
		}
		changed++
		for _, v := range design.UserValues(was) {
			if !strings.Contains(task.Instruction, v) {
				t.Errorf("%s: %q lost %q", task.ID, task.Instruction, v)
			}
		}
		if a := was.Answer; a != nil && a.Value != "" && !strings.Contains(was.Instruction, a.Value) && strings.Contains(task.Instruction, a.Value) {
			t.Errorf("%s: %q states the answer", task.ID, task.Instruction)
		}
	}
	if changed != w.Kept {
		t.Errorf("%d instructions changed, %d rewrites kept", changed, w.Kept)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// recordedServes is the "serves" of the design answer recorded in the
// chat-completions body at path.
func recordedServes(t *testing.T, path string) string {
	t.Helper()
	var resp struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(readFile(t, path)), &resp); err != nil || len(resp.Choices) == 0 {
		t.Fatalf("%s: not a recorded chat completion (%v)", path, err)
	}
	c := resp.Choices[0].Message.Content
	var a struct {
		Serves string `json:"serves"`
	}
	if i, j := strings.Index(c, "{"), strings.LastIndex(c, "}"); i < 0 || j < i || json.Unmarshal([]byte(c[i:j+1]), &a) != nil || a.Serves == "" {
		t.Fatalf("%s: no design answer with serves in %q", path, c)
	}
	return a.Serves
}
