package runtime

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
)

// TestSQLNowIsEpisodeClock: SQL's 'now' in tool code is the episode clock,
// so two episodes making the same calls see the same times, and it is
// the time sdk.Now gives the same call.
func TestSQLNowIsEpisodeClock(t *testing.T) {
	e := loadEnv(t, "edge")
	q := `{"sql":"SELECT strftime('%Y-%m-%d %H:%M:%f','now') AS a, unixepoch('subsec') AS b, julianday() AS c, date() AS d, datetime('NOW', '+1 day', 'localtime') AS f"}`
	var outs []string
	for i := 0; i < 2; i++ {
		ep := newEpisode(t, e, "", 1)
		outs = append(outs, call(t, ep, "query", q).Content)
	}
	if outs[0] != outs[1] {
		t.Fatalf("%s\n%s", outs[0], outs[1])
	}
	// The first call's clock is the epoch plus one second.
	at := time.Unix(0, e.epoch+int64(time.Second)).UTC()
	if want := at.Format("2006-01-02 15:04:05.000"); !strings.Contains(outs[0], want) {
		t.Fatalf("SQL 'now' is not the episode clock %s: %s", want, outs[0])
	}
	if want := at.Add(24 * time.Hour).Format(`"f":"2006-01-02 15:04:05"`); !strings.Contains(outs[0], want) {
		t.Fatalf("datetime('now','+1 day','localtime') is not the episode clock + 1 day (%s): %s", want, outs[0])
	}
}

// TestSQLNowInChecksIsSdkNow: a check's 'now' is the clock the episode has
// after its calls, the time sdk.Now gave the last call (mini's put logs it).
func TestSQLNowInChecksIsSdkNow(t *testing.T) {
	e := loadEnv(t, "mini")
	ep := newEpisode(t, e, "", 1)
	for _, k := range []string{"x", "y"} {
		if r := call(t, ep, "put", `{"key":"`+k+`","value":"v"}`); r.IsError {
			t.Fatal(r.Content)
		}
	}
	for _, sql := range []string{
		`SELECT at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') FROM log ORDER BY id DESC LIMIT 1`,
		`SELECT at = strftime('%Y-%m-%dT%H:%M:%SZ') FROM log ORDER BY id DESC LIMIT 1`,
		`SELECT unixepoch() - unixepoch(at) = 0 FROM log ORDER BY id DESC LIMIT 1`,
	} {
		var ok bool
		err := ep.bundleSQL(context.Background(), func() (err error) { ok, err = ep.evalCheck(sql); return err })
		if err != nil || !ok {
			t.Fatalf("%s: %v, %v", sql, ok, err)
		}
	}
}

