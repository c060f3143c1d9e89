package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// parkScript is episode i's steps on the edge env: a write of its own (so
// that no two episodes hold the same image), connProbe (counters, random,
// writes, the write budget), a reset, and connDirt's writes with reads of
// what they changed. "" is a reset.
func parkScript(i int) []struct{ tool, sql string } {
	own := fmt.Sprintf(`INSERT INTO nc VALUES ('own%d', 'v%d')`, i, i)
	s := []struct{ tool, sql string }{{"exec", own}, {"query", `SELECT k, v FROM nc ORDER BY k`}}
	s = append(s, connProbe...)
	// After the reset, 0.6 MB kept, then connDirt's 1.1 MB and 0.6 MB
	// refused: the budget counts what the episode wrote before it parked.
	s = append(s, struct{ tool, sql string }{"", ""}, struct{ tool, sql string }{"exec", own},
		struct{ tool, sql string }{"exec", strings.Replace(fillSQL(600, 1000), "'k'", "'r'", 1)})
	for _, d := range connDirt {
		s = append(s, d, struct{ tool, sql string }{"query", `SELECT k, v, last_insert_rowid() AS l, total_changes() AS t FROM nc ORDER BY k`})
	}
	return append(s, struct{ tool, sql string }{"query", `SELECT count(*) AS n, sum(n) AS s FROM big`})
}

// parkStep runs one step of a script and returns what it showed: the
// call's result, then the diff and state hash.
func parkStep(t *testing.T, ep *Episode, s struct{ tool, sql string }) string {
	t.Helper()
	var out string
	switch s.tool {
	case "":
		if err := ep.Reset(); err != nil {
			t.Fatal(err)
		}
		out = "reset"
	case "exec":
		r := execSQL(t, ep, s.sql)
		out = fmt.Sprintf("%v %s %s", r.IsError, r.Outcome, r.Content)
	default:
		r := query(t, ep, s.sql)
		out = fmt.Sprintf("%v %s %s", r.IsError, r.Outcome, r.Content)
	}
	d, h, err := ep.DiffAndHash()
	if err != nil {
		t.Fatal(err)
	}
	j, _ := json.Marshal(d)
	return fmt.Sprintf("%s %q -> %s\n  diff %s\n  hash %s\n", s.tool, s.sql, out, j, h)
}

// Issue 20 item 4: episodes that give their connection back after every
// step, and take it back holding another episode's image (so SQLite must
// drop the pages it cached), see exactly what an episode that keeps its
// connection sees: results, counters, random values, the write budget's
// refusals, diffs and state hashes.
func TestParkedEpisodesAreIdentical(t *testing.T) { eachEngine(t, testParkedEpisodesAreIdentical) }

