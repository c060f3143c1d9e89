package synth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// taskKind is the kind a task's id names ("synth-0012-refuse-if-none-
// reservation" → refuse-if-none).
func taskKind(id string) string {
	parts := strings.Split(id, "-")
	if len(parts) < 4 {
		return ""
	}
	return strings.Join(parts[2:len(parts)-1], "-")
}

// TestArithSaysItsArticle: "the smallest total of an invoice", not "of a
// invoice" (commit 8525a1a, reverted in round 8 only because it changes
// recorded prompts).
func TestArithSaysItsArticle(t *testing.T) {
	res, _, _ := openTasksEnv(t, "chinook", 0)
	wrong := regexp.MustCompile(`\b[Aa] [aeiouAEIOU]\w`)
	tried := 0
	for _, task := range res.Tasks {
		if !strings.Contains(task.ID, "-arith-") {
			continue
		}
		tried++
		if m := wrong.FindString(task.Instruction); m != "" {
			t.Errorf("%s: %q says %q", task.ID, task.Instruction, m)
		}
	}
	if tried == 0 {
		t.Fatal("no arithmetic task to try")
	}
}

// TestCountsCountTheRowsNamed: "how many orders do the products of the
// supplier X have together" counts distinct orders, not order lines
// (round 8's northwind player: 22 expected where 20 orders were named).
func TestCountsCountTheRowsNamed(t *testing.T) {
	res, env, _ := openTasksEnv(t, "northwind", 0)
	tried := 0
	for _, task := range res.Tasks {
		if !strings.Contains(task.ID, "-tally-count-") || !strings.Contains(strings.ToLower(task.Instruction), "how many orders") {
			continue
		}
		last := task.Calls[len(task.Calls)-1].Name
		orders, lines := map[string]bool{}, 0
		for i := range task.Calls {
			if task.Calls[i].Name != last {
				continue
			}
			for _, r := range lastRows(t, env, withCalls(task, i+1)) {
				id, ok := r["OrderID"]
				if !ok {
					id, ok = r["order_id"]
				}
				if ok {
					orders[fmt.Sprint(id)] = true
					lines++
				}
			}
		}
		if lines == 0 || len(orders) == lines {
			continue // no order lines, or each on its own order: nothing tells the two apart
		}
		tried++
		want, _ := strconv.Atoi(task.Answer.Value)
		if want != len(orders) {
			t.Errorf("%s (%s): expects %s, the order lines; the orders are %d", task.ID, task.Instruction, task.Answer.Value, len(orders))
		}
	}
	if tried == 0 {
		t.Fatal("no count of orders over lines to try")
	}
	t.Logf("%d counts of orders tried", tried)
}

// TestNoShapeTakesMoreThanItsShare: no kind of task at one length takes
// more than an eighth of the set (airline's 2-call refuse-if-none and
// refuse-if-all were 96 of 220: the per-template cap counts each
// condition as its own template).
func TestNoShapeTakesMoreThanItsShare(t *testing.T) {
	res, _, _ := openTasksEnv(t, "airline", 0)
	n := map[string]int{}
	for _, task := range res.Tasks {
		n[fmt.Sprintf("%s %d", taskKind(task.ID), len(task.Calls))]++
	}
	limit := max(220/20, 220/8)
	for s, k := range n {
		if k > limit {
			t.Errorf("%s: %d of %d tasks, more than %d", s, k, len(res.Tasks), limit)
		}
	}
}

// withCalls is task with its first n calls.
func withCalls(task envpkg.Task, n int) envpkg.Task {
	task.Calls = task.Calls[:n]
	return task
}