// TestSQLNowInTaskSetupIsEpoch: a task setup's 'now' is the environment's
// epoch, not the host's clock.
func TestSQLNowInTaskSetupIsEpoch(t *testing.T) {
	e := loadEnv(t, "edge")
	s, err := e.initFor(&envpkg.Task{ID: "clock", Setup: `INSERT INTO nc VALUES ('t', datetime('now', 'subsec'));`})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := e.openConn(s.name, true)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stmt, _, err := conn.Prepare(`SELECT v FROM nc WHERE k = 't'`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	if !stmt.Step() {
		t.Fatal("no row", stmt.Err())
	}
	if got, want := stmt.ColumnText(0), time.Unix(0, e.epoch).UTC().Format("2006-01-02 15:04:05.000"); got != want {
		t.Fatalf("setup's datetime('now') = %s, want the epoch %s", got, want)
	}
}

// clockedConns opens a connection with SQLite's own date functions and one
// whose 'now' is at.
func clockedConns(t *testing.T, at time.Time) (builtin, clocked *sqlite3.Conn) {
	t.Helper()
	var err error
	if builtin, err = sqlite3.Open(":memory:"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { builtin.Close() })
	if clocked, err = sqlite3.Open(":memory:"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { clocked.Close() })
	if err := sqlClock(clocked, func() int64 { return at.UnixNano() }); err != nil {
		t.Fatal(err)
	}
	return builtin, clocked
}

// evalOne is a one-column query's answer: type, value (floats by their
// bits) or error.
func evalOne(conn *sqlite3.Conn, expr string) string {
	stmt, _, err := conn.Prepare("SELECT " + expr)
	if err != nil {
		return "prepare: " + err.Error()
	}
	defer stmt.Close()
	if !stmt.Step() {
		return fmt.Sprint("error: ", stmt.Err())
	}
	switch stmt.ColumnType(0) {
	case sqlite3.INTEGER:
		return fmt.Sprint("int ", stmt.ColumnInt64(0))
	case sqlite3.FLOAT:
		f := stmt.ColumnFloat(0)
		return fmt.Sprintf("float %x %v", math.Float64bits(f), f)
	case sqlite3.TEXT:
		return fmt.Sprintf("text %q", stmt.ColumnRawText(0))
	case sqlite3.BLOB:
		return fmt.Sprintf("blob %x", stmt.ColumnRawBlob(0))
	}
	return "null"
}

// dateArgs are argument lists with explicit times: dates, times, numbers,
// modifiers, NULLs, blobs and bad input.
var dateArgs = []string{
	``, `NULL`, `'2024-02-29'`, `'2024-02-29 13:45:07.123'`, `'2024-02-29T13:45:07.1239Z'`,
	`'2024-02-29 13:45:07+05:30'`, `'13:45'`, `'0000-01-01'`, `'9999-12-31 23:59:59.999'`,
	`2460000.5`, `2460000`, `0`, `-1`, `1e300`, `1700000000, 'unixepoch'`, `1700000000.5, 'unixepoch', 'subsec'`,
	`1700000000, 'auto'`, `2460000.25, 'julianday'`, `'2024-01-31', '+1 month'`, `'2024-01-31', '+1 month', 'floor'`,
	`'2024-01-31', '+1 month', 'ceiling'`, `'2024-03-15', 'start of month', '-1 day'`, `'2024-03-15', 'weekday 0'`,
	`'2024-03-15 10:00', '+01:30'`, `'2024-03-15', '+0001-02-03 04:05:06.7'`, `'2024-03-15', 'start of year', '+45 days'`,
	`'2024-03-15', NULL`, `'2024-03-15', 'nonsense'`, `'2024-03-15', 'now'`, `'2024-13-45'`, `'yesterday'`,
	`'nowhere'`, `' now'`, `x'323032342d30332d3135'`, `x''`, `''`, `'2024-03-15', 'subsec'`,
	`'2024-03-15 10:00:00.5', 'unixepoch'`, `'2024-03-15', 5`, `'2024-03-15', 1.5`,
}

var dateFormats = []string{`'%Y-%m-%d %H:%M:%f %j %w %s %J %W %u %V %G %e %k %l %p %P %R %T %%'`, `NULL`, `'%'`, `'%Q'`, `''`, `5`}

// TestSQLDateFunctionsMatchBuiltins: with explicit times the replaced date
// functions answer exactly what SQLite's own do (type, bits, errors).
func TestSQLDateFunctionsMatchBuiltins(t *testing.T) {
	builtin, clocked := clockedConns(t, time.Date(2031, 7, 4, 5, 6, 7, 890e6, time.UTC))
	var exprs []string
	for _, f := range []string{"date", "time", "datetime", "julianday", "unixepoch"} {
		for _, a := range dateArgs {
			if a != "" { // no time value means 'now'
				exprs = append(exprs, f+"("+a+")")
			}
		}
	}
	for _, fmt := range dateFormats {
		for _, a := range dateArgs {
			if a != "" {
				exprs = append(exprs, "strftime("+fmt+", "+a+")")
			}
		}
	}
	exprs = append(exprs, "strftime()", "timediff()", "timediff('2024-01-01')", "date(1,2,3,4,5,6,7,8,9,10)")
	for _, a := range []string{`'2024-03-15', '2023-01-31 10:00:00.5'`, `'2023-01-31', '2024-03-15'`, `NULL, '2024-01-01'`, `2460000.5, 2450000`, `'bad', '2024-01-01'`, `x'00', 1`} {
		exprs = append(exprs, "timediff("+a+")")
	}
	for _, x := range exprs {
		if got, want := evalOne(clocked, x), evalOne(builtin, x); got != want {
			t.Errorf("%s = %s, SQLite's own: %s", x, got, want)
		}
	}
	// More arities than a side connection keeps prepared.
	for n := 1; n <= 2*maxSideStmts; n++ {
		x := "datetime('2024-02-29'" + strings.Repeat(", '+1 day'", n-1) + ")"
		if got, want := evalOne(clocked, x), evalOne(builtin, x); got != want {
			t.Fatalf("%s = %s, SQLite's own: %s", x, got, want)
		}
	}
	if t.Failed() {
		return
	}
	t.Logf("%d expressions answer as SQLite's own", len(exprs))
}

// TestSQLNowAndLocaltime: 'now' (any case, as text or blob) and a missing
// time value are the clock; 'localtime' and 'utc' are UTC.
func TestSQLNowAndLocaltime(t *testing.T) {
	at := time.Date(2031, 7, 4, 5, 6, 7, 890123456, time.UTC)
	const ts = `'2031-07-04 05:06:07.890'`
	builtin, clocked := clockedConns(t, at)
	for _, c := range [][2]string{
		{`date()`, `date(` + ts + `)`},
		{`time()`, `time(` + ts + `)`},
		{`datetime()`, `datetime(` + ts + `)`},
		{`julianday()`, `julianday(` + ts + `)`},
		{`unixepoch()`, `unixepoch(` + ts + `)`},
		{`unixepoch('subsec')`, `unixepoch(` + ts + `, 'subsec')`},
		{`strftime('%Y-%m-%d %H:%M:%f %s')`, `strftime('%Y-%m-%d %H:%M:%f %s', ` + ts + `)`},
		{`strftime('%J', 'NoW', '+1 hour')`, `strftime('%J', ` + ts + `, '+1 hour')`},
		{`datetime(x'6e6f77', 'start of month')`, `datetime(` + ts + `, 'start of month')`},
		{`datetime('now', 'localtime')`, `datetime(` + ts + `)`},
		{`datetime('now', 'LocalTime', 'utc', '+1 day')`, `datetime(` + ts + `, '+1 day')`},
		{`datetime('2024-03-15 23:30', 'utc')`, `datetime('2024-03-15 23:30')`},
		{`datetime(1700000000, 'unixepoch', 'localtime')`, `datetime(1700000000, 'unixepoch')`},
		{`timediff('now', '2031-07-01')`, `timediff(` + ts + `, '2031-07-01')`},
		{`timediff('2031-07-01', 'NOW')`, `timediff('2031-07-01', ` + ts + `)`},
		{`datetime('SubSecond')`, `datetime(` + ts + `, 'subsec')`},
		{`unixepoch('subsec', 'auto')`, `unixepoch(` + ts + `, 'subsec')`},
		{`unixepoch('subsec', 'unixepoch')`, `unixepoch('subsec', 'unixepoch')`}, // NULL either way
		{`strftime('%s', 'subsec', '+1 second')`, `strftime('%s', ` + ts + `, '+1 second', 'subsec')`},
		{`timediff('subsec', '2031-07-01')`, `timediff(` + ts + `, '2031-07-01')`},
		{`date('2024-03-15', 'now')`, `date('2024-03-15', 'now')`}, // not a modifier: NULL
		{`date(' now')`, `date(' now')`},
	} {
		if got, want := evalOne(clocked, c[0]), evalOne(builtin, c[1]); got != want {
			t.Errorf("%s = %s, want %s (%s)", c[0], got, want, c[1])
		}
	}
}

// TestSQLNowInSchemaObjects: defaults, views and triggers see the clock;
// index expressions over date functions still work.
func TestSQLNowInSchemaObjects(t *testing.T) {
	at := time.Date(2031, 7, 4, 5, 6, 7, 0, time.UTC)
	_, clocked := clockedConns(t, at)
	if err := clocked.Exec(`
		CREATE TABLE t (k INTEGER PRIMARY KEY, d TEXT, at TEXT DEFAULT (datetime('now')), g TEXT AS (date(d, '+1 day')));
		CREATE INDEX t_day ON t (date(d));
		CREATE TABLE seen (at TEXT);
		CREATE TRIGGER t_seen AFTER INSERT ON t BEGIN INSERT INTO seen VALUES (time('now')); END;
		CREATE VIEW v AS SELECT date('now') AS today;
		INSERT INTO t (d) VALUES ('2024-02-28 10:00');`); err != nil {
		t.Fatal(err)
	}
	for expr, want := range map[string]string{
		`(SELECT at || ' ' || g FROM t)`:                        `text "2031-07-04 05:06:07 2024-02-29"`,
		`(SELECT at FROM seen)`:                                 `text "05:06:07"`,
		`(SELECT today FROM v)`:                                 `text "2031-07-04"`,
		`(SELECT count(*) FROM t WHERE date(d) = '2024-02-28')`: `int 1`,
	} {
		if got := evalOne(clocked, expr); got != want {
			t.Errorf("%s = %s, want %s", expr, got, want)
		}
	}
}

// BenchmarkSQLDateFunction: what replacing the date functions costs a
// query, per date computed: SQLite's own against the replacement (which
// evaluates SQLite's own on a side connection).
func BenchmarkSQLDateFunction(b *testing.B) {
	for _, c := range []struct{ name, sql string }{
		{"now", `SELECT date('now')`},
		{"1000rows", `SELECT count(date(d, '+1 day')) FROM t`},
	} {
		for _, clocked := range []bool{false, true} {
			name := c.name + "/builtin"
			if clocked {
				name = c.name + "/episode-clock"
			}
			b.Run(name, func(b *testing.B) {
				conn, err := sqlite3.Open(":memory:")
				if err != nil {
					b.Fatal(err)
				}
				defer conn.Close()
				if clocked {
					if err := sqlClock(conn, func() int64 { return 0 }); err != nil {
						b.Fatal(err)
					}
				}
				if err := conn.Exec(`CREATE TABLE t (d TEXT);
					WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999)
					INSERT INTO t SELECT '2024-01-01 10:00:00' FROM n`); err != nil {
					b.Fatal(err)
				}
				stmt, _, err := conn.Prepare(c.sql)
				if err != nil {
					b.Fatal(err)
				}
				defer stmt.Close()
				for b.Loop() {
					if !stmt.Step() {
						b.Fatal(stmt.Err())
					}
					stmt.Reset()
				}
			})
		}
	}
}

// A date function whose result does not fit the episode's SQLite heap fails
// the call as a built-in would (out of memory), again and again, and
// leaves the episode usable: the panic go-sqlite3 raises while setting the
// result must not unwind through SQLite (it broke the connection, and after
// ~90 of them crashed the process on Close). Control: upper() of the same.
func TestDateFunctionOutOfMemoryLeavesEpisodeUsable(t *testing.T) {
	e, err := LoadBundle(context.Background(), testBundle(t, "edge", false), Options{SQLMemoryMB: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	n := 150
	if testing.Short() {
		n = 30
	}
	for _, fn := range []string{"upper", "strftime"} {
		ep := newEpisode(t, e, "", 1)
		q := mustJSON(t, map[string]string{"sql": "SELECT length(" + fn + "(printf('%.*c', 7340032, 'x'))) AS n"})
		for i := range n {
			r := call(t, ep, "query", q)
			if !r.IsError && r.Content != `[{"n":7340032}]` || r.IsError && r.Outcome != OutcomeOutOfMemory {
				t.Fatalf("%s call %d: %+v", fn, i, r)
			}
			if i == 0 && testing.Verbose() {
				t.Logf("%s: %s %.80s", fn, r.Outcome, r.Content)
			}
		}
		if err := ep.Reset(); err != nil {
			t.Fatalf("%s: reset: %v", fn, err)
		}
		if r := call(t, ep, "query", `{"sql":"SELECT 1 AS one"}`); r.Content != `[{"one":1}]` {
			t.Fatalf("%s: after reset: %+v", fn, r)
		}
		if err := ep.Close(); err != nil {
			t.Fatalf("%s: close: %v", fn, err)
		}
	}
}

// A date function's argument too large for the side connection is an
// error of that statement, not the episode's out of memory.
func TestDateFunctionTooLargeForSideConnection(t *testing.T) {
	e := loadEnv(t, "edge")
	ep := newEpisode(t, e, "", 1)
	r := call(t, ep, "query", `{"sql":"SELECT strftime(printf('%.*c', 70000000, 'x')) AS s"}`)
	if !r.IsError || !strings.Contains(r.Content, "too large") {
		t.Fatalf("want a 'too large' error, got %.200s", r.Content)
	}
	if r := call(t, ep, "query", `{"sql":"SELECT date('2024-01-02', '+1 day') AS d"}`); r.Content != `[{"d":"2024-01-03"}]` {
		t.Fatalf("after: %+v", r)
	}
}
