package synth_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// lastRows replays task's ground truth in a fresh episode and returns the
// rows the last call listed (its page's items), nil when it lists none.
func lastRows(t *testing.T, env *runtime.Env, task envpkg.Task) []map[string]any {
	t.Helper()
	ep, err := env.NewEpisode(task.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	var out string
	for _, c := range task.Calls {
		r, err := ep.Call(context.Background(), c.Name, c.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		out = r.Content
	}
	var page struct {
		Items []map[string]any `json:"items"`
	}
	if json.Unmarshal([]byte(out), &page) != nil {
		return nil
	}
	return page.Items
}

// TestCountAnswerNamesEveryCountedRow: a count or a sum over several rows
// may be answered with the rows it counts, each by its key ("7 (InvoiceLineId
// 10, 11 and 12)"), not only the first of them (round 7's players: "2
// (order_id 10420)" passed and "2 (order_id 10585)" failed though both
// were counted); a spray of numbers still fails.
func TestCountAnswerNamesEveryCountedRow(t *testing.T) {
	res, env, _ := openTasksEnv(t, "chinook", 0)
	tried := 0
	for _, task := range res.Tasks {
		if task.Answer == nil || task.Answer.Match != "number" || !(strings.Contains(task.ID, "-tally-") || strings.Contains(task.ID, "-count-")) {
			continue
		}
		rows := lastRows(t, env, task)
		if len(rows) < 2 {
			continue
		}
		last := res.Spec.Tool(task.Calls[len(task.Calls)-1].Name)
		tb := res.Model.Table(last.Table)
		if tb == nil || len(tb.PrimaryKey) != 1 {
			continue
		}
		pk := tb.PrimaryKey[0]
		var keys []string
		for _, r := range rows {
			keys = append(keys, fmt.Sprint(r[pk]))
		}
		if _, err := strconv.ParseFloat(keys[0], 64); err != nil {
			continue // a key with letters is no number the rule reads
		}
		tried++
		named := fmt.Sprintf("%s (%s %s and %s)", task.Answer.Value, pk, strings.Join(keys[:len(keys)-1], ", "), keys[len(keys)-1])
		if s := play(t, env, task.ID, task.Calls, &named); !s.AllPassed {
			t.Errorf("%s (%s): %q fails", task.ID, task.Instruction, named)
		}
		spray := "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 " + task.Answer.Value
		if s := play(t, env, task.ID, task.Calls, &spray); s.AllPassed {
			t.Errorf("%s (%s): the spray passes", task.ID, task.Instruction)
		}
	}
	if tried < 3 {
		t.Errorf("%d counts over listed rows tried, want 3 or more", tried)
	}
	t.Logf("%d counts tried", tried)
}

// TestOpenChecksOnlyWhatTheTaskStates: an open task (hire, rent) checks
// the values the user gave and the stamps as set, not that every other
// column stays empty: a right hire that also fills an optional column
// (the manager's department, a phone number the data has) passes (round
// 7's players: a hire into the manager's department failed), and the
// hire of another person or none still fails.
func TestOpenChecksOnlyWhatTheTaskStates(t *testing.T) {
	res, env, src := openTasksEnv(t, "hr", 0)
	tried := 0
	for _, task := range res.Tasks {
		if !strings.Contains(task.ID, "-open-") || strings.Contains(task.ID, "-refuse-") {
			continue
		}
		last := task.Calls[len(task.Calls)-1]
		tl := res.Spec.Tool(last.Name)
		var args map[string]any
		if err := json.Unmarshal(last.Arguments, &args); err != nil {
			t.Fatal(err)
		}
		filled := last
		for _, p := range tl.Params {
			if p.Required || p.Stamp || args[p.Name] != nil {
				continue
			}
			v, err := rowsOfText(src, fmt.Sprintf(`SELECT %q FROM %q WHERE %q IS NOT NULL LIMIT 1`, p.Column, tl.Table, p.Column))
			if err != nil || v == "" {
				continue
			}
			var arg any = v
			if p.Type == "integer" || p.Type == "number" {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					continue
				}
				arg = f
			}
			filled = withArg(t, filled, p.Name, arg)
		}
		if string(filled.Arguments) == string(last.Arguments) {
			continue
		}
		tried++
		calls := append(append([]envpkg.Call{}, task.Calls[:len(task.Calls)-1]...), filled)
		if s := play(t, env, task.ID, calls, nil); !s.AllPassed {
			t.Errorf("%s (%s): the right hire with optional columns filled (%s) fails", task.ID, task.Instruction, filled.Arguments)
		}
		var other any
		for _, p := range tl.Params {
			if _, said := args[p.Name].(string); said && (p.Name == "email" || strings.Contains(p.Name, "name")) {
				other = withArg(t, filled, p.Name, fmt.Sprint(args[p.Name])+"x")
				if s := play(t, env, task.ID, append(append([]envpkg.Call{}, task.Calls[:len(task.Calls)-1]...), other.(envpkg.Call)), nil); s.AllPassed {
					t.Errorf("%s: a hire with another %s passes", task.ID, p.Name)
				}
				break
			}
		}
	}
	if tried < 3 {
		t.Errorf("%d open tasks tried with optional columns filled, want 3 or more", tried)
	}
	t.Logf("%d open tasks tried", tried)
}

// rowsOfText is the first column of the first row of sql, as text.
func rowsOfText(conn interface {
	Prepare(string) (*sqlite3.Stmt, string, error)
}, sql string) (string, error) {
	stmt, _, err := conn.Prepare(sql)
	if err != nil {
		return "", err
	}
	defer stmt.Close()
	if stmt.Step() {
		return stmt.ColumnText(0), nil
	}
	return "", stmt.Err()
}

// TestOpenMakesATextKey: issue 34 round 8, item 1c. A table whose key is
// a text code nobody generates (a booking's record locator) gets its open
// action (one open booking per seat, as the data shows), and the call makes
// the code from the episode's random source in the data's shape: a new
// booking has a six-character code no other has, the same episode replayed
// makes the same code, and the gate tried the call that must succeed and a
// refusal per rule, the booking's owner (every booking names a member)
// among them. On 33ff429 no such open action was made (no generated key).
func TestOpenMakesATextKey(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "trips.sqlite")
	conn, err := sqlite3.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString(`CREATE TABLE members (member_id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, full_name TEXT NOT NULL);
CREATE TABLE seats (seat_id INTEGER PRIMARY KEY, seat_label TEXT NOT NULL UNIQUE);
CREATE TABLE bookings (booking_code TEXT PRIMARY KEY, member_id INTEGER NOT NULL REFERENCES members(member_id),
  seat_id INTEGER NOT NULL REFERENCES seats(seat_id), booked_at TEXT NOT NULL, released_at TEXT);
`)
	names := []string{"Ana Silva", "Bruno Costa", "Chloe Martin", "Dmitri Ivanov", "Elena Rossi", "Farid Haddad", "Greta Berg", "Hiro Sato"}
	for i, n := range names {
		fmt.Fprintf(&b, "INSERT INTO members VALUES (%d, '%s@example.org', '%s');\n", i+1, strings.ToLower(strings.Fields(n)[0]), n)
	}
	for i := range 6 {
		fmt.Fprintf(&b, "INSERT INTO seats VALUES (%d, 'Row %c');\n", i+1, 'A'+i)
	}
	const codes = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"
	for i := range 30 {
		code := fmt.Sprintf("%c%c%d%c%d%c", codes[i%24], codes[(i*7)%24], i%10, codes[(i*5+3)%24], (i*3)%10, codes[(i*11)%24])
		seat, day := 1+i%6, 1+i/6
		released := fmt.Sprintf("'2024-03-%02d 18:00:00'", day)
		if i >= 27 {
			released = "NULL"
		}
		fmt.Fprintf(&b, "INSERT INTO bookings VALUES ('%s', %d, %d, '2024-03-%02d 09:00:00', %s);\n", code, 1+i%len(names), seat, day, released)
	}
	if err := conn.Exec(b.String()); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5, Seed: 1, Toolset: toolgen.ToolsetDomain})
	if err != nil && (res == nil || res.Bundle == nil) {
		t.Fatal(err)
	}
	book := actionOf(res, "bookings", toolgen.RuleOpen)
	if book == nil {
		t.Fatalf("no open action on bookings; tools: %d", len(res.Spec.Tools))
	}
	o := book.Action.Open
	if o.Key == nil || o.Key.Length != 6 {
		t.Fatalf("open bookings: key %+v, want a six-character code made by the call", o.Key)
	}
	s := smokeOf(res, book.Name)
	if s == nil || !s.Passed {
		t.Fatalf("%s: gate %+v", book.Name, s)
	}
	owned := false
	for _, r := range s.Rules {
		owned = owned || strings.HasPrefix(r.Rule, "owned by an existing members")
	}
	if !owned {
		t.Errorf("%s: the gate tried no owner rule: %+v", book.Name, s.Rules)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	p := func(col string) string { return book.Params[indexParam(book, col)].Name }
	book2 := func(seed int64, seats ...int) []string {
		ep, err := env.NewEpisode("", seed)
		if err != nil {
			t.Fatal(err)
		}
		defer ep.Close()
		var out []string
		for _, seat := range seats {
			r, err := ep.Call(context.Background(), book.Name, json.RawMessage(fmt.Sprintf(`{%q: %d, %q: %d}`, p("member_id"), seat+1, p("seat_id"), seat)))
			if err != nil {
				t.Fatal(err)
			}
			var row map[string]any
			if r.Outcome != runtime.OutcomeOK || json.Unmarshal([]byte(r.Content), &row) != nil {
				t.Fatalf("book seat %d: %s %s", seat, r.Outcome, r.Content)
			}
			out = append(out, fmt.Sprint(row["booking_code"]))
		}
		return out
	}
	first := book2(3, 1, 2)
	if len(first[0]) != 6 || first[0] == first[1] || strings.Trim(first[0], codes) != "" {
		t.Errorf("codes %v: want two distinct six-character codes of capitals and digits", first)
	}
	if again := book2(3, 1, 2); fmt.Sprint(again) != fmt.Sprint(first) {
		t.Errorf("the same episode replayed made %v, then %v", first, again)
	}
}