// episodeAfter replays task's ground truth in a fresh episode and returns
// the first call's output and the episode's diff.
func episodeAfter(t *testing.T, env *runtime.Env, task envpkg.Task) (string, runtime.Diff) {
	t.Helper()
	ep, err := env.NewEpisode(task.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	var first string
	for i, c := range task.Calls {
		r, err := ep.Call(context.Background(), c.Name, c.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = r.Content
		}
	}
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	return first, d
}

// userKey is the key column's value of the one row out (a record or a
// page of one item) holds, "" when it holds none or several.
func userKey(out, key string) string {
	var page struct {
		Items []map[string]any `json:"items"`
	}
	var rec map[string]any
	if json.Unmarshal([]byte(out), &page) == nil && len(page.Items) == 1 {
		rec = page.Items[0]
	} else if json.Unmarshal([]byte(out), &rec) != nil || len(page.Items) > 1 {
		return ""
	}
	if rec[key] == nil {
		return ""
	}
	return fmt.Sprint(rec[key])
}

// TestScopeIsOfRows (issue 34, round 8's hr player): the rules say which
// rows are the user's own, by the references that make them so ("the
// employees whose manager id is the user"), and every task that changes
// the person's table changes only the user's record or rows that name the
// user: no other employee.
func TestScopeIsOfRows(t *testing.T) {
	res, env, _ := openTasksEnv(t, "hr", 0)
	rules := res.Bundle.Manifest.Rules
	if !strings.Contains(rules, "the employees whose manager id is the user") {
		t.Errorf("the rules do not say a manager's reports are theirs:\n%s", rules)
	}
	changed := 0
	for _, task := range res.Tasks {
		if strings.Contains(task.ID, "-refuse-") {
			continue
		}
		first, d := episodeAfter(t, env, task)
		if len(d["employees"]) == 0 {
			continue
		}
		changed++
		me := userKey(first, "employee_id")
		if me == "" {
			t.Errorf("%s (%s) changes employees with no user found first", task.ID, task.Instruction)
			continue
		}
		for _, rec := range d["employees"] {
			var row map[string]any
			if err := json.Unmarshal(rec, &row); err != nil || row == nil {
				t.Fatalf("%s: %s", task.ID, rec)
			}
			if fmt.Sprint(row["employee_id"]) != me && fmt.Sprint(row["manager_id"]) != me {
				t.Errorf("%s (%s): changes employee %v, managed by %v, not the user %s", task.ID, task.Instruction, row["employee_id"], row["manager_id"], me)
			}
		}
	}
	if changed < 10 {
		t.Errorf("%d tasks change employees, want 10 or more", changed)
	}
}

// TestOpenSaysWhatItExpects (round 8's hr player): a hire "for me"
// expected manager_id to be the user, said nowhere; the instruction now
// says every value the new row is checked for that names the user.
func TestOpenSaysWhatItExpects(t *testing.T) {
	res, _, _ := openTasksEnv(t, "hr", 0)
	tried := 0
	for _, task := range res.Tasks {
		if !strings.Contains(task.ID, "-open-") || strings.Contains(task.ID, "-refuse-") {
			continue
		}
		var args map[string]any
		if err := json.Unmarshal(task.Calls[len(task.Calls)-1].Arguments, &args); err != nil {
			t.Fatal(err)
		}
		if args["manager_id"] == nil {
			continue
		}
		tried++
		if !strings.Contains(task.Instruction, "with me as its manager") {
			t.Errorf("%s: sets manager_id %v, and %q does not say so", task.ID, args["manager_id"], task.Instruction)
		}
	}
	if tried == 0 {
		t.Fatal("no hire that sets the manager")
	}
}

// TestRefusalsHaveSomethingToRefuse (round 8's northwind player): a
// policy task's refusal is one the data makes: no "refuse" task whose
// every row named is already in the state asked for (nothing left for
// the agent to refuse); every task says who the user is, as one of the
// people the rules serve (no task speaks as an employee of a shop whose
// user is a customer).
func TestRefusalsHaveSomethingToRefuse(t *testing.T) {
	res, _, _ := openTasksEnv(t, "northwind", 0)
	scope := res.Spec.Scope
	if scope == nil || scope.Person == "" {
		t.Fatal("northwind has no served person")
	}
	for _, task := range res.Tasks {
		if k := taskKind(task.ID); k == "refuse-action" {
			t.Errorf("%s (%s): the row is already done, nothing to refuse", task.ID, task.Instruction)
		}
		if task.Persona == "" {
			t.Errorf("%s: says no user: %q", task.ID, task.Instruction)
		}
		if strings.Contains(strings.ToLower(task.Persona), "employee") {
			t.Errorf("%s: speaks as an employee (%q)", task.ID, task.Persona)
		}
	}
}
