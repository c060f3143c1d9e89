package synth_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/runtime"
	"github.com/wasmenv/wasmenv/synth"
)

// stampsSQL: tables whose rows carry the application's stamps, as sakila's
// do (last_update NOT NULL without a default) and as others declare them
// (created_at DEFAULT CURRENT_TIMESTAMP, which tool SQL may not use).
const stampsSQL = `
CREATE TABLE tags (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, last_update TIMESTAMP NOT NULL);
CREATE TABLE notes (id INTEGER PRIMARY KEY, tag_id INTEGER NOT NULL REFERENCES tags(id), title TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP, LastModified TEXT);
INSERT INTO tags VALUES (1, 'home', '2006-02-15 04:34:33'), (2, 'work', '2006-02-15 04:34:33'), (3, 'travel', '2006-02-15 04:34:33');
INSERT INTO notes VALUES (1, 1, 'Fix the sink', '2024-01-02 10:00:00', NULL), (2, 2, 'Quarterly report', '2024-01-03 11:00:00', '2024-01-04 09:00:00'),
  (3, 1, 'Paint the fence', '2024-01-05 12:00:00', NULL), (4, 3, 'Book the train', '2024-01-06 08:30:00', NULL);
`

// TestCreateFillsStamps: a create tool does not make the agent supply the
// application's bookkeeping stamps (issue 28, judged round 3: "create
// tools that make the agent supply last_update"): they are optional and,
// left out, filled from the episode clock, the same in every replay of
// the episode; given, they are kept.
func TestCreateFillsStamps(t *testing.T) {
	res := synthStamps(t, stampsSQL)
	for _, tool := range res.Spec.Tools {
		if !strings.HasPrefix(tool.Name, "create_") {
			continue
		}
		for _, p := range tool.Params {
			if (p.Column == "last_update" || p.Column == "created_at" || p.Column == "LastModified") && (p.Required || !p.Stamp) {
				t.Errorf("%s: %s required %v, stamp %v", tool.Name, p.Name, p.Required, p.Stamp)
			}
		}
	}
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	stamp := regexp.MustCompile(`"last_update":"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"`)
	var first string
	for range 2 {
		ep, err := env.NewEpisode("", 7)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ep.Call(context.Background(), "create_tag", json.RawMessage(`{"name": "garden"}`))
		if err != nil || r.Outcome != runtime.OutcomeOK || !stamp.MatchString(r.Content) {
			t.Fatalf("create_tag without a stamp: %v %s %q", err, r.Outcome, r.Content)
		}
		if first == "" {
			first = stamp.FindString(r.Content)
		} else if got := stamp.FindString(r.Content); got != first {
			t.Errorf("the stamp differs between replays of an episode: %s, %s", first, got)
		}
		r, err = ep.Call(context.Background(), "create_note", json.RawMessage(`{"tag_id": 2, "title": "Call the bank"}`))
		if err != nil || r.Outcome != runtime.OutcomeOK || !regexp.MustCompile(`"created_at":"\d{4}-`).MatchString(r.Content) {
			t.Fatalf("create_note without a stamp: %v %s %q", err, r.Outcome, r.Content)
		}
		r, err = ep.Call(context.Background(), "create_tag", json.RawMessage(`{"name": "music", "last_update": "2006-02-15 04:34:33"}`))
		if err != nil || r.Outcome != runtime.OutcomeOK || !strings.Contains(r.Content, `"last_update":"2006-02-15 04:34:33"`) {
			t.Fatalf("create_tag with a stamp: %v %s %q", err, r.Outcome, r.Content)
		}
		ep.Close()
	}
}

// isoStampsSQL: stamps written as ISO 8601 (airline's created_at
// "2024-05-14T19:21:38"), with a zone, and as a date alone.
const isoStampsSQL = `
CREATE TABLE bookings (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL);
CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE TABLE folders (id INTEGER PRIMARY KEY, name TEXT NOT NULL, created_on TEXT NOT NULL);
INSERT INTO bookings VALUES (1, 'AB12CD', '2024-05-14T19:21:38'), (2, 'EF34GH', '2024-05-10T16:08:44'), (3, 'IJ56KL', '2024-05-11T08:00:00');
INSERT INTO events VALUES (1, 'launch', '2024-05-14T19:21:38Z'), (2, 'review', '2024-05-15T10:00:00Z'), (3, 'retro', '2024-05-16T11:30:00Z');
INSERT INTO folders VALUES (1, 'inbox', '2024-05-14'), (2, 'archive', '2024-05-15'), (3, 'drafts', '2024-05-16');
`

// TestStampsFollowTheColumnsForm: a stamp a create tool fills is written
// in the form of the column's other values (judged round 3's note: the
// airline's new reservations had created_at "2024-05-14 19:21:38" beside
// rows of "2024-05-14T19:21:38").
func TestStampsFollowTheColumnsForm(t *testing.T) {
	ep := stampsEpisode(t, synthStamps(t, isoStampsSQL))
	for _, c := range []struct{ tool, args, want string }{
		{"create_booking", `{"code": "MN78OP"}`, `"created_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d"`},
		{"create_event", `{"name": "demo"}`, `"updated_at":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"`},
		{"create_folder", `{"name": "spam"}`, `"created_on":"\d{4}-\d\d-\d\d"`},
	} {
		r, err := ep.Call(context.Background(), c.tool, json.RawMessage(c.args))
		if err != nil || r.Outcome != runtime.OutcomeOK || !regexp.MustCompile(c.want).MatchString(r.Content) {
			t.Errorf("%s: %v %s %q, want %s", c.tool, err, r.Outcome, r.Content, c.want)
		}
	}
}

