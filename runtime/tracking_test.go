package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/serdes"

	"github.com/wasmenv/wasmenv/envpkg"
)

// Issue 20: the diff and the state hash read only the rows an episode
// wrote, and answer exactly what a scan of every written table answers.
// These tests run both on the same episodes (Episode.fullScan) and require
// the same Diff, the same hash from DiffAndHash and the same streamed
// StateHash.

// hostileSchema has a table for each case the tracking must get right:
// rowid changes, REPLACE deleting another row through a UNIQUE index,
// triggers writing other tables, a WITHOUT ROWID table, keys that SQLite
// lets be NULL, BLOBs or numbers rendered like text, NOCASE keys, a
// composite key, a table without a key, a column named rowid, foreign-key
// actions.
const hostileSchema = `
CREATE TABLE ipk (id INTEGER PRIMARY KEY, email TEXT UNIQUE, v TEXT, j AS (json_quote(v)));
CREATE TABLE tk (k TEXT PRIMARY KEY, v, j AS (json_quote(v)));
CREATE TABLE nk (k TEXT PRIMARY KEY COLLATE NOCASE, v, j AS (json_quote(v)));
CREATE TABLE anyk (k PRIMARY KEY, v, j AS (json_quote(v)));
CREATE TABLE ck (a TEXT, b INTEGER, v, j AS (json_quote(v)), PRIMARY KEY (a, b));
CREATE TABLE wr (a TEXT, b TEXT, v, PRIMARY KEY (a, b)) WITHOUT ROWID;
CREATE TABLE nopk (x, y);
CREATE TABLE parent (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id) ON DELETE CASCADE, v);
CREATE TABLE log (n INTEGER PRIMARY KEY, what TEXT, j AS (json_quote(what)));
CREATE TABLE shadow (rowid TEXT PRIMARY KEY, v);
CREATE TABLE allshadow (rowid, _rowid_, oid, k TEXT PRIMARY KEY);
CREATE TABLE desck (id INTEGER PRIMARY KEY DESC, v);
CREATE TABLE tracked_rows (k TEXT PRIMARY KEY, wasmenv_tracked_table);
CREATE TABLE num (k TEXT PRIMARY KEY, v);
CREATE TRIGGER tk_log AFTER UPDATE ON tk BEGIN
  INSERT INTO log (what) VALUES ('tk ' || NEW.k);
  UPDATE ck SET v = coalesce(v, 0) + 1 WHERE a = NEW.k;
END;
CREATE TRIGGER ipk_del AFTER DELETE ON ipk BEGIN
  DELETE FROM tk WHERE k = OLD.email;
  INSERT OR REPLACE INTO wr VALUES ('del', OLD.email, OLD.id);
END;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO ipk SELECT i, 'e' || i, 'v' || i FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
INSERT INTO tk SELECT 'e' || i, i FROM n;
INSERT INTO tk VALUES ('a1', 'text a1'), ('12', 'text 12');
INSERT INTO nk VALUES ('a', 1), ('B', 2), ('c', 3);
INSERT INTO anyk VALUES (1, 'int'), ('1', 'text'), (X'31', 'blob'), (NULL, 'null'), (2.5, 'real'), ('x', 'text x');
INSERT INTO ck VALUES ('e1', 1, 0), ('e2', 2, 0), ('e3', 3, 0), ('x', NULL, 0);
INSERT INTO wr VALUES ('p', 'q', 1), ('r', 's', 2);
INSERT INTO nopk VALUES (1, 2), (1, 2), (3, 4);
INSERT INTO parent VALUES (1, 'one'), (2, 'two');
INSERT INTO child VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 2, 'c');
INSERT INTO shadow VALUES ('r1', 1), ('r2', 2);
INSERT INTO allshadow VALUES (1, 2, 3, 'a');
INSERT INTO desck VALUES (1, 'one'), (2, 'two'), (3, 'three');
INSERT INTO tracked_rows VALUES ('a', 1);
INSERT INTO num VALUES ('n0', 0), ('n1', 1), ('n2', 2.5), ('n3', '3'), ('n4', NULL), ('n5', '{"a": 1}'), ('n6', 9007199254740993);
`

