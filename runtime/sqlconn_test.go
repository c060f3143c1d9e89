package runtime

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// A connection an earlier episode used (pooled, sqlconn.go) and one opened
// lazily at an episode's first use of SQL are indistinguishable from a
// fresh one: connection counters, SQLite's random(), statement cache,
// temporary objects, PRAGMAs a tool might try, the write budget, the clock
// and the seed all start as on a new connection.

// connProbe is an episode on the edge env (it runs the SQL it is given):
// what a tool could read of the connection's history, then writes, a
// refused write over the budget, and the diff and state hash.
var connProbe = []struct{ tool, sql string }{
	{"query", `SELECT last_insert_rowid() AS l, changes() AS c, total_changes() AS t`},
	{"query", `SELECT random() AS r, hex(randomblob(8)) AS b`},
	{"query", `SELECT type, name FROM temp.sqlite_schema`},
	{"query", `SELECT * FROM pragma_foreign_keys`},
	{"query", `SELECT 'a' LIKE 'A' AS cs`},
	{"query", `SELECT k FROM nc`},
	{"exec", `INSERT INTO nc VALUES ('p1', 'v1'), ('p2', 'v2')`},
	{"query", `SELECT last_insert_rowid() AS l, changes() AS c, total_changes() AS t`},
	{"exec", `UPDATE big SET n = n + 1`},
	{"exec", `INSERT INTO ck VALUES ('x', 'y', 1)`},
	{"query", `SELECT last_insert_rowid() AS l, changes() AS c, total_changes() AS t, random() AS r`},
	{"exec", fillSQL(500, 1000)},                                    // 0.5 MB: under the 1 MiB budget
	{"exec", strings.Replace(fillSQL(1100, 1000), "'k'", "'q'", 1)}, // past it: refused
	{"query", `SELECT count(*) AS n, sum(length(v)) AS s FROM nc`},
}

// connDirt is what an earlier episode does to its connection: writes that
// move every counter, a call over the write budget, SQL the sandbox
// refuses (temporary objects, PRAGMAs that change behaviour), and many
// statements in the cache. It ends without a reset.
var connDirt = []struct{ tool, sql string }{
	{"exec", `INSERT INTO nc VALUES ('d1', 'x'), ('d2', 'y'), ('d3', 'z')`},
	{"exec", `UPDATE big SET n = 7`},
	{"query", `SELECT random() AS r, hex(randomblob(8)) AS b`},
	{"exec", `CREATE TEMP TABLE t (x)`},
	{"exec", `CREATE TEMP VIEW v AS SELECT 1`},
	{"exec", `CREATE TEMP TRIGGER tr AFTER INSERT ON nc BEGIN DELETE FROM nc; END`},
	{"exec", `PRAGMA foreign_keys = OFF`},
	{"exec", `PRAGMA case_sensitive_like = ON`},
	{"exec", `PRAGMA reverse_unordered_selects = ON`},
	{"exec", `PRAGMA cache_size = 1`},
	{"query", `SELECT * FROM pragma_reverse_unordered_selects(1)`},
	{"exec", fillSQL(1100, 1000)}, // over the budget: refused
	{"exec", fillSQL(600, 1000)},  // under it: kept (with the probe's 0.5 MB, over)
	{"query", `SELECT k FROM nc`},
	{"exec", `INSERT INTO nc VALUES ('p1', 'v1'), ('p2', 'v2')`}, // as the probe does: cached
}