// TestClockAfterTheLatestStamp: the episode clock starts the hour after
// the data's latest bookkeeping stamp, so a row a create tool stamps is
// newer than every row there (airline's reservations were made in May
// 2024; the default clock, 2024-01-01, stamped new ones months before).
func TestClockAfterTheLatestStamp(t *testing.T) {
	res := synthStamps(t, stampsSQL)
	if got, want := res.Bundle.Manifest.Clock.UTC().Format(time.RFC3339), "2024-01-06T09:00:00Z"; got != want {
		t.Errorf("clock %s, want %s (the hour after notes' latest created_at, 2024-01-06 08:30:00)", got, want)
	}
	ep := stampsEpisode(t, res)
	r, err := ep.Call(context.Background(), "create_note", json.RawMessage(`{"tag_id": 2, "title": "Call the bank"}`))
	if err != nil || r.Outcome != runtime.OutcomeOK || !strings.Contains(r.Content, `"created_at":"2024-01-06 09:`) {
		t.Errorf("create_note: %v %s %q", err, r.Outcome, r.Content)
	}
}

// synthStamps runs synth from-db on a database made by sql (5 tasks: these
// tests look at its tools, clock and episodes).
func synthStamps(t *testing.T, sql string) *synth.Result {
	t.Helper()
	dir := t.TempDir()
	db := sqlDB(t, dir, "stamps.sqlite", sql)
	res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(dir, "env"), Tasks: 5, Seed: 3})
	if err != nil && !strings.Contains(err.Error(), "no task") {
		t.Fatal(err)
	}
	return res
}

// stampsEpisode opens an episode (seed 7) of res's bundle, closed with the test.
func stampsEpisode(t *testing.T, res *synth.Result) *runtime.Episode {
	t.Helper()
	env, err := runtime.LoadBundle(context.Background(), res.Bundle, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { env.Close() })
	ep, err := env.NewEpisode("", 7)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ep.Close() })
	return ep
}

// defaultStampsSQL: time DEFAULTs on columns whose names say nothing of
// it (issue 38: create_rental_log demanded logged_at, which has DEFAULT
// CURRENT_TIMESTAMP), in SQLite's forms.
const defaultStampsSQL = `
CREATE TABLE stations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
  opened TEXT NOT NULL DEFAULT (datetime('now')), inspected TEXT NOT NULL DEFAULT CURRENT_DATE);
CREATE TABLE notes (id INTEGER PRIMARY KEY, station_id INTEGER NOT NULL REFERENCES stations(id), body TEXT NOT NULL,
  logged_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP);
INSERT INTO stations VALUES (1, 'Harbour', '2023-04-01 08:00:00', '2024-02-01'), (2, 'Old Mill', '2023-05-01 09:00:00', '2024-02-03'),
  (3, 'Station Square', '2023-06-01 10:00:00', '2024-02-05');
INSERT INTO notes VALUES (1, 1, 'dock 4 jams', '2024-03-01 10:00:00'), (2, 2, 'light out', '2024-03-02 11:00:00'),
  (3, 3, 'repainted', '2024-03-03 12:00:00');
`

// TestDefaultStampsOfAnyName: a create tool neither requires nor asks for
// a column stamped by its DEFAULT, and fills it in the column's form.
func TestDefaultStampsOfAnyName(t *testing.T) {
	res := synthStamps(t, defaultStampsSQL)
	for _, tool := range []string{"create_station", "create_note"} {
		tl := res.Spec.Tool(tool)
		if tl == nil {
			t.Fatalf("no %s", tool)
		}
		for _, p := range tl.Params {
			if (p.Column == "opened" || p.Column == "inspected" || p.Column == "logged_at") && (p.Required || !p.Stamp) {
				t.Errorf("%s: %s required %v, stamp %v", tool, p.Name, p.Required, p.Stamp)
			}
		}
	}
	ep := stampsEpisode(t, res)
	for _, c := range []struct{ tool, args, want string }{
		{"create_station", `{"name": "Riverside"}`, `"name":"Riverside","opened":"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d","inspected":"\d{4}-\d\d-\d\d"`},
		{"create_note", `{"station_id": 2, "body": "tyre pump gone"}`, `"logged_at":"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"`},
	} {
		r, err := ep.Call(context.Background(), c.tool, json.RawMessage(c.args))
		if err != nil || r.Outcome != runtime.OutcomeOK || !regexp.MustCompile(c.want).MatchString(r.Content) {
			t.Errorf("%s: %v %s %q, want %s", c.tool, err, r.Outcome, r.Content, c.want)
		}
	}
}
