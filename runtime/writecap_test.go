package runtime

import (
	"context"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"
)

// writeCapSchema has a trigger that writes without bound, as a source
// trigger kept by synth from-db did (issue 37 finding 9: one
// update_customer wrote 200,000 rows), and one that writes big rows.
const writeCapSchema = `
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT, note TEXT);
CREATE TABLE log (n INTEGER PRIMARY KEY, what TEXT);
CREATE TRIGGER fan_out AFTER UPDATE OF name ON customers BEGIN
  INSERT INTO log (what) WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 200000) SELECT 'row ' || i FROM k;
END;
CREATE TRIGGER big_rows AFTER UPDATE OF note ON customers BEGIN
  INSERT INTO log (what) WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < 100) SELECT printf('%.*c', 1000000, 'x') FROM k;
END;
INSERT INTO customers VALUES (1, 'Ana', ''), (2, 'Bo', '');
`

func writeCapEnv(t *testing.T, opts Options) *Env {
	t.Helper()
	conn, err := sqlite3.Open("file:/write-cap?vfs=memdb")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(writeCapSchema); err != nil {
		t.Fatal(err)
	}
	db, err := serdes.Serialize(conn, "main")
	if err != nil {
		t.Fatal(err)
	}
	b := *testBundle(t, "edge", false)
	b.DB = db
	e, err := LoadBundle(context.Background(), &b, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// One call may write at most so many rows and bytes, its triggers' writes
// included: past either the call ends with OutcomeQuota, mid-statement,
// and nothing it wrote is kept.
func TestCallWriteCap(t *testing.T) {
	for _, c := range []struct {
		name string
		opts Options
		sql  string
		want string
	}{
		{"rows, default cap", Options{}, `UPDATE customers SET name = 'Ann' WHERE id = 1`, "rows"},
		{"rows", Options{MaxCallWriteRows: 1000}, `UPDATE customers SET name = 'Ann' WHERE id = 1`, "more than 1000 rows"},
		{"bytes", Options{MaxCallWriteBytes: 10 << 20}, `UPDATE customers SET note = 'n' WHERE id = 1`, "more than 10 MiB"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := writeCapEnv(t, c.opts)
			ep := newEpisode(t, e, "", 1)
			r := call(t, ep, "exec", `{"sql": "`+c.sql+`"}`)
			if r.Outcome != OutcomeQuota || !strings.Contains(r.Content, c.want) || !strings.Contains(r.Content, "triggers included") {
				t.Fatalf("%+v", r)
			}
			// Nothing was kept, and the episode goes on.
			if got := call(t, ep, "query", `{"sql": "SELECT (SELECT count(*) FROM log), (SELECT name FROM customers WHERE id = 1)"}`); !strings.Contains(got.Content, `log)":0,`) || !strings.Contains(got.Content, `"Ana"`) {
				t.Errorf("after the refused call: %+v", got)
			}
			if got := call(t, ep, "exec", `{"sql": "UPDATE customers SET name = 'Cy' WHERE id = 2 AND 0"}`); got.Outcome != OutcomeOK {
				t.Errorf("the next call: %+v", got)
			}
		})
	}
	// Under the caps, the same writes pass.
	e := writeCapEnv(t, Options{MaxCallWriteRows: 300_000})
	ep := newEpisode(t, e, "", 1)
	if r := call(t, ep, "exec", `{"sql": "UPDATE customers SET name = 'Ann' WHERE id = 1"}`); r.Outcome != OutcomeOK {
		t.Fatalf("under the cap: %+v", r)
	}
}