// firstDifference names the first line where got differs from want.
func firstDifference(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n%.500s\nwant\n%.500s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

func runConnSteps(t *testing.T, ep *Episode, steps []struct{ tool, sql string }) string {
	t.Helper()
	var b strings.Builder
	for _, s := range steps {
		var r Result
		if s.tool == "exec" {
			r = execSQL(t, ep, s.sql)
		} else {
			r = query(t, ep, s.sql)
		}
		fmt.Fprintf(&b, "%s %q -> %v %s %s\n", s.tool, s.sql, r.IsError, r.Outcome, r.Content)
	}
	return b.String()
}

// probeEpisode runs the probe on an episode, starting with its state hash
// before any call (the lazy connection is opened by the hash then).
func probeEpisode(t *testing.T, ep *Episode) string {
	t.Helper()
	h0, err := ep.StateHash()
	if err != nil {
		t.Fatal(err)
	}
	out := "hash before " + h0 + "\n" + runConnSteps(t, ep, connProbe)
	d, h, err := ep.DiffAndHash()
	if err != nil {
		t.Fatal(err)
	}
	return out + fmt.Sprintf("diff %d rows\nhash %s\n", len(d["nc"])+len(d["big"])+len(d["ck"]), h)
}

func TestReusedConnectionIsFresh(t *testing.T) { eachEngine(t, testReusedConnectionIsFresh) }

func testReusedConnectionIsFresh(t *testing.T, engine string) {
	b := *testBundle(t, "edge", false)
	e, err := LoadBundle(context.Background(), &b, Options{Engine: engine, MaxWriteMB: 1, ConnPool: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()

	// A fresh connection: the first episode of the Env opens it.
	ep := newEpisode(t, e, "", 3)
	if ep.sqlConn != nil {
		t.Fatal("a new episode holds a connection before its first call")
	}
	want := probeEpisode(t, ep)
	conn := ep.sqlConn
	ep.Close()
	if !strings.Contains(want, " quota ") {
		t.Fatalf("the probe's over-budget write was not refused:\n%s", want)
	}

	// The same connection after an episode that dirtied it.
	dirty := newEpisode(t, e, "", 4)
	dirt := runConnSteps(t, dirty, connDirt)
	if dirty.sqlConn != conn {
		t.Fatal("the second episode did not reuse the pooled connection")
	}
	for _, s := range []string{"CREATE TEMP", "PRAGMA"} {
		if strings.Contains(dirt, s) && !strings.Contains(dirt, "not allowed") && !strings.Contains(dirt, "not authorized") {
			t.Fatalf("the sandbox let %s through:\n%s", s, dirt)
		}
	}
	dirty.Close()
	again := newEpisode(t, e, "", 3)
	if got := probeEpisode(t, again); got != want {
		t.Errorf("on a reused connection, %s", firstDifference(got, want))
	}
	if again.sqlConn != conn {
		t.Fatal("the third episode did not reuse the pooled connection")
	}
	again.Close()

	// With no pool every episode opens its own: the same again.
	e2, err := LoadBundle(context.Background(), &b, Options{Engine: engine, MaxWriteMB: 1, ConnPool: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	runConnSteps(t, newEpisode(t, e2, "", 4), connDirt)
	if got := probeEpisode(t, newEpisode(t, e2, "", 3)); got != want {
		t.Errorf("without a pool, %s", firstDifference(got, want))
	}
	if n := e2.idleConns.Load(); n != 0 {
		t.Errorf("ConnPool -1 kept %d connections", n)
	}
}

// A pooled connection serves only episodes of its own initial state, and
// the seed and the clock are the episode's, whatever connection it gets.
func TestPooledConnectionKeepsItsInitialState(t *testing.T) {
	eachEngine(t, testPooledConnectionKeepsItsInitialState)
}

func testPooledConnectionKeepsItsInitialState(t *testing.T, engine string) {
	e := loadEnvWith(t, "mini", engine)
	run := func(task string, seed int64) string {
		ep := newEpisode(t, e, task, seed)
		defer ep.Close()
		var b strings.Builder
		for _, c := range [][2]string{{"roll", `{}`}, {"get", `{"key":"a"}`}, {"put", `{"key":"a","value":"x"}`}, {"roll", `{}`}} {
			fmt.Fprintln(&b, call(t, ep, c[0], c[1]).Content)
		}
		d, _ := ep.Diff()
		h, _ := ep.StateHash()
		fmt.Fprintf(&b, "%v %s\n", d, h)
		return b.String()
	}
	base, task := run("", 5), run("delete-a", 5)
	if !strings.Contains(base, `"v":"apple"`) || !strings.Contains(task, `"v":"avocado"`) {
		t.Fatalf("initial states mixed up:\nno task:\n%s\ndelete-a:\n%s", base, task)
	}
	for range 3 { // alternate: each takes its own state's pooled connection
		if got := run("", 5); got != base {
			t.Errorf("no task, again:\n%s\nfirst:\n%s", got, base)
		}
		if got := run("delete-a", 5); got != task {
			t.Errorf("delete-a, again:\n%s\nfirst:\n%s", got, task)
		}
	}
	if got := run("", 6); got == base {
		t.Errorf("another seed gave the same episode:\n%s", got)
	}
	if n := e.idleConns.Load(); n != 2 {
		t.Errorf("%d idle connections kept, want 2 (one per initial state)", n)
	}
}

// Close with connections in the pool frees them; an episode closed after
// its Env does not put one back.
func TestEnvCloseFreesPooledConnections(t *testing.T) {
	e, err := LoadBundle(context.Background(), testBundle(t, "mini", false), Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := e.NewEpisode("", 1)
	b, _ := e.NewEpisode("", 1)
	call(t, a, "get", `{"key":"a"}`)
	call(t, b, "get", `{"key":"a"}`)
	a.Close()
	if n := e.idleConns.Load(); n != 1 {
		t.Fatalf("%d idle connections, want 1", n)
	}
	e.Close()
	if n := e.idleConns.Load(); n != 0 {
		t.Fatalf("%d idle connections after Close, want 0", n)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if n := e.idleConns.Load(); n != 0 {
		t.Fatalf("an episode closed after its Env pooled its connection")
	}
}

// An episode that changed more pages than the page cache holds grew its
// connection's SQLite heap for good: the connection is closed, not kept.
func TestSpilledConnectionIsNotKept(t *testing.T) {
	e, err := LoadBundle(context.Background(), testBundle(t, "edge", false), Options{ConnPool: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	small, big := newEpisode(t, e, "", 1), newEpisode(t, e, "", 1)
	if r := execSQL(t, small, fillSQL(100, 1000)); r.IsError {
		t.Fatal(r.Content)
	}
	if r := execSQL(t, big, fillSQL(4000, 1000)); r.IsError {
		t.Fatal(r.Content)
	}
	small.Close()
	big.Close()
	if n := e.idleConns.Load(); n != 1 {
		t.Fatalf("%d idle connections, want 1 (the small episode's)", n)
	}
}

// A tool's statement is prepared once per connection, whatever arguments
// are bound to it: plans do not look at bound values (QPSG), so new
// arguments (a bound LIMIT here) do not expire it.
func TestStatementsAreNotReprepared(t *testing.T) {
	e := loadBenchEnv(t)
	ep := newEpisode(t, e, "", 1)
	for i := range 20 {
		call(t, ep, "list_orders", fmt.Sprintf(`{"user_id":%d,"limit":%d}`, i%7+1, i%10+1))
	}
	n := 0
	for sql, s := range ep.stmts {
		if got := s.stmt.Status(sqlite3.STMTSTATUS_REPREPARE, false); got != 0 {
			t.Errorf("%s: re-prepared %d times", sql, got)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no cached statement")
	}
}

// Connect opens the connection before the first call; the episode then
// behaves as one whose first call opened it.
func TestConnectBeforeFirstCall(t *testing.T) {
	e := loadEnv(t, "mini")
	lazy, eager := newEpisode(t, e, "", 3), newEpisode(t, e, "", 3)
	if err := eager.Connect(); err != nil || eager.sqlConn == nil {
		t.Fatalf("Connect: %v, connection %p", err, eager.sqlConn)
	}
	for _, c := range [][2]string{{"roll", `{}`}, {"put", `{"key":"z","value":"1"}`}, {"roll", `{}`}} {
		if a, b := call(t, lazy, c[0], c[1]).Content, call(t, eager, c[0], c[1]).Content; a != b {
			t.Errorf("%s: lazy %s, connected first %s", c[0], a, b)
		}
	}
	if hash(t, lazy) != hash(t, eager) {
		t.Error("state hashes differ")
	}
	eager.Close()
	if err := eager.Connect(); err != ErrClosed {
		t.Errorf("Connect after Close: %v", err)
	}
}

// Under load the pool keeps every connection given back; once unused for
// connIdleTTL, those over the floor are closed.
func TestPoolFollowsLoadAndShrinks(t *testing.T) {
	e, err := LoadBundle(context.Background(), testBundle(t, "mini", false), Options{ConnPool: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	eps := make([]*Episode, 10)
	for i := range eps {
		eps[i] = newEpisode(t, e, "", 1)
		if err := eps[i].Connect(); err != nil {
			t.Fatal(err)
		}
	}
	for _, ep := range eps {
		ep.Close()
	}
	if n := e.idleConns.Load(); n != 10 {
		t.Fatalf("%d idle connections after closing 10, want 10", n)
	}
	for i := 0; i < 50 && e.idleConns.Load() > 1; i++ {
		time.Sleep(100 * time.Millisecond)
	}
	if n := e.idleConns.Load(); n != 1 {
		t.Fatalf("%d idle connections %s after the load, want the floor of 1", n, 5*time.Second)
	}
	// The one kept is still good.
	ep := newEpisode(t, e, "", 1)
	if r := call(t, ep, "get", `{"key":"a"}`); r.IsError {
		t.Fatal(r.Content)
	}
	ep.Close()
	e.CloseIdleConns()
	if n := e.idleConns.Load(); n != 0 {
		t.Fatalf("%d idle connections after CloseIdleConns", n)
	}
}
