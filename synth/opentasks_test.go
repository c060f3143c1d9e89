package synth_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// openTasksEnv synthesizes a corpus database's domain environment with
// enough tasks to have open tasks, and its source.
func openTasksEnv(t *testing.T, name string, maxChain int) (*synth.Result, *runtime.Env, *sqlite3.Conn) {
	t.Helper()
	dir := t.TempDir()
	src := corpusDB(t, dir, name)
	res, err := synth.FromDB(context.Background(), src, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 220, Seed: 1, MaxChain: maxChain, Toolset: toolgen.ToolsetDomain})
	if err != nil {
		t.Fatal(err)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	conn, err := sqlite3.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return res, env, conn
}

// play runs calls in a fresh episode of task and scores answer.
func play(t *testing.T, env *runtime.Env, task string, calls []envpkg.Call, answer *string) runtime.Score {
	t.Helper()
	ep, err := env.NewEpisode(task, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	for _, c := range calls {
		if _, err := ep.Call(context.Background(), c.Name, c.Arguments); err != nil {
			t.Fatal(err)
		}
	}
	s, err := ep.Score(context.Background(), answer)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// withArg is call with one argument replaced.
func withArg(t *testing.T, c envpkg.Call, name string, v any) envpkg.Call {
	t.Helper()
	var args map[string]any
	if err := json.Unmarshal(c.Arguments, &args); err != nil {
		t.Fatal(err)
	}
	args[name] = v
	raw, _ := json.Marshal(args)
	return envpkg.Call{Name: c.Name, Arguments: raw}
}

// TestRentTasks: the film rental environment has rent tasks ("open a new
// rental ... a copy of the film X"): the film's copies are found by its
// title, and any copy of that film that is in is right (the checks take
// the choice), a copy of another film is wrong, and the rental's stamp is
// checked as set, not as the second the walk saw (an agent that makes one
// more lookup first still passes). Two rentals in one task: each is
// checked with its own film's copies, and one alone does not pass.
func TestRentTasks(t *testing.T) {
	res, env, src := openTasksEnv(t, "sakila", 9) // two rentals take 8 calls
	n, twos := 0, 0
	for _, task := range res.Tasks {
		if !strings.Contains(task.ID, "-open-") {
			continue
		}
		if strings.Contains(task.ID, "-open-two-") {
			twos++
			// Two rentals: the first alone is half the work, and earns no pass.
			var calls []envpkg.Call
			for i, c := range task.Calls {
				if c.Name != task.Calls[len(task.Calls)-1].Name || i == len(task.Calls)-1 {
					calls = append(calls, c)
				}
			}
			if s := play(t, env, task.ID, calls, nil); s.AllPassed {
				t.Errorf("%s (%s): one rental of two passes", task.ID, task.Instruction)
			}
		}
		last := task.Calls[len(task.Calls)-1]
		var args map[string]any
		if err := json.Unmarshal(last.Arguments, &args); err != nil {
			t.Fatal(err)
		}
		inv := args["inventory_id"]
		other, err := rowsOf(src, "SELECT i.inventory_id, (SELECT j.inventory_id FROM inventory j WHERE j.film_id != i.film_id LIMIT 1) FROM inventory i WHERE i.film_id = (SELECT film_id FROM inventory WHERE inventory_id = ?) AND i.inventory_id != ? LIMIT 1", inv, inv)
		if err != nil || len(other) == 0 {
			continue // a film with one copy: no choice to try
		}
		n++
		head := task.Calls[:len(task.Calls)-1]
		extra := append([]envpkg.Call{{Name: task.Calls[0].Name, Arguments: task.Calls[0].Arguments}}, head...)
		for _, c := range []struct {
			what  string
			calls []envpkg.Call
			pass  bool
		}{
			{"the ground truth", task.Calls, true},
			{"one more lookup first", append(extra, last), true},
			{"another copy of the film", append(append([]envpkg.Call{}, head...), withArg(t, last, "inventory_id", other[0][0])), true},
			{"a copy of another film", append(append([]envpkg.Call{}, head...), withArg(t, last, "inventory_id", other[0][1])), false},
			{"nothing", nil, false},
		} {
			if s := play(t, env, task.ID, c.calls, nil); s.AllPassed != c.pass {
				t.Errorf("%s (%s): %s: passed %v, want %v", task.ID, task.Instruction, c.what, s.AllPassed, c.pass)
			}
		}
	}
	if n < 3 || twos == 0 {
		t.Errorf("%d rent tasks with a choice of copy (%d of two rentals), want 3 or more and some of two", n, twos)
	}
}

// TestHireTasks: the HR environment has hire tasks and policy tasks where
// the salary asked is outside the job's range: the right result is no
// change and the job's maximum salary; the hire the user asked for is
// refused by the action, and an answer without the lookup (nothing, or the
// salary asked) fails.
func TestHireTasks(t *testing.T) {
	res, env, _ := openTasksEnv(t, "hr", 0)
	hires, refusals := 0, 0
	for _, task := range res.Tasks {
		switch {
		case strings.Contains(task.ID, "-refuse-open-"):
			refusals++
			if task.Answer == nil || len(task.Checks) != 1 || !task.Checks[0].Guard {
				t.Errorf("%s: a refusal asks for an answer and no change: %+v", task.ID, task)
				continue
			}
			right := task.Answer.Reply()
			if right == "" {
				right = task.Answer.Value
			}
			if s := play(t, env, task.ID, task.Calls, &right); !s.AllPassed {
				t.Errorf("%s: the ground truth fails", task.ID)
			}
			if s := play(t, env, task.ID, task.Calls, nil); s.Reward != 0 {
				t.Errorf("%s: no answer scores %v", task.ID, s.Reward)
			}
			var hire *toolgen.Tool
			for _, tl := range res.Spec.Tools {
				if tl.Kind == toolgen.DomainAction && tl.Action.Rule == toolgen.RuleOpen {
					hire = tl
				}
			}
			// The hire as asked: the values the instruction names, the job
			// its lookup found.
			ep, err := env.NewEpisode(task.ID, 1)
			if err != nil {
				t.Fatal(err)
			}
			// The job is the one the instruction names ("the job
			// "Shipping Clerk"", a persona's hire: k-depth's join), or the
			// row the chain starts at: the
			// lookup among the ground truth's calls that found it.
			title := regexp.MustCompile(`the job "?([^",]+)"?[,:]`).FindAllStringSubmatch(task.Instruction, -1)
			var job map[string]any
			for _, call := range task.Calls {
				found, err := ep.Call(context.Background(), call.Name, call.Arguments)
				if err != nil {
					t.Fatal(err)
				}
				var row map[string]any
				_ = json.Unmarshal([]byte(found.Content), &row)
				if row["job_title"] != nil && row["min_salary"] != nil && (title == nil || row["job_title"] == title[len(title)-1][1]) {
					job = row
					break
				}
			}
			m := regexp.MustCompile(`last name (\S+), email (\S+), (?:the job [^,]+, )?salary (\d+)`).FindStringSubmatch(task.Instruction)
			if m == nil || job["job_id"] == nil {
				t.Fatalf("%s: %s; job %v", task.ID, task.Instruction, job)
			}
			salary, _ := strconv.Atoi(m[3])
			args, _ := json.Marshal(map[string]any{"last_name": m[1], "email": m[2], "salary": salary, "job_id": job["job_id"]})
			r, err := ep.Call(context.Background(), hire.Name, args)
			ep.Close()
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != runtime.OutcomeToolError || !strings.Contains(r.Content, "is outside") {
				t.Errorf("%s: the hire as asked: %s %s", task.ID, r.Outcome, r.Content)
			}
		case strings.Contains(task.ID, "-open-"):
			hires++
			if s := play(t, env, task.ID, task.Calls, nil); !s.AllPassed {
				t.Errorf("%s: the ground truth fails", task.ID)
			}
			if s := play(t, env, task.ID, task.Calls[:len(task.Calls)-1], nil); s.AllPassed || s.Reward != 0 {
				t.Errorf("%s: the lookups alone score %v", task.ID, s.Reward)
			}
		}
	}
	if hires < 3 || refusals < 2 {
		t.Errorf("%d hire tasks and %d refusals, want 3 and 2 or more", hires, refusals)
	}
}

func rowsOf(conn *sqlite3.Conn, sql string, args ...any) ([][]any, error) {
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return nil, err
	}
	defer stmt.Close()
	for i, a := range args {
		switch v := a.(type) {
		case float64:
			stmt.BindInt64(i+1, int64(v))
		default:
			stmt.BindText(i+1, v.(string))
		}
	}
	var out [][]any
	for stmt.Step() {
		var row []any
		for j := range stmt.ColumnCount() {
			row = append(row, stmt.ColumnInt64(j))
		}
		out = append(out, row)
	}
	return out, stmt.Err()
}
