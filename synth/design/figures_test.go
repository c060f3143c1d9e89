package design

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// TestFiguresValidated: the measures and groups a design names are
// checked against the schema and the rows, and a table's figures that
// fail are dropped with the reason the repair prompt sends back (as an
// action is). The design is a Go value (the generator's input), not a
// model's answer.
func TestFiguresValidated(t *testing.T) {
	_, conn := libraryDB(t)
	if err := conn.Exec(`CREATE TABLE results (id INTEGER PRIMARY KEY, team TEXT NOT NULL, season INTEGER NOT NULL, goals INTEGER NOT NULL, code TEXT NOT NULL UNIQUE);
INSERT INTO results VALUES (1, 'Rovers', 1995, 2, 'a'), (2, 'United', 1995, 0, 'b'), (3, 'Rovers', 1996, 3, 'c'), (4, 'United', 1996, 1, 'd');`); err != nil {
		t.Fatal(err)
	}
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := Answer{Serves: "members of the library", Identify: "by their email", Refusal: "say which rule stops it"}
	cases := []struct {
		name string
		fig  FiguresAnswer
		want string // "" for kept
	}{
		{"kept", FiguresAnswer{Table: "results", Measures: []string{"goals"}, Groups: []string{"team", "season"}}, ""},
		{"no table", FiguresAnswer{Table: "fines", Measures: []string{"n"}, Groups: []string{"state"}}, `no table "fines"`},
		{"text measure", FiguresAnswer{Table: "loans", Measures: []string{"state"}, Groups: []string{"member_id"}}, `measure "state" is not a number column`},
		{"key measure", FiguresAnswer{Table: "loans", Measures: []string{"book_id"}, Groups: []string{"state"}}, `measure "book_id" is a key or a reference`},
		{"constant measure", FiguresAnswer{Table: "loans", Measures: []string{"n"}, Groups: []string{"book_id"}}, ""},
		{"one value", FiguresAnswer{Table: "members", Measures: []string{"id"}, Groups: []string{"name"}}, `measure "id" is a key`},
		{"key group", FiguresAnswer{Table: "books", Measures: []string{"copies"}, Groups: []string{"id"}}, `group "id" is the key`},
		{"unique group", FiguresAnswer{Table: "results", Measures: []string{"goals"}, Groups: []string{"code"}}, `group "code": want a column whose values repeat`},
		{"unknown group", FiguresAnswer{Table: "results", Measures: []string{"goals"}, Groups: []string{"venue"}}, `group "venue": results has no such column`},
		{"no group", FiguresAnswer{Table: "books", Measures: []string{"copies"}}, "name at least one measure and one group"},
		{"twice", FiguresAnswer{Table: "results", Measures: []string{"goals", "goals"}, Groups: []string{"team"}}, `measure "goals" is named twice`},
		{"both", FiguresAnswer{Table: "books", Measures: []string{"copies"}, Groups: []string{"copies"}}, `group "copies" is named twice, or is a measure too`},
	}
	for _, c := range cases {
		a := base
		a.Figures = []FiguresAnswer{c.fig}
		p, err := Validate(m, conn, &a)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.want == "" {
			// "constant measure": every loan's n is 1 — dropped below.
			if c.name == "constant measure" {
				if len(p.Figures) != 0 || len(p.Dropped) != 1 || !strings.Contains(p.Dropped[0].Reason, `measure "n" holds one value in every row`) {
					t.Errorf("%s: figures %+v dropped %+v", c.name, p.Figures, p.Dropped)
				}
				continue
			}
			if len(p.Dropped) != 0 || len(p.Figures) != 1 || p.Figures[0].By != toolgen.FiguresByDesign || !slices.Equal(p.Figures[0].Groups, c.fig.Groups) {
				t.Errorf("%s: figures %+v dropped %+v", c.name, p.Figures, p.Dropped)
			}
			continue
		}
		if len(p.Figures) != 0 || len(p.Dropped) != 1 || p.Dropped[0].Name != figuresOf+c.fig.Table || !strings.Contains(p.Dropped[0].Reason, c.want) {
			t.Errorf("%s: figures %+v dropped %+v, want the reason %q", c.name, p.Figures, p.Dropped, c.want)
		}
	}
}

// TestFiguresParsed: "figures" is part of the answer's JSON.
func TestFiguresParsed(t *testing.T) {
	a := answer(t, `{`+policyWords+`, "actions": [], "figures": [{"table": "loans", "measures": ["n"], "groups": ["state"]}]}`)
	if len(a.Figures) != 1 || a.Figures[0].Table != "loans" || !slices.Equal(a.Figures[0].Measures, []string{"n"}) {
		t.Fatalf("figures %+v", a.Figures)
	}
}

// TestDesignPromptStatesLimits: every limit the checker enforces is in
// the design prompt (a model that learns one only from a repair prompt
// wastes a round: a "serves" past maxText did), and the prompt asks for
// the figures.
func TestDesignPromptStatesLimits(t *testing.T) {
	p := designPrompt("{}")
	for _, want := range []string{
		fmt.Sprintf("at most %d characters", maxText), // serves, identify, refusal, rules
		"3 to 48 characters",                          // nameRE
		"2 to 20 declared values",                     // validateStatus
		"each at most 40 characters",                  // a status value
		"3 to 30 letters",                             // wordRE
		"2 or more",                                   // consume: a stock to draw on
		`"figures"`, `"measures"`, `"groups"`,
		fmt.Sprintf("at most %d measures and groups", maxFigures),
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the design prompt does not state %q", want)
		}
	}
}
