package toolgen

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// TestDesignedOpen: an open action the model designed (synth/design) is
// rendered under its name with its rules, in place of the schema's own
// open on the same table, and its source compiles.
func TestDesignedOpen(t *testing.T) {
	conn, err := sqlite3.Open(filepath.Join(t.TempDir(), "b.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(`
CREATE TABLE members (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);
CREATE TABLE seats (id INTEGER PRIMARY KEY, label TEXT NOT NULL);
CREATE TABLE bookings (id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL REFERENCES members(id), seat_id INTEGER NOT NULL REFERENCES seats(id),
  booked_at TEXT NOT NULL, released_at TEXT);
INSERT INTO members VALUES (1, 'a@example.org'), (2, 'b@example.org');
INSERT INTO seats VALUES (1, 'A1'), (2, 'A2');
INSERT INTO bookings VALUES (1, 1, 1, '2024-01-01 10:00:00', '2024-01-02 10:00:00'), (2, 2, 1, '2024-01-03 10:00:00', NULL),
  (3, 1, 2, '2024-01-01 10:00:00', '2024-01-02 10:00:00'), (4, 2, 2, '2024-01-02 11:00:00', '2024-01-04 10:00:00');`); err != nil {
		t.Fatal(err)
	}
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opens, _, err := Opens(conn, m)
	if err != nil {
		t.Fatal(err)
	}
	if o := opens["bookings"]; o == nil || len(o.Avail) != 1 || o.Avail[0].Column != "seat_id" {
		t.Fatalf("the schema's open: %+v (a seat is booked once at a time; a member is not limited)", opens["bookings"])
	}
	designed := Designed{Name: "book_seat", Table: "bookings", Action: Action{Rule: RuleOpen, Column: "booked_at", Open: &Open{Start: "booked_at", Layout: "2006-01-02 15:04:05",
		Milestone: "released_at", Avail: []Ref{{Column: "seat_id", Parent: "seats", Key: "id"}}}}}
	spec, err := Generate(m, Options{Toolset: ToolsetDomain, Opens: opens, Designed: []Designed{designed}})
	if err != nil {
		t.Fatal(err)
	}
	var opensSeen []string
	for _, tl := range spec.Tools {
		if tl.Kind == DomainAction && tl.Action.Rule == RuleOpen {
			opensSeen = append(opensSeen, tl.Name)
		}
	}
	if len(opensSeen) != 1 || opensSeen[0] != "book_seat" {
		t.Fatalf("open actions %v, want the designed book_seat alone", opensSeen)
	}
	b := spec.Tool("book_seat")
	if !strings.Contains(b.Doc, "Refused when the seat already has a booking open") || b.Param("seat_id") == nil || !b.Param("seat_id").Required || b.Param("booked_at") != nil {
		t.Errorf("book_seat: %s %+v", b.Doc, b.Params)
	}
	dir := filepath.Join(t.TempDir(), "env")
	if err := emit.Write(dir, &emit.Env{Name: "booking", Schema: emit.SchemaSQL(m, nil), Tools: spec.Files}); err != nil {
		t.Fatal(err)
	}
	if _, err := compiler.Build(context.Background(), dir, compiler.Options{}); err != nil {
		t.Fatal(err)
	}
}
