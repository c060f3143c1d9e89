package synth_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// openEnv builds the domain toolset of a corpus database.
func openEnv(t *testing.T, name string) (*synth.Result, *runtime.Env) {
	t.Helper()
	dir := t.TempDir()
	res, err := synth.FromDB(context.Background(), corpusDB(t, dir, name), synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	return res, env
}

// actionOf is the domain action of rule on table, nil when none.
func actionOf(res *synth.Result, table, rule string) *toolgen.Tool {
	for _, tl := range res.Spec.Tools {
		if tl.Kind == toolgen.DomainAction && tl.Table == table && tl.Action.Rule == rule {
			return tl
		}
	}
	return nil
}

// smokeOf is the gate's result for tool.
func smokeOf(res *synth.Result, tool string) *synth.SmokeResult {
	for i := range res.Smoke {
		if res.Smoke[i].Tool == tool {
			return &res.Smoke[i]
		}
	}
	return nil
}

// TestRentAndReturn: a film rental database whose sample has no open
// rental (every return_date set) still gets the return (a milestone: the
// column is nullable and the rental opened at its rental_date) and a
// rent (an open action): a copy already out is refused (no copy in the
// data was ever out twice at once), a customer is not limited (customers
// rent several at once in the data), a missing copy is refused, the
// rental is stamped from the episode clock; a return closes it and a copy
// returned can be rented again. Both actions pass their gates.
func TestRentAndReturn(t *testing.T) {
	res, env := openEnv(t, "sakila")
	rent, ret := actionOf(res, "rental", toolgen.RuleOpen), actionOf(res, "rental", toolgen.RuleMilestone)
	if rent == nil || ret == nil {
		t.Fatalf("rental: open %v, milestone %v; want both", rent, ret)
	}
	o := rent.Action.Open
	if o.Start != "rental_date" || o.Milestone != "return_date" || len(o.Avail) != 1 || o.Avail[0].Column != "inventory_id" {
		t.Errorf("open rental: %+v, want one open rental per inventory copy, closed by return_date", o)
	}
	for _, name := range []string{rent.Name, ret.Name} {
		s := smokeOf(res, name)
		if s == nil || !s.Passed {
			t.Errorf("%s: gate %+v", name, s)
		}
	}
	if s := smokeOf(res, rent.Name); s != nil && len(s.Rules) < 2 {
		t.Errorf("%s: %d rules tried, want availability and a missing reference", rent.Name, len(s.Rules))
	}
	if p := synth.Policy("sakila", res.Spec); !strings.Contains(p, "the inventory already has a rental open") {
		t.Errorf("the policy does not state availability:\n%s", p)
	}
	// A customer rents several at once in the data: no such rule.
	for _, r := range o.Avail {
		if r.Column == "customer_id" {
			t.Errorf("a customer limited to one open rental, which the data contradicts")
		}
	}
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	call := func(tool, args string) runtime.Result {
		t.Helper()
		r, err := ep.Call(context.Background(), tool, json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	p := func(col string) string { return rent.Params[indexParam(rent, col)].Name }
	args := func(inv, cust int) string {
		return `{"` + p("inventory_id") + `": ` + itoa(inv) + `, "` + p("customer_id") + `": ` + itoa(cust) + `, "` + p("staff_id") + `": 1}`
	}
	first := call(rent.Name, args(10, 1))
	if first.Outcome != runtime.OutcomeOK || !strings.Contains(first.Content, `"return_date":null`) {
		t.Fatalf("rent copy 10: %s %s", first.Outcome, first.Content)
	}
	for _, c := range []struct {
		args, want string
		outcome    runtime.Outcome
	}{
		{args(10, 2), "already has a rental open", runtime.OutcomeToolError},
		{args(99999, 2), "does not exist; nothing was changed", runtime.OutcomeToolError},
		{args(11, 1), `"inventory_id":11`, runtime.OutcomeOK}, // the same customer, another copy
	} {
		if r := call(rent.Name, c.args); r.Outcome != c.outcome || !strings.Contains(r.Content, c.want) {
			t.Errorf("%s %s: %s %q, want %s with %q", rent.Name, c.args, r.Outcome, r.Content, c.outcome, c.want)
		}
	}
	var row map[string]any
	if err := json.Unmarshal([]byte(first.Content), &row); err != nil {
		t.Fatal(err)
	}
	if r := call(ret.Name, `{"`+ret.Params[0].Name+`": `+itoa(int(row["rental_id"].(float64)))+`}`); r.Outcome != runtime.OutcomeOK {
		t.Fatalf("return: %s", r.Content)
	}
	if r := call(rent.Name, args(10, 2)); r.Outcome != runtime.OutcomeOK {
		t.Errorf("a returned copy is rented again: %s", r.Content)
	}
}

// TestHireWithinRange: an HR database gets a hire (an open action on the
// employees, stamped in hire_date) whose salary must be within the job's
// min_salary and max_salary (every employee of the data is), whose email
// must be new (UNIQUE), and whose job must exist; each refusal leaves
// nothing, and the gate tried each rule.
func TestHireWithinRange(t *testing.T) {
	res, env := openEnv(t, "hr")
	hire := actionOf(res, "employees", toolgen.RuleOpen)
	if hire == nil {
		t.Fatal("employees: no open action")
	}
	o := hire.Action.Open
	if o.Start != "hire_date" || len(o.Bounds) != 1 || o.Bounds[0].Min != "min_salary" || o.Bounds[0].Max != "max_salary" || !slicesContains(o.Unique, "email") {
		t.Errorf("open employee: %+v", o)
	}
	s := smokeOf(res, hire.Name)
	if s == nil || !s.Passed || len(s.Rules) < 3 {
		t.Fatalf("%s: gate %+v", hire.Name, s)
	}
	// The policy states each rule the action enforces.
	policy := synth.Policy("hr", res.Spec)
	for _, rule := range []string{"a row it refers to does not exist", "the salary is outside the job's min salary to max salary", "another employee already has its email"} {
		if !strings.Contains(policy, hire.Name+": not allowed") || !strings.Contains(policy, rule) {
			t.Errorf("the policy does not state %q:\n%s", rule, policy)
		}
	}
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	p := func(col string) string { return hire.Params[indexParam(hire, col)].Name }
	args := func(email, job string, salary int) string {
		return `{"` + p("last_name") + `": "Doe", "` + p("email") + `": "` + email + `", "` + p("job_id") + `": "` + job + `", "` + p("salary") + `": ` + itoa(salary) + `}`
	}
	for _, c := range []struct {
		args, want string
		outcome    runtime.Outcome
	}{
		{args("JDOE", "AD_ASST", 9000), "is outside the job AD_ASST's min salary 3000 to max salary 6000; nothing was changed", runtime.OutcomeToolError},
		{args("SKING", "AD_ASST", 4000), "already has the email SKING; nothing was changed", runtime.OutcomeToolError},
		{args("JDOE", "NO_JOB", 4000), "does not exist; nothing was changed", runtime.OutcomeToolError},
		{args("JDOE", "AD_ASST", 4000), `"hire_date":"`, runtime.OutcomeOK},
	} {
		r, err := ep.Call(context.Background(), hire.Name, json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != c.outcome || !strings.Contains(r.Content, c.want) {
			t.Errorf("%s %s: %s %q, want %s with %q", hire.Name, c.args, r.Outcome, r.Content, c.outcome, c.want)
		}
	}
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 1 || len(d["employees"]) != 1 {
		t.Errorf("one employee hired, nothing else: %v", d)
	}
}

func indexParam(t *toolgen.Tool, col string) int {
	for i, p := range t.Params {
		if p.Column == col {
			return i
		}
	}
	return -1
}

func itoa(n int) string { return strings.TrimSpace(json.Number(jsonInt(n)).String()) }

func jsonInt(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
