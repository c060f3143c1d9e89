package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// "Which" questions: what a row is in, asked the way a person asks it
// rather than as an attribute of the row ("Which city is the supplier X
// in?", not "What is the city of the supplier X?"; "Which category is
// the product X in?", not "What is the name of the category of the
// product X?"; "What job does the employee X have?").

// containers are the nouns of rows other rows are in.
var containers = []string{"department", "region", "category", "genre", "territory", "country", "city", "state", "group", "class", "division", "section", "zone", "language"}

// makers are the nouns of who made a thing.
var makers = []string{"artist", "author", "composer", "director", "band", "publisher", "manufacturer", "brand"}

// whichQuestion asks for col of e as a "which" question, or "".
func (w *walker) whichQuestion(e *entity, col *dbmodel.Column, attr string) string {
	if e.person || strings.HasPrefix(e.desc, "my ") || e.desc == "me" {
		return ""
	}
	// A place part of a row, or of the row whose address e is.
	if placeWord(attr) && !strings.Contains(noun(e.table), attr) {
		subject, owner := e.desc, e
		if o, ok := placeOwner(e); ok {
			if o == "my" || e.parent == nil {
				return ""
			}
			subject, owner = o, e.parent
		}
		if owner.table != nil && person(owner.table) && !strings.HasSuffix(subject, " company") {
			return oneOf(w.rng, fmt.Sprintf("Which %s does %s live in?", attr, subject), fmt.Sprintf("Could you tell me which %s %s lives in?", attr, subject))
		}
		return oneOf(w.rng, fmt.Sprintf("Which %s is %s in?", attr, subject), fmt.Sprintf("Could you tell me which %s %s is in?", attr, subject))
	}
	// The name of the row another is in, reached from it.
	if e.via == "" || e.parent == nil || e.parent.person || e.parent.table == nil || !nameColumn(e.table, col) {
		return ""
	}
	n := noun(e.table)
	switch {
	case n == "job" && person(e.parent.table):
		return oneOf(w.rng, fmt.Sprintf("What job does %s have?", e.parent.desc), fmt.Sprintf("Could you tell me what job %s has?", e.parent.desc))
	case slices.Contains(makers, n):
		return oneOf(w.rng, fmt.Sprintf("Who is the %s of %s?", n, e.parent.desc), fmt.Sprintf("Could you tell me who the %s of %s is?", n, e.parent.desc))
	case slices.Contains(containers, n):
		return oneOf(w.rng, fmt.Sprintf("Which %s is %s in?", n, e.parent.desc), fmt.Sprintf("Could you tell me which %s %s is in?", n, e.parent.desc))
	}
	return ""
}

// nameColumn: col names the rows of t (its label, a name or title, or a
// lookup's only text).
func nameColumn(t *dbmodel.Table, col *dbmodel.Column) bool {
	l := strings.ToLower(col.Name)
	return col.Name == t.Label || col.Kind == dbmodel.Text && (strings.Contains(l, "name") || strings.Contains(l, "title")) || lookupName(t, col)
}

// placeWord: attr is a place a row is in, said as one (a city, a state or
// province, a country), not a description of one ("region description").
func placeWord(attr string) bool {
	switch attr {
	case "city", "town", "state", "state or province", "province", "county", "region", "country":
		return true
	}
	return false
}

// workplace: a row people work or belong in (a department, a store).
func workplace(t *dbmodel.Table) bool {
	switch noun(t) {
	case "department", "store", "branch", "office", "team", "division", "unit":
		return true
	}
	return false
}

// countIn asks how many rows a container holds the way a person asks it:
// "How many films are in the category "Sports"?", "How many tracks are on
// the album X?", "How many films has the actor X appeared in?"; "" for
// other rows.
func countIn(w *walker, cur *entity, what string) string {
	if cur.person || cur.table == nil {
		return ""
	}
	who := cur.desc
	switch n := noun(cur.table); {
	case n == "album" || n == "playlist":
		return oneOf(w.rng, fmt.Sprintf("How many %s are on %s?", what, who), fmt.Sprintf("Could you count the %s on %s?", what, who))
	case n == "actor" || n == "performer":
		return oneOf(w.rng, fmt.Sprintf("How many %s has %s appeared in?", what, who), fmt.Sprintf("Could you count the %s %s has appeared in?", what, who))
	case slices.Contains(containers, n) || workplace(cur.table):
		return oneOf(w.rng, fmt.Sprintf("How many %s are in %s?", what, who), fmt.Sprintf("Could you count the %s in %s?", what, who))
	}
	return ""
}