func testParkedEpisodesAreIdentical(t *testing.T, engine string) {
	b := *testBundle(t, "edge", false)
	load := func(maxConns int64) *Env {
		e, err := LoadBundle(context.Background(), &b, Options{Engine: engine, MaxWriteMB: 1, ConnPool: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		e.maxConns = maxConns
		return e
	}
	const n = 4
	// Each episode alone, holding its connection throughout.
	want := make([]string, n)
	ref := load(-1)
	for i := range n {
		ep := newEpisode(t, ref, "", int64(10+i))
		var w strings.Builder
		for _, s := range parkScript(i) {
			w.WriteString(parkStep(t, ep, s))
		}
		ep.Close()
		want[i] = w.String()
	}
	if !strings.Contains(want[0], " quota ") {
		t.Fatalf("the write budget never refused a call:\n%s", want[0])
	}
	// Interleaved, each starting a step later than the one before: with
	// MaxConns 0 every episode parks after every step; with 1, the first
	// keeps its connection and the others share what the pool has.
	for _, maxConns := range []int64{0, 1} {
		t.Run(fmt.Sprint("MaxConns=", maxConns), func(t *testing.T) {
			e := load(maxConns)
			eps := make([]*Episode, n)
			got := make([]strings.Builder, n)
			for i := range eps {
				eps[i] = newEpisode(t, e, "", int64(10+i))
				defer eps[i].Close()
			}
			script := parkScript(0)
			parkedImages := 0
			for round := 0; round < len(script)+n; round++ {
				for i, ep := range eps {
					if j := round - i; j >= 0 && j < len(script) {
						got[i].WriteString(parkStep(t, ep, parkScript(i)[j]))
						if ep.parked != nil && ep.parked.image != nil {
							parkedImages++
						}
					}
				}
				if live := e.liveConns.Load(); live > max(maxConns, 0) {
					t.Fatalf("round %d: %d connections held between steps, MaxConns %d", round, live, maxConns)
				}
			}
			for i := range n {
				if g := got[i].String(); g != want[i] {
					t.Errorf("episode %d, %s", i, firstDifference(g, want[i]))
				}
			}
			if parkedImages == 0 {
				t.Error("no episode was parked holding writes")
			}
		})
	}
}

// Episodes on many goroutines under a small MaxConns hand connections
// (and images) to one another through the pool: each ends as it does
// alone (run it with -race).
func TestParkedEpisodesConcurrent(t *testing.T) {
	b := *testBundle(t, "edge", false)
	e, err := LoadBundle(context.Background(), &b, Options{MaxConns: 2, ConnPool: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	script := func(i int) []struct{ tool, sql string } {
		return []struct{ tool, sql string }{
			{"exec", fmt.Sprintf(`INSERT INTO nc VALUES ('own%d', 'v%d')`, i, i)},
			{"exec", fmt.Sprintf(`UPDATE big SET n = n + %d`, i)},
			{"query", `SELECT k, v, last_insert_rowid() AS l, changes() AS c, total_changes() AS t, random() AS r FROM nc ORDER BY k`},
			{"exec", fmt.Sprintf(`INSERT INTO ck VALUES ('a%d', 'b', %d)`, i, i)},
			{"query", `SELECT * FROM big`},
			{"", ""},
			{"exec", fmt.Sprintf(`INSERT INTO nc VALUES ('again%d', 'w')`, i)},
			{"query", `SELECT k, total_changes() AS t FROM nc ORDER BY k`},
		}
	}
	const n = 12
	run := func(ep *Episode, i int) string {
		var w strings.Builder
		for _, s := range script(i) {
			w.WriteString(parkStep(t, ep, s))
		}
		return w.String()
	}
	want := make([]string, n)
	alone, err := LoadBundle(context.Background(), &b, Options{MaxConns: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	for i := range n {
		ep := newEpisode(t, alone, "", int64(i))
		want[i] = run(ep, i)
		ep.Close()
	}
	got := make([]string, n)
	done := make(chan int)
	for i := range n {
		go func() {
			ep, err := e.NewEpisode("", int64(i))
			if err == nil {
				got[i] = run(ep, i)
				ep.Close()
			}
			done <- i
		}()
	}
	for range n {
		<-done
	}
	for i := range n {
		if got[i] != want[i] {
			t.Errorf("episode %d, %s", i, firstDifference(got[i], want[i]))
		}
	}
}

// A step that ends with a statement still reading (its lock outlives the
// COMMIT) keeps its connection, and its writes, committed, stay the
// episode's until Reset.
func TestParkKeepsAConnectionStillReading(t *testing.T) {
	e := loadEnv(t, "edge")
	e.maxConns = 0
	ep := newEpisode(t, e, "", 1)
	defer ep.Close()
	execSQL(t, ep, `INSERT INTO nc VALUES ('x', 'y')`)
	if ep.sqlConn != nil || ep.parked == nil || ep.parked.image == nil {
		t.Fatal("the episode did not park with its write")
	}
	if err := ep.connect(); err != nil {
		t.Fatal(err)
	}
	st, _, err := ep.conn.Prepare(`SELECT k FROM nc`)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Step() {
		t.Fatal(st.Err())
	}
	ep.enter()() // a step ends while st reads
	if ep.sqlConn == nil {
		t.Fatal("parked a connection whose statement still reads")
	}
	st.Close()
	if r := query(t, ep, `SELECT group_concat(k) AS k FROM nc`); r.Content != `[{"k":"a,x"}]` {
		t.Fatalf("after the kept step: %s", r.Content)
	}
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	if r := query(t, ep, `SELECT group_concat(k) AS k FROM nc`); r.Content != `[{"k":"a"}]` {
		t.Fatalf("after reset: %s", r.Content)
	}
}

// TestReleaseBetweenLines is `wasmenv replay`'s shape: episodes stepped in
// turn, a few steps each, under a small MaxConns. Without Release the
// first MaxConns episodes keep their connections while idle and every
// later one parks after each of its own steps; releasing each episode
// when its turn ends keeps only the stepped one connected, none parks in
// the middle of its turn, and every episode ends as it does alone.
func TestReleaseBetweenLines(t *testing.T) {
	b := *testBundle(t, "edge", false)
	load := func(maxConns int) *Env {
		e, err := LoadBundle(context.Background(), &b, Options{MaxWriteMB: 1, ConnPool: 1, MaxConns: maxConns})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	const n = 4
	want := make([]string, n)
	ref := load(-1)
	for i := range n {
		ep := newEpisode(t, ref, "", int64(10+i))
		var w strings.Builder
		for _, s := range parkScript(i) {
			w.WriteString(parkStep(t, ep, s))
		}
		ep.Close()
		want[i] = w.String()
	}
	e := load(1)
	eps := make([]*Episode, n)
	got := make([]strings.Builder, n)
	for i := range eps {
		eps[i] = newEpisode(t, e, "", int64(10+i))
		defer eps[i].Close()
	}
	// Each turn is one step of every episode's script in order: three
	// steps (a line's calls, diff and score) per episode per turn.
	for j := 0; j < len(parkScript(0)); j += 3 {
		for i, ep := range eps {
			script := parkScript(i)
			for k := j; k < min(j+3, len(script)); k++ {
				got[i].WriteString(parkStep(t, ep, script[k]))
				if ep.sqlConn == nil && script[k].tool != "" {
					t.Fatalf("episode %d parked in the middle of its turn (step %d)", i, k)
				}
			}
			ep.Release()
			if live := e.liveConns.Load(); live != 0 {
				t.Fatalf("%d connections held after a release", live)
			}
		}
	}
	for i := range n {
		if g := got[i].String(); g != want[i] {
			t.Errorf("episode %d, %s", i, firstDifference(g, want[i]))
		}
	}
}
