package toolgen

import (
	"path/filepath"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// TestGroupFilterOffered: a group the figures name is filtered by an
// exact value in its table's list tool, even where the column (a season,
// an integer) would otherwise get only a range: a person asks for the
// rows of season 1995. Without figures the season stays a range, and
// the schema alone names no group of a flat table with no reference and
// no CHECK.
func TestGroupFilterOffered(t *testing.T) {
	conn, err := sqlite3.Open(filepath.Join(t.TempDir(), "s.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(`CREATE TABLE results (id INTEGER PRIMARY KEY, team TEXT NOT NULL, season INTEGER NOT NULL, goals INTEGER NOT NULL);
CREATE TABLE kinds (code TEXT PRIMARY KEY, label TEXT NOT NULL);
CREATE TABLE fixtures (id INTEGER PRIMARY KEY, kind TEXT NOT NULL REFERENCES kinds(code), stage TEXT NOT NULL CHECK (stage IN ('group', 'final')));
INSERT INTO results VALUES (1, 'Rovers', 1995, 2), (2, 'United', 1995, 0), (3, 'Rovers', 1996, 3);`); err != nil {
		t.Fatal(err)
	}
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	filter := func(spec *Spec, col string, op Op) bool {
		l := spec.Tool("list_results")
		return l != nil && paramOf(l, col, op)
	}
	plain, err := Generate(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if filter(plain, "season", OpEq) || !filter(plain, "season", OpMin) {
		t.Fatalf("without figures the season is a range: %+v", plain.Tool("list_results").Params)
	}
	figs := []Figures{{Table: "results", Measures: []string{"goals"}, Groups: []string{"team", "season"}, By: FiguresByDesign}}
	spec, err := Generate(m, Options{Figures: figs, FiguresBy: FiguresByDesign})
	if err != nil {
		t.Fatal(err)
	}
	if !filter(spec, "season", OpEq) || !filter(spec, "team", OpEq) {
		t.Fatalf("the groups are not filtered by a value: %+v", spec.Tool("list_results").Params)
	}
	if f := spec.FiguresOf("results"); f == nil || spec.FiguresBy != FiguresByDesign || f.Measures[0] != "goals" {
		t.Fatalf("the spec does not carry the figures: %+v", spec.Figures)
	}
	// The schema's own: the declared reference and the CHECK's closed set
	// of fixtures, nothing of the flat results table.
	sf := SchemaFigures(m)
	if len(sf) != 1 || sf[0].Table != "fixtures" || len(sf[0].Groups) != 2 || sf[0].Groups[0] != "kind" || sf[0].Groups[1] != "stage" || len(sf[0].Measures) != 0 {
		t.Fatalf("schema figures %+v", sf)
	}
}

// paramOf: l has a parameter on col with op.
func paramOf(l *Tool, col string, op Op) bool {
	for _, p := range l.Params {
		if p.Column == col && p.Op == op {
			return true
		}
	}
	return false
}
