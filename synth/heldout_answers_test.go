package synth

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// Issue 34 item 5, judged on the held-out set (docs/judge/verdicts/r5-*):
// a "contains" rule passed the sub-region for its region (unsd_ru, 4 of
// 25), and right values said with their record's fields scored 0
// (worldcup, portal_mammals). On every held-out database
// (WASMENV_HELDOUT=DIR, made by synth/testdata/heldout/build.sh; skipped
// without it: the databases are fetched, not in the repository), each
// answer task made with the domain toolset passes its ground truth's
// answer and fails: the numbers 0–20 and the last tool output pasted,
// that output alone (where it holds more than the value), the record
// restated, and every longer value of the record that holds the expected
// one. It measures, and logs, right answers in a sentence and with fewer
// than half of the record's values (docs/SYNTHESIS.md has the counts).
// Nothing is tuned on these databases.
func TestHeldOutAnswersCannotBeGamed(t *testing.T) {
	dir := os.Getenv("WASMENV_HELDOUT")
	if dir == "" {
		t.Skip("WASMENV_HELDOUT names no held-out set (sh synth/testdata/heldout/build.sh DIR)")
	}
	names, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var spray strings.Builder
	for i := 0; i <= 20; i++ {
		spray.WriteString(strconv.Itoa(i) + " ")
	}
	for _, n := range names {
		name := n.Name()
		if only := os.Getenv("WASMENV_HELDOUT_ONLY"); only != "" && !strings.Contains(","+only+",", ","+name+",") {
			continue
		}
		db := filepath.Join(dir, name, name+".sqlite")
		if _, err := os.Stat(db); err != nil {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			res, err := FromDB(ctx, db, Options{Out: t.TempDir(), Tasks: 60, Seed: 1, Toolset: toolgen.ToolsetDomain})
			if err != nil {
				t.Skipf("no environment: %v", err)
			}
			env, err := runtime.LoadBundle(ctx, res.Bundle, runtime.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer env.Close()
			var m heldOutCounts
			for _, task := range res.Bundle.Tasks {
				if task.Answer != nil {
					m.try(t, ctx, env, task, spray.String())
				}
			}
			t.Logf("%s: %d answer tasks; right: %d/%d bare and in a sentence, %d/%d with context; gamed passing: %d of %d trials (spray+paste, paste, record restated, longer record value)",
				name, m.answers, m.rightOK, m.right, m.contextOK, m.context, m.gamedPassed, m.gamed)
			if m.gamedPassed > 0 {
				t.Errorf("%d gamed answers pass", m.gamedPassed)
			}
		})
	}
}

// heldOutCounts counts the answers tried on an environment.
type heldOutCounts struct {
	answers, right, rightOK, context, contextOK, gamed, gamedPassed int
}

func (m *heldOutCounts) try(t *testing.T, ctx context.Context, env *runtime.Env, task envpkg.Task, spray string) {
	t.Helper()
	m.answers++
	ep, err := env.NewEpisode(task.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	last := ""
	for _, c := range task.Calls {
		res, err := ep.Call(ctx, c.Name, c.Arguments)
		if err != nil {
			t.Fatal(err)
		}
		last = res.Content
	}
	score := func(got string) bool {
		s, err := ep.Score(ctx, &got)
		if err != nil {
			t.Fatalf("%s: %v", task.ID, err)
		}
		return s.Reward == 1
	}
	a := task.Answer
	reply := a.Reply()
	if !score(reply) {
		t.Errorf("%s: the ground truth's answer %q fails", task.ID, reply)
	}
	for _, right := range []string{reply, "It is " + reply + "."} {
		m.right++
		if score(right) {
			m.rightOK++
		} else {
			t.Logf("%s: the right answer %q fails", task.ID, right)
		}
	}
	gamed := []string{spray + last}
	if !pastedValueOnly(last, reply) {
		gamed = append(gamed, last)
	}
	if a.Alone != nil && len(a.Alone.Record) >= 3 {
		rec := a.Alone.Record
		var said []string
		unsaid := 0
		for _, v := range rec {
			// A value with its column's name, a label ("plot_id 2"),
			// unless the name holds digits, which an answer would not
			// say ("ISO3166-1-Alpha-2").
			label := v.Column + " "
			if strings.ContainsAny(v.Column, "0123456789") {
				label = ""
			}
			said = append(said, label+v.Value)
			if !runtime.UserSays([]string{task.Instruction, task.Persona}, v.Value) {
				unsaid++
			}
		}
		k := (len(rec) - 1) / 2
		m.context++
		with := "It is " + reply + " (" + strings.Join(said[:k], ", ") + ")."
		if score(with) {
			m.contextOK++
		} else {
			t.Logf("%s: the right answer with context %q fails", task.ID, with)
		}
		if 2*unsaid >= len(rec) {
			gamed = append(gamed, reply+" ("+strings.Join(said, ", ")+")")
		}
	}
	if a.Alone != nil {
		for _, v := range a.Alone.Record {
			if !strings.EqualFold(v.Value, reply) && runtime.UserSays([]string{v.Value}, reply) {
				gamed = append(gamed, v.Value)
			}
		}
	}
	for _, g := range gamed {
		m.gamed++
		if score(g) {
			m.gamedPassed++
			t.Errorf("%s: %q (rule %s %q) passes the gamed answer %.200q", task.ID, task.Instruction, a.Match, a.Value, g)
		}
	}
}

// pastedValueOnly: a tool output holds nothing but want ({"iata":"DEN"}).
func pastedValueOnly(out, want string) bool {
	var v any
	if json.Unmarshal([]byte(out), &v) != nil {
		return strings.EqualFold(strings.TrimSpace(out), want)
	}
	leaves, same := 0, true
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		case nil:
		default:
			leaves++
			b, _ := json.Marshal(x)
			same = same && (strings.EqualFold(strings.Trim(string(b), `"`), want))
		}
	}
	walk(v)
	return same && leaves > 0
}