// TestTasksThatNeedReasoning: issue 34 round 8, item 2. The shapes made
// to need reasoning — a choice across a reference (pick-), arithmetic over
// rows (arith-), two goals whose second depends on the first (goals-) —
// are in the sets of the tuning databases, and each is sound: its ground
// truth scores 1.0; a change does not pass in the initial state; the same
// change on another of the listed rows (the second best among them) does
// not pass; a figure off by one, or a spray of numbers, does not pass.
// None of these shapes exists on 33ff429.
func TestTasksThatNeedReasoning(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three environments")
	}
	seen := map[string]int{}
	for _, name := range []string{"hr", "northwind", "sakila"} {
		res, env, _ := openTasksEnv(t, name, 0)
		for _, task := range res.Tasks {
			kind := ""
			for _, k := range []string{"-pick-", "-arith-", "-goals-"} {
				if strings.Contains(task.ID, k) {
					kind = strings.Trim(k, "-")
				}
			}
			if kind == "" {
				continue
			}
			seen[kind]++
			var right *string
			if task.Answer != nil {
				r := task.Answer.Reply()
				right = &r
			}
			if s := play(t, env, task.ID, task.Calls, right); s.Reward != 1 {
				t.Errorf("%s (%s): the ground truth scores %v", task.ID, task.Instruction, s.Reward)
			}
			if task.Answer != nil {
				f, err := strconv.ParseFloat(task.Answer.Value, 64)
				if err != nil {
					t.Errorf("%s: a figure's rule is no number: %+v", task.ID, task.Answer)
					continue
				}
				for _, wrong := range []string{strconv.FormatFloat(f+1, 'f', -1, 64), "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 " + task.Answer.Value} {
					if s := play(t, env, task.ID, task.Calls, &wrong); s.Reward == 1 {
						t.Errorf("%s (%s): the answer %q passes", task.ID, task.Instruction, wrong)
					}
				}
			}
			if changesOf(task) == 0 {
				continue
			}
			if s := play(t, env, task.ID, nil, nil); s.Reward == 1 {
				t.Errorf("%s: the initial state passes", task.ID)
			}
			// The change on another listed row: every row of the list the
			// ground truth read but the one it changed.
			last := task.Calls[len(task.Calls)-1]
			tl := res.Spec.Tool(last.Name)
			var args map[string]any
			if err := json.Unmarshal(last.Arguments, &args); err != nil {
				t.Fatal(err)
			}
			others := 0
			for i, c := range task.Calls[:len(task.Calls)-1] {
				lt := res.Spec.Tool(c.Name)
				if lt == nil || lt.Table != tl.Table {
					continue
				}
				for _, row := range lastRows(t, env, envpkg.Task{ID: task.ID, Calls: task.Calls[:i+1]}) {
					moved := last
					same := true
					for _, p := range tl.Params {
						if p.Op == "key" && row[p.Column] != nil {
							same = same && fmt.Sprint(row[p.Column]) == fmt.Sprint(args[p.Name])
							moved = withArg(t, moved, p.Name, row[p.Column])
						}
					}
					if same {
						continue
					}
					others++
					calls := append(append([]envpkg.Call{}, task.Calls[:len(task.Calls)-1]...), moved)
					if s := play(t, env, task.ID, calls, nil); s.Reward == 1 {
						t.Errorf("%s (%s): the change on another row (%s) passes", task.ID, task.Instruction, moved.Arguments)
					}
				}
			}
			if strings.Contains(task.ID, "-pick-") && others == 0 {
				t.Errorf("%s: no other row to try", task.ID)
			}
		}
	}
	for _, k := range []string{"pick", "arith", "goals"} {
		if seen[k] == 0 {
			t.Errorf("no %s task in the sets (%v)", k, seen)
		}
	}
	t.Logf("tasks that need reasoning: %v", seen)
}

func changesOf(t envpkg.Task) int {
	n := 0
	for _, c := range t.Checks {
		if !c.Guard {
			n++
		}
	}
	return n
}