// hostileStatements are what the random episodes run; %d is a random
// number in [1, 45).
var hostileStatements = []string{
	`INSERT OR REPLACE INTO ipk VALUES (%d, 'e' || (%[1]d %% 7 + 1), 'replaced')`,
	`UPDATE ipk SET id = id + 1000 WHERE id = %d`,
	`DELETE FROM ipk WHERE id = %d`,
	`DELETE FROM ipk`,
	`INSERT INTO ipk (email, v) SELECT email || 'x', v FROM ipk WHERE id < %d`,
	`INSERT INTO ipk VALUES (%d, 'up', 'upsert') ON CONFLICT (id) DO UPDATE SET v = excluded.v`,
	`INSERT INTO ipk (id, email, v) VALUES (500, 'q', 'r'), (%d, 'dup', 'x')`, // fails half way (mostly)
	`UPDATE ipk SET v = 'same' WHERE id = %d`,
	`UPDATE ipk SET v = v WHERE id < %d`, // written, unchanged
	`UPDATE tk SET v = 'w' || %d WHERE k = 'e%[1]d'`,
	`INSERT OR REPLACE INTO tk VALUES ('e%d', 'replaced')`,
	`UPDATE tk SET k = k || 'b' WHERE k = 'e%d'`,
	`DELETE FROM tk WHERE k = 'e%d'`,
	`INSERT INTO tk VALUES (NULL, 'null %d')`,
	`INSERT INTO tk VALUES (X'6131', 'blob a1 %d')`,
	`INSERT OR IGNORE INTO tk VALUES (12, 'integer 12 %d')`,
	`UPDATE tk SET v = ipk.v FROM ipk WHERE ipk.email = tk.k AND ipk.id = %d`,
	`INSERT OR REPLACE INTO nk VALUES ('A', %d)`,
	`UPDATE nk SET k = upper(k) WHERE v = %d %% 4`,
	`DELETE FROM nk WHERE k = 'b' AND %d > 20`,
	`INSERT OR IGNORE INTO anyk VALUES (%d %% 3, 'n')`,
	`INSERT OR IGNORE INTO anyk VALUES (CAST(%d %% 3 AS TEXT), 't')`,
	`INSERT OR IGNORE INTO anyk VALUES (CAST(CAST(%d %% 3 AS TEXT) AS BLOB), 'b')`,
	`INSERT INTO anyk VALUES (NULL, %d)`,
	`UPDATE anyk SET v = %d WHERE k = 1`,
	`DELETE FROM anyk WHERE v = 'text' AND %d > 10`,
	`INSERT OR REPLACE INTO ck VALUES ('e' || (%d %% 5), 1, 'r')`,
	`INSERT INTO ck VALUES (NULL, %d, 'null a')`,
	`INSERT OR IGNORE INTO ck VALUES ('f', %d * 0.5, 'real b')`,
	`DELETE FROM ck WHERE b = %d %% 4`,
	`INSERT OR REPLACE INTO wr VALUES ('p', 'q', %d)`,
	`DELETE FROM wr WHERE v = %d`,
	`INSERT INTO nopk VALUES (1, %d %% 3)`,
	`DELETE FROM nopk WHERE rowid IN (SELECT rowid FROM nopk WHERE y = %d %% 3 LIMIT 1)`,
	`DELETE FROM parent WHERE id = %d %% 3`,
	`UPDATE child SET v = 'c' || %d WHERE id = 2`,
	`INSERT OR REPLACE INTO shadow VALUES ('r' || (%d %% 3), 'x')`,
	`INSERT INTO log (what) VALUES ('direct %d')`,
	`INSERT OR REPLACE INTO allshadow VALUES (%d, 0, 0, 'a')`,
	`INSERT OR REPLACE INTO desck VALUES (%d %% 5, 'r')`,
	`UPDATE desck SET id = id + 10 WHERE id = %d %% 4`,
	`INSERT OR REPLACE INTO tracked_rows VALUES ('a', %d)`, // names the tracked queries use
	// num's records are numbers, text, NULL and BLOBs, compared as SQLite
	// compares them (1 and 1.0 are one value, 2^53+1 and 2^53.0 two)
	`UPDATE num SET v = CAST(v AS REAL) WHERE k = 'n' || (%d %% 7)`,
	`UPDATE num SET v = CAST(v AS INTEGER) WHERE k = 'n' || (%d %% 7)`,
	`UPDATE num SET v = CAST(v AS TEXT) WHERE k = 'n' || (%d %% 7)`,
	`UPDATE num SET v = CAST(v AS BLOB) WHERE k = 'n' || (%d %% 7)`,
	`UPDATE num SET v = NULL WHERE k = 'n' || (%d %% 7)`,
	`INSERT OR REPLACE INTO num VALUES ('n' || (%d %% 9), %[1]d %% 3)`,
	`UPDATE num SET v = 9007199254740992.0 + %d %% 2 WHERE k = 'n6'`,
	`UPDATE num SET v = '{"a":' || (%d %% 2) || '}' WHERE k = 'n5'`,
	`DELETE FROM num WHERE k = 'n' || (%d %% 9)`,
}

