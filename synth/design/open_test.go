package design

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// A course-booking schema: a seat is booked at a time and released later;
// a member books several seats at once (their bookings overlap), a seat is
// never booked twice at once; the price paid lies within the course's fee
// range, except once (so that rule does not hold).
const bookingSchema = `
CREATE TABLE members (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
CREATE TABLE courses (id INTEGER PRIMARY KEY, title TEXT NOT NULL, min_fee REAL, max_fee REAL, min_age INTEGER, max_age INTEGER);
CREATE TABLE seats (id INTEGER PRIMARY KEY, course_id INTEGER NOT NULL REFERENCES courses(id), label TEXT NOT NULL);
CREATE TABLE bookings (id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL REFERENCES members(id), seat_id INTEGER NOT NULL REFERENCES seats(id),
  course_id INTEGER NOT NULL REFERENCES courses(id), booked_at TEXT NOT NULL, released_at TEXT, fee REAL, age INTEGER);
INSERT INTO members VALUES (1, 'a@example.org'), (2, 'b@example.org');
INSERT INTO courses VALUES (1, 'Pottery', 10, 20, 18, 99), (2, 'Chess', 5, 8, 8, 99);
INSERT INTO seats VALUES (1, 1, 'A1'), (2, 1, 'A2'), (3, 2, 'B1');
INSERT INTO bookings VALUES
  (1, 1, 1, 1, '2024-01-01 10:00:00', '2024-01-05 10:00:00', 12, 30),
  (2, 1, 2, 1, '2024-01-02 10:00:00', '2024-01-06 10:00:00', 15, 30),
  (3, 2, 1, 1, '2024-01-06 10:00:00', '2024-01-08 10:00:00', 11, 40),
  (4, 2, 2, 1, '2024-01-07 10:00:00', NULL, 19, 40),
  (5, 1, 3, 2, '2024-01-03 10:00:00', '2024-01-04 10:00:00', 9, 30),
  (6, 2, 3, 2, '2024-01-05 10:00:00', NULL, 7, 40);
`

func bookingDB(t *testing.T) (*dbmodel.Model, *sqlite3.Conn) {
	t.Helper()
	conn, err := sqlite3.Open(filepath.Join(t.TempDir(), "booking.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.Exec(bookingSchema); err != nil {
		t.Fatal(err)
	}
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m, conn
}

// TestValidateOpen: a designed open action keeps the rules the data holds
// and drops, with the reason, those it contradicts (a member books two
// seats at once; a fee once outside the range); one naming what the schema
// does not have is dropped whole, and so is one with no rule left.
func TestValidateOpen(t *testing.T) {
	m, conn := bookingDB(t)
	a := answer(t, `{`+policyWords+`, "actions": [
	  {"name": "book_seat", "table": "bookings", "rule": "open", "column": "booked_at", "closed_by": "released_at",
	   "one_open_per": ["seat_id", "member_id"],
	   "bounds": [{"column": "fee", "ref": "course_id", "min": "min_fee", "max": "max_fee"}, {"column": "age", "ref": "course_id", "min": "min_age", "max": "max_age"}]},
	  {"name": "book_nothing", "table": "bookings", "rule": "open", "column": "booked_at", "one_open_per": ["seat_id"]},
	  {"name": "book_any", "table": "bookings", "rule": "open", "column": "booked_at", "bounds": [{"column": "fee", "ref": "course_id", "min": "min_fee", "max": "max_fee"}]},
	  {"name": "book_wrong", "table": "bookings", "rule": "open", "column": "email"}
	], "rules": [{"action": "book_seat", "text": "A seat is booked by one member at a time."}]}`)
	p, err := Validate(m, conn, a)
	if err != nil {
		t.Fatal(err)
	}
	// book_any keeps its owners (every booking names its member, seat and
	// course: round 8), though its bound is dropped.
	if len(p.Actions) != 2 || p.Actions[0].Name != "book_seat" || p.Actions[1].Name != "book_any" || len(p.Actions[1].Action.Open.Owned) != 3 {
		t.Fatalf("kept %+v; dropped %+v", p.Actions, p.Dropped)
	}
	o := p.Actions[0].Action.Open
	if o == nil || p.Actions[0].Action.Rule != toolgen.RuleOpen || o.Milestone != "released_at" || len(o.Avail) != 1 || o.Avail[0].Column != "seat_id" ||
		len(o.Bounds) != 1 || o.Bounds[0].Column != "age" || len(o.Unique) != 0 {
		t.Errorf("book_seat: %+v", o)
	}
	why := map[string]string{}
	for _, d := range p.Dropped {
		why[d.Name] += d.Reason + "|"
	}
	for name, want := range map[string][]string{
		"rule of book_seat": {"one open bookings per members: 4 rows start while another", "fee within courses's min_fee to max_fee: 1 rows are outside"},
		"book_nothing":      {"needs closed_by"},
		"rule of book_any":  {"fee within courses's min_fee to max_fee: 1 rows are outside"},
		"book_wrong":        {"want a time column"},
	} {
		for _, w := range want {
			if !strings.Contains(why[name], w) {
				t.Errorf("%s: dropped %q, want a reason with %q", name, why[name], w)
			}
		}
	}
	if got := p.Policy.Rules["book_seat"]; len(got) != 1 {
		t.Errorf("the rule of a kept action stays: %v", got)
	}
}
