package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envtest"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestDoingNothingEarnsNothing: on a fresh from-db output the environment
// test has no note, and an agent that does nothing scores 0 under every
// reward rl offers (a separate "nothing else changed" check that held on
// the untouched state earned 0.5 under fraction and 0.1 under awm).
func TestDoingNothingEarnsNothing(t *testing.T) {
	res := fromDB(t, shopDB(t), synth.Options{Tasks: 60})
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ctx := context.Background()
	rep, err := envtest.Run(ctx, env, envtest.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range rep.Tasks {
		if len(tr.Problems) > 0 || len(tr.Notes) > 0 {
			t.Errorf("envtest: task %s: problems %v, notes %q", tr.ID, tr.Problems, tr.Notes)
		}
	}
	var rewards []rl.Reward
	for _, name := range rl.RewardNames {
		r, err := rl.ParseReward(name, rl.RewardOptions{EnvFactory: rl.EnvFactory{Alpha: 0.5}})
		if err != nil {
			t.Fatal(err)
		}
		rewards = append(rewards, r)
	}
	writes := 0
	for i := range env.Bundle.Tasks {
		task := &env.Bundle.Tasks[i]
		if len(task.Checks) > 0 {
			writes++
		}
		ep, err := env.NewEpisode(task.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ep.Score(ctx, nil)
		ep.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rewards {
			if got, _ := r.Score(rl.RewardInput{Task: task, Score: s, MaxTurns: 10}); got != 0 {
				t.Errorf("task %s: doing nothing scores %.2f under reward %s", task.ID, got, r.Name())
			}
		}
	}
	if writes == 0 {
		t.Error("no write task")
	}
}

// TestInstructionsReadLikeUsers: requests in a user's words, naming rows
// by what a person would say, with variety; and tool descriptions in
// plain English (issue 28: "Creates a audit log", "Lists the staff of a
// staff").
func TestInstructionsReadLikeUsers(t *testing.T) {
	res := fromDB(t, shopDB(t), synth.Options{Tasks: 80})
	stamp := regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:`)
	skeleton := regexp.MustCompile(`"[^"]*"|\S*[\d@]\S*`)
	shapes := map[string]bool{}
	intro := regexp.MustCompile(`(^|[.!] )(I'm [A-Z]|My name is|This is [A-Z]|My [a-z ]+ is )`)
	firstPerson := 0
	for _, task := range res.Tasks {
		in := task.Instruction
		for _, tb := range res.Model.Tables {
			for _, col := range tb.Columns {
				if strings.Contains(col.Name, "_") && strings.Contains(in, col.Name) {
					t.Errorf("task %s names column %s: %q", task.ID, col.Name, in)
				}
			}
		}
		if stamp.MatchString(in) {
			t.Errorf("task %s names a timestamp: %q", task.ID, in)
		}
		for _, bad := range []string{"with stock", "with total", "with placed at", " id ", "audit log of", "of a staff"} {
			if strings.Contains(in, bad) {
				t.Errorf("task %s says %q: %q", task.ID, bad, in)
			}
		}
		if r, _ := utf8.DecodeRuneInString(in); !unicode.IsUpper(r) || !strings.ContainsAny(in[len(in)-1:], ".?!") {
			t.Errorf("task %s is not a sentence: %q", task.ID, in)
		}
		if intro.MatchString(in) {
			firstPerson++
			if !strings.HasPrefix(task.Persona, "You are ") {
				t.Errorf("task %s speaks in the first person with persona %q", task.ID, task.Persona)
			}
		}
		shapes[skeleton.ReplaceAllString(strings.ToLower(in), "_")] = true
	}
	if len(shapes) < len(res.Tasks)*2/3 {
		t.Errorf("only %d distinct phrasings among %d tasks", len(shapes), len(res.Tasks))
	}
	if firstPerson == 0 {
		t.Error("no request in the first person")
	}
	article := regexp.MustCompile(`\ba [aeio]`)
	for _, tool := range res.Spec.Tools {
		if article.MatchString(tool.Doc) || strings.Contains(tool.Doc, "staff of a staff") {
			t.Errorf("tool %s: %q", tool.Name, tool.Doc)
		}
	}
}

// TestWritesKeepTheData: write tasks change what a person would change, to
// values the column really holds, never a ledger (order_events) nor rows
// under a derived total (order_items under orders.total_cents); refusal,
// conditional and two-change tasks are among them; every task carries a
// difficulty.
func TestWritesKeepTheData(t *testing.T) {
	db := shopDB(t)
	// (No plain quota: the kinds counted below include the plain ones.)
	res := fromDB(t, db, synth.Options{Tasks: 120, PlainShare: 1})
	conn, err := sqlite3.Open("file:" + db + "?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	kinds := map[string]int{}
	for _, task := range res.Tasks {
		for _, k := range []string{"refuse-if", "update-if", "update-two", "ask", "count", "delete", "create", "update", "sum", "top"} {
			if strings.Contains(task.ID, "-"+k+"-") {
				kinds[k]++
				break
			}
		}
		d := task.Difficulty
		if d == nil || d.Level < 1 || d.Level > 5 || d.Calls != len(task.Calls) {
			t.Errorf("task %s: difficulty %+v", task.ID, d)
		}
		for _, call := range task.Calls {
			tool := res.Spec.Tool(call.Name)
			if tool == nil || !tool.Kind.Writes() {
				continue
			}
			if tool.Table == "order_events" || tool.Table == "order_items" && tool.Kind != toolgen.Update {
				t.Errorf("task %s writes %s (%s)", task.ID, tool.Table, call.Name)
			}
			if tool.Kind != toolgen.Update {
				continue
			}
			var args map[string]any
			json.Unmarshal(call.Arguments, &args)
			for _, p := range tool.Params {
				v, ok := args[p.Name]
				if !ok || p.Op != toolgen.OpSet {
					continue
				}
				if strings.Contains(p.Column, "total") || strings.HasSuffix(p.Column, "_at") || p.Column == "stock" {
					t.Errorf("task %s sets %s", task.ID, p.Column)
				}
				if p.Column == "status" && tool.Table == "orders" {
					// Forward along the CHECK's order, never back.
					var key any
					for _, kp := range tool.Params {
						if kp.Op == toolgen.OpKey {
							key = args[kp.Name]
						}
					}
					if f, ok := key.(float64); ok {
						key = int64(f)
					}
					old, err := queryText(conn, "SELECT status FROM orders WHERE id = ?", key)
					if err != nil {
						t.Fatal(err)
					}
					if order := []string{"pending", "shipped", "delivered", "cancelled"}; slices.Index(order, v.(string)) <= slices.Index(order, old) {
						t.Errorf("task %s moves an order from %s back to %s", task.ID, old, v)
					}
				}
				if s, isText := v.(string); isText {
					n, err := dbmodel.QueryInt64(conn, fmt.Sprintf("SELECT COUNT(*) FROM %s WHERE %s = ?", dbmodel.Quote(tool.Table), dbmodel.Quote(p.Column)), s)
					if err != nil || n == 0 {
						t.Errorf("task %s sets %s.%s to %q, a value the column never holds", task.ID, tool.Table, p.Column, s)
					}
				}
			}
		}
		if strings.Contains(task.ID, "-refuse-if-") {
			if task.Answer == nil || len(task.Checks) != 1 || !task.Checks[0].Guard {
				t.Errorf("refusal task %s: answer %v, checks %+v", task.ID, task.Answer, task.Checks)
			}
		}
	}
	for _, k := range []string{"update-two", "ask", "update", "sum"} {
		if kinds[k] == 0 {
			t.Errorf("no %s task among %d: %v", k, len(res.Tasks), kinds)
		}
	}
	if kinds["update-if"]+kinds["refuse-if"] == 0 { // rarer: only the orders' status has more than two values
		t.Errorf("no conditional task among %d: %v", len(res.Tasks), kinds)
	}
	t.Logf("kinds: %v", kinds)
}

func queryText(conn *sqlite3.Conn, sql string, arg any) (string, error) {
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return "", err
	}
	defer stmt.Close()
	if err := dbmodel.Bind(stmt, 1, arg); err != nil {
		return "", err
	}
	if !stmt.Step() {
		return "", fmt.Errorf("no row for %v: %v", arg, stmt.Err())
	}
	return stmt.ColumnText(0), nil
}
