package synth_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// lookupSchema has the lookups the generated tools make: find by a natural
// key (a BINARY unique email, which a NOCASE comparison cannot use; a code
// with the source's own NOCASE index, which serves it), list filters on
// plain columns, and references followed from a parent (served by the
// reference indexes synth already adds).
const lookupSchema = `
CREATE TABLE teams (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, name TEXT NOT NULL);
CREATE INDEX teams_code_nocase ON teams (code COLLATE NOCASE);
CREATE TABLE people (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, full_name TEXT NOT NULL, city TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('new', 'active', 'gone')), team_id INTEGER REFERENCES teams(id), verified INTEGER NOT NULL);
CREATE TABLE tickets (id INTEGER PRIMARY KEY, person_id INTEGER NOT NULL REFERENCES people(id), title TEXT NOT NULL, opened_at TEXT NOT NULL);
`

// TestToolLookupsUseIndexes: every equality lookup of the generated tools
// (find_* ignoring case, list filters, follow-reference tools) is answered
// by SQLite with a search on a key or an index of the built database, not
// a scan of the table: the episode's cost does not grow with the data.
// Checked with EXPLAIN QUERY PLAN on the queries in the form the tools
// write them, in the bundle's own database.
func TestToolLookupsUseIndexes(t *testing.T) {
	var b strings.Builder
	b.WriteString(lookupSchema + "BEGIN;\n")
	for i := range 40 {
		name := word(i + 3)
		b.WriteString("INSERT INTO teams VALUES (" + strconv.Itoa(i+1) + ", 'T" + strconv.Itoa(i) + "', '" + name + " Team');\n")
		b.WriteString("INSERT INTO people VALUES (" + strconv.Itoa(i+1) + ", '" + strings.ToLower(name) + "@example.org', '" + name + " " + word(i*7+1) + "', '" +
			[]string{"Oslo", "Lima", "Kyiv", "Pune"}[i%4] + "', '" + []string{"new", "active", "gone"}[i%3] + "', " + strconv.Itoa(i%40+1) + ", " + strconv.Itoa(i%2) + ");\n")
	}
	for i := range 40 {
		b.WriteString("INSERT INTO tickets VALUES (" + strconv.Itoa(i+1) + ", " + strconv.Itoa((i*13)%40+1) + ", 'Ticket " + word(i+50) + "', '2024-01-" + strconv.Itoa(10+i%18) + "');\n")
	}
	b.WriteString("COMMIT;\n")
	db := sqlDB(t, t.TempDir(), "lookups.sqlite", b.String())
	res, out := synthShape(t, db, 10)

	conn, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := serdesLoad(conn, res.Bundle.DB); err != nil {
		t.Fatal(err)
	}
	kinds := map[toolgen.Kind]int{}
	for _, tool := range res.Spec.Tools {
		var wheres []string
		switch tool.Kind {
		case toolgen.Find:
			wheres = append(wheres, dbmodel.Quote(tool.Params[0].Column)+" = ? COLLATE NOCASE")
		case toolgen.List, toolgen.Children:
			for _, p := range tool.Params {
				if (p.Op == toolgen.OpEq || p.Op == toolgen.OpKey) && p.Type != "boolean" {
					wheres = append(wheres, dbmodel.Quote(p.Column)+" = ?")
				}
			}
		}
		for _, w := range wheres {
			kinds[tool.Kind]++
			q := "SELECT * FROM " + dbmodel.Quote(tool.Table) + " WHERE " + w
			if plan := queryPlan(t, conn, q); !strings.HasPrefix(plan, "SEARCH ") {
				t.Errorf("%s: %s: %s", tool.Name, q, plan)
			}
		}
	}
	if kinds[toolgen.Find] < 2 || kinds[toolgen.List] < 3 || kinds[toolgen.Children] < 2 {
		t.Fatalf("the schema should give find, list and children lookups: %v", kinds)
	}

	schema, err := os.ReadFile(filepath.Join(out, "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	// The BINARY unique email needs a NOCASE index; the NOCASE code has one.
	for want, has := range map[string]bool{
		`CREATE INDEX "synth_lookup_people_email_nocase" ON "people" ("email" COLLATE NOCASE);`: true,
		`CREATE INDEX "synth_lookup_people_status" ON "people" ("status");`:                     true,
		`"synth_lookup_teams_code`:      false,
		`"synth_lookup_people_verified`: false, // a boolean filter: not worth an index
	} {
		if strings.Contains(string(schema), want) != has {
			t.Errorf("schema.sql: contains %s: %v, want %v", want, !has, has)
		}
	}
}

// queryPlan is the EXPLAIN QUERY PLAN of q, its lines joined by "; ".
func queryPlan(t *testing.T, conn *sqlite3.Conn, q string) string {
	t.Helper()
	stmt, _, err := conn.Prepare("EXPLAIN QUERY PLAN " + q)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	var lines []string
	for stmt.Step() {
		lines = append(lines, stmt.ColumnText(3))
	}
	if err := stmt.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(lines, "; ")
}
