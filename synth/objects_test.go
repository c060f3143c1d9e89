package synth_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/runtime"
)

// TestViewsTriggersRules: on the issue-28 library, the view becomes a
// read-only tool, the audit trigger is kept (creating a loan writes its
// audit row) and its table is not offered for writing by hand, a CHECK
// surfaces as a tool error, lookups fold Unicode case, and surnames are
// not an enumeration.
func TestViewsTriggersRules(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "library.sqlite", librarySQL)
	res, _ := synthShape(t, db, 20)
	if res.Bundle.Manifest.Name != "library" {
		t.Errorf("environment named %q, want library", res.Bundle.Manifest.Name)
	}
	if tl := res.Spec.Tool("list_open_loans"); tl == nil || tl.Kind != "view" {
		t.Errorf("view tool: %+v", tl)
	}
	for _, name := range []string{"create_audit_log", "update_audit_log", "delete_audit_log"} {
		if res.Spec.Tool(name) != nil {
			t.Errorf("%s offered: the trigger writes that table", name)
		}
	}
	if e := res.Model.Table("members").Column("last_name").Enum; e != nil {
		t.Errorf("last_name became an enumeration: %q", e)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	for _, c := range []struct {
		tool, args string
		outcome    runtime.Outcome
		want       string
	}{
		{"list_open_loans", `{"limit": 2}`, runtime.OutcomeOK, `"total":`},
		{"find_member_by_email", `{"email": "LUCÍA.BROWN7@EXAMPLE.ORG"}`, runtime.OutcomeOK, `"id":7`},
		{"list_members", `{"last_name_contains": "GARCÍA", "limit": 1}`, runtime.OutcomeOK, `"last_name":"García"`},
		{"list_members", `{"first_name_contains": "lucía", "limit": 1}`, runtime.OutcomeOK, `"first_name":"Lucía"`},
		{"create_loan", `{"copy_id": 1, "member_id": 2, "checked_out_by": 3, "loaned_on": "2024-06-01", "due_on": "2024-05-01"}`, runtime.OutcomeToolError, "breaks the rule"},
		{"create_loan", `{"copy_id": 1, "member_id": 2, "checked_out_by": 3, "loaned_on": "2024-06-01", "due_on": "2024-06-21"}`, runtime.OutcomeOK, `"due_on":"2024-06-21"`},
		{"create_member", `{"email": "new@example.org", "first_name": "Ann", "last_name": "Zielińska", "joined_on": "2024-06-01"}`, runtime.OutcomeOK, `"status":"active"`},
	} {
		r, err := ep.Call(context.Background(), c.tool, json.RawMessage(c.args))
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != c.outcome || !strings.Contains(r.Content, c.want) {
			t.Errorf("%s %s: %s %.300s", c.tool, c.args, r.Outcome, r.Content)
		}
	}
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(d)
	if !strings.Contains(string(raw), "audit_log") || !strings.Contains(string(raw), "2024-06-01") {
		t.Errorf("creating a loan wrote no audit row: %.600s", raw)
	}
}

// TestBlobsAreSizes: a BLOB column is no tool argument, and tools return
// its size, not its bytes.
func TestBlobsAreSizes(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "pics.sqlite", `
CREATE TABLE categories (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, picture BLOB);
INSERT INTO categories VALUES (1, 'Beverages', randomblob(5000)), (2, 'Condiments', NULL), (3, 'Seafood', x'00ff');
`)
	res, _ := synthShape(t, db, 3)
	if p := res.Spec.Tool("create_category").Param("picture"); p != nil {
		t.Errorf("picture is a create argument: %+v", p)
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	for tool, args := range map[string]string{"get_category": `{"id": 1}`, "find_category_by_name": `{"name": "beverages"}`, "list_categories": `{}`} {
		r, err := ep.Call(context.Background(), tool, json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != runtime.OutcomeOK || !strings.Contains(r.Content, `"picture_bytes":5000`) || len(r.Content) > 1000 {
			t.Errorf("%s: %s %.300s", tool, r.Outcome, r.Content)
		}
	}
}

// TestTriggerOnSkippedTable: a trigger that writes a table that was left
// out (here: no key and already a column named row_id) is left out too and
// named; the table it fires on keeps working.
func TestTriggerOnSkippedTable(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "notes.sqlite", `
CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, body TEXT);
CREATE TABLE note_log (row_id INTEGER, msg TEXT);
CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN INSERT INTO note_log (row_id, msg) VALUES (new.id, new.title); END;
INSERT INTO notes VALUES (1, 'first', 'hello'), (2, 'second', 'world'), (3, 'third', 'again');
`)
	res, _ := synthShape(t, db, 3)
	skipped := strings.Join(res.Summary.Skipped, "\n")
	for _, want := range []string{"table note_log: has no primary key and already a column named row_id", "trigger notes_ai: writes table note_log"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped %q lacks %q", skipped, want)
		}
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	ep, err := env.NewEpisode("", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	r, err := ep.Call(context.Background(), "create_note", json.RawMessage(`{"title": "fourth", "body": "x"}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != runtime.OutcomeOK {
		t.Errorf("create_note: %s %s", r.Outcome, r.Content)
	}
}

// TestTriggerThatCannotRun: a trigger whose body calls a function SQLite
// does not have (another engine's) is left out and named, instead of
// failing every insert into its table.
func TestTriggerThatCannotRun(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "notes.sqlite", `
CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, body TEXT);
INSERT INTO notes VALUES (1, 'first', 'hello'), (2, 'second', 'world'), (3, 'third', 'again');
CREATE TRIGGER notes_stamp AFTER INSERT ON notes BEGIN UPDATE notes SET body = LCASE(new.body) WHERE id = new.id; END;
`)
	res, _ := synthShape(t, db, 3)
	if s := strings.Join(res.Summary.Skipped, "\n"); !strings.Contains(s, "trigger notes_stamp: sqlite3: SQL logic error: no such function: LCASE") {
		t.Errorf("skipped: %q", s)
	}
}

// TestBrokenToolLeftOut: a tool that fails its smoke test is left out and
// named, and the rest of the environment is built (the run failed). Here
// a view's rows hold an infinite REAL the seed cannot clamp (it is
// computed), so listing the view cannot be answered in JSON.
func TestBrokenToolLeftOut(t *testing.T) {
	db := sqlDB(t, t.TempDir(), "inf.sqlite", `
CREATE TABLE readings (id INTEGER PRIMARY KEY, label TEXT NOT NULL UNIQUE, value REAL);
INSERT INTO readings VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', 3.5);
CREATE VIEW overflow AS SELECT label, value * 1e308 * 10 AS big FROM readings;
`)
	res, _ := synthShape(t, db, 3)
	if res.Spec.Tool("list_overflow") != nil || res.Spec.Tool("get_reading") == nil {
		t.Errorf("tools: list_overflow %v, get_reading %v", res.Spec.Tool("list_overflow") != nil, res.Spec.Tool("get_reading") != nil)
	}
	if s := strings.Join(res.Summary.Skipped, "\n"); !strings.Contains(s, "tool list_overflow: its smoke test failed") {
		t.Errorf("skipped: %q", s)
	}
	if len(res.Bundle.Manifest.Tools) != len(res.Spec.Tools) {
		t.Errorf("bundle %d tools, spec %d", len(res.Bundle.Manifest.Tools), len(res.Spec.Tools))
	}
}
