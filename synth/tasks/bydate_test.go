package tasks

import (
	"testing"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// TestEarliestSaysWhichDate: where the rows a person chooses from have two
// dates (a birth date and a hire date), "my two earliest reports" must say
// which one it goes by; a player of round 7 read the other date and
// failed a right-looking trajectory. With one date, nothing is added.
func TestEarliestSaysWhichDate(t *testing.T) {
	two := &dbmodel.Table{Name: "staff", PrimaryKey: []string{"id"}, Columns: []*dbmodel.Column{
		{Name: "id", Kind: dbmodel.Integer}, {Name: "name", Kind: dbmodel.Text},
		{Name: "birth_date", Kind: dbmodel.Text}, {Name: "hire_date", Kind: dbmodel.Text}}}
	items := []map[string]any{
		{"id": 1, "name": "A", "birth_date": "1950-01-01", "hire_date": "1994-03-01"},
		{"id": 2, "name": "B", "birth_date": "1960-01-01", "hire_date": "1992-03-01"},
		{"id": 3, "name": "C", "birth_date": "1970-01-01", "hire_date": "1993-03-01"},
		{"id": 4, "name": "D", "birth_date": "1980-01-01", "hire_date": "1995-03-01"},
	}
	for _, g := range moreGroups(two, items, "employees I manage") {
		if g.value == "earliest" && g.after != "by "+attrWords(g.col) {
			t.Errorf("%s by %s: %q does not say which date", g.words, g.col, g.after)
		}
	}
	if got := byDate(two, items, "hire_date"); got != "by "+attrWords("hire_date") {
		t.Errorf("byDate = %q", got)
	}
	one := &dbmodel.Table{Name: "staff", PrimaryKey: []string{"id"}, Columns: two.Columns[:3]}
	if got := byDate(one, items, "birth_date"); got != "" {
		t.Errorf("one date: byDate = %q, want nothing", got)
	}
}
