package synth_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestActionTasks: with the domain toolset the tasks use the actions: a
// change made by an action is checked on every row it touched (an added
// line and the stock it took are two rows), and where the rules refuse
// (already done, not enough stock, not in the state the user expects)
// the right result is no change and the fact a lookup tells.
func TestActionTasks(t *testing.T) {
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), shopDB(t, dir), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 60, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	acts, refusals, multi := 0, 0, 0
	for _, task := range res.Tasks {
		last := task.Calls[len(task.Calls)-1]
		tl := res.Spec.Tool(last.Name)
		refusal := strings.Contains(task.ID, "-refuse-")
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
		if refusal {
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
		t.Errorf("%d tasks end with an action (%d change two tables or more), %d refusals, of %d", acts, multi, refusals, len(res.Tasks))
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