// hostileEnv loads edge (its exec tool runs any statement) over the
// hostile schema, with the given export views (nil: default views).
func hostileEnv(t *testing.T, export []envpkg.Collection) *Env {
	t.Helper()
	conn, err := sqlite3.Open("file:/hostile-tracking?vfs=memdb")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(hostileSchema); err != nil {
		t.Fatal(err)
	}
	db, err := serdes.Serialize(conn, "main")
	if err != nil {
		t.Fatal(err)
	}
	b := *testBundle(t, "edge", false)
	b.DB = db
	b.Manifest.Export = export
	e, err := LoadBundle(context.Background(), &b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// sameEnd requires the tracked and the full-scan diff and hashes to agree.
func sameEnd(t *testing.T, ep *Episode, what string) {
	t.Helper()
	ep.fullScan = true
	fd, fh, err := ep.DiffAndHash()
	if err != nil {
		t.Fatalf("%s: full scan: %v", what, err)
	}
	fs, err := ep.StateHash()
	if err != nil {
		t.Fatalf("%s: full scan hash: %v", what, err)
	}
	ep.fullScan = false
	td, th, err := ep.DiffAndHash()
	if err != nil {
		t.Fatalf("%s: tracked: %v", what, err)
	}
	ts, err := ep.StateHash()
	if err != nil {
		t.Fatalf("%s: tracked hash: %v", what, err)
	}
	if !reflect.DeepEqual(fd, td) {
		t.Fatalf("%s: diffs differ\nfull:    %s\ntracked: %s", what, diffJSON(fd), diffJSON(td))
	}
	if fh != th || fs != ts || fh != fs {
		t.Fatalf("%s: hashes differ: full %s/%s, tracked %s/%s", what, fh, fs, th, ts)
	}
}

func diffJSON(d Diff) string {
	b, _ := json.Marshal(d)
	return string(b)
}

func TestTrackedDiffEqualsFullScan(t *testing.T) {
	for _, c := range []struct {
		name   string
		export []envpkg.Collection
	}{
		{"default-views", nil},
		{"custom-views", []envpkg.Collection{
			{Name: "ipk", Query: "SELECT id, j FROM {schema}.ipk", Tables: []string{"ipk"}},
			{Name: "tk", Query: `SELECT "k", "j" FROM {schema}."tk"`, Tables: []string{"tk"}},
			{Name: "nk", Query: "select k , j from {schema}.nk", Tables: []string{"NK"}},
			{Name: "anyk", Query: "SELECT k, j FROM {schema}.anyk", Tables: []string{"anyk"}},
			{Name: "ck", Query: "SELECT a, j FROM {schema}.ck", Tables: []string{"ck"}}, // not its key: scanned whole
			{Name: "family", Query: "SELECT c.id, json_quote(p.name || c.v) FROM {schema}.child AS c JOIN {schema}.parent AS p ON p.id = c.parent",
				Tables: []string{"child", "parent"}},
			{Name: "log", Query: "SELECT n, j FROM {schema}.log", Tables: []string{"log"}},
			{Name: "num", Query: "SELECT k, v FROM {schema}.num", Tables: []string{"num"}},
		}},
	} {
		for _, mode := range []struct {
			few    int
			direct bool
		}{{fewTrackedRows, true}, {fewTrackedRows, false}, {0, false}} {
			t.Run(fmt.Sprintf("%s/few=%d/direct=%v", c.name, mode.few, mode.direct), func(t *testing.T) {
				defer func(n int, d bool) { fewTrackedRows, directTracked = n, d }(fewTrackedRows, directTracked)
				fewTrackedRows, directTracked = mode.few, mode.direct
				e := hostileEnv(t, c.export)
				ep := newEpisode(t, e, "", 1)
				r := rand.New(rand.NewPCG(20, uint64(len(c.name))))
				var ran []string
				for step := range 400 {
					if r.IntN(25) == 0 {
						if err := ep.Reset(); err != nil {
							t.Fatal(err)
						}
						ran = ran[:0]
						sameEnd(t, ep, "after a reset")
						continue
					}
					sql := fmt.Sprintf(hostileStatements[r.IntN(len(hostileStatements))], 1+r.IntN(44))
					res := execSQL(t, ep, sql)
					ran = append(ran, fmt.Sprintf("%s (error %v)", sql, res.IsError))
					sameEnd(t, ep, fmt.Sprintf("step %d after\n%s", step, strings.Join(ran, "\n")))
				}
				if ep.trackedScans == 0 {
					t.Fatal("the tracked path never ran")
				}
				t.Logf("%d views read on the tracked path", ep.trackedScans)
			})
		}
	}
}

// The tracked path runs where it should: after one write to an INTEGER
// PRIMARY KEY table and to a TEXT-keyed one, and not for a WITHOUT ROWID
// table or a key that a written row holds as NULL.
func TestTrackedPathIsTaken(t *testing.T) {
	e := hostileEnv(t, nil)
	for _, c := range []struct {
		sql     string
		tracked bool
	}{
		{`UPDATE ipk SET v = 'x' WHERE id = 3`, true},
		{`UPDATE tk SET v = 'x' WHERE k = 'e3'`, true}, // its trigger writes log (tracked) and ck (tracked)
		{`UPDATE wr SET v = 9 WHERE a = 'p'`, false},
		{`INSERT INTO tk VALUES (NULL, 'null key')`, false},
		{`INSERT INTO anyk VALUES (7, 'seven')`, false}, // init's keys are of every type
		{`UPDATE nopk SET y = 9 WHERE x = 3`, false},
	} {
		ep := newEpisode(t, e, "", 1)
		if r := execSQL(t, ep, c.sql); r.IsError {
			t.Fatalf("%s: %s", c.sql, r.Content)
		}
		sameEnd(t, ep, c.sql)
		if got := ep.trackedScans > 0; got != c.tracked {
			t.Errorf("%s: tracked path %v, want %v", c.sql, got, c.tracked)
		}
	}
}

// Past maxTrackedRows a table is scanned whole, with the same answer.
func TestTrackedRowsOverflow(t *testing.T) {
	defer func(n int) { maxTrackedRows = n }(maxTrackedRows)
	maxTrackedRows = 10
	e := hostileEnv(t, nil)
	ep := newEpisode(t, e, "", 1)
	execSQL(t, ep, `UPDATE ipk SET v = 'many' WHERE id <= 20`)
	sameEnd(t, ep, "20 rows over a limit of 10")
	if ids, ok := ep.track.written("ipk"); ok {
		t.Fatalf("still tracked past the limit: %s", ids)
	}
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	execSQL(t, ep, `UPDATE ipk SET v = 'few' WHERE id <= 2`)
	if ids, ok := ep.track.written("ipk"); !ok || !bytes.Contains(ids, []byte("2")) {
		t.Fatalf("after the reset: %s, %v", ids, ok)
	}
	sameEnd(t, ep, "after the reset")
}
