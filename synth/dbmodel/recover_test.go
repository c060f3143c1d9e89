package dbmodel

import (
	"slices"
	"strings"
	"testing"
)

// A database imported from CSV files: no declared types, keys or
// references. Its keys and references are recovered where names and data
// make them certain, and nowhere else.
func TestRecoverKeysAndReferencesFromCSV(t *testing.T) {
	path := makeDB(t, `
CREATE TABLE teams (TeamID, team_name, city);
CREATE TABLE players (id, name, team_id, position);
CREATE TABLE games (game_no, home_team_id, away_team_id, played_on, venue_code);
CREATE TABLE venues (code, title);
CREATE TABLE notes (id, body);
CREATE TABLE scores (player_id, game_no, points);
INSERT INTO teams VALUES ('T1', 'Hawks', 'Oslo'), ('T2', 'Owls', 'Bergen'), ('T3', 'Crows', 'Oslo');
INSERT INTO players VALUES ('1', 'Ana', 'T1', 'G'), ('2', 'Bo', 'T1', 'F'), ('3', 'Cy', 'T2', 'C'), ('4', 'Di', 'T3', 'G');
INSERT INTO games VALUES ('100', 'T1', 'T2', '2024-01-01', 'V1'), ('101', 'T2', 'T3', '2024-01-08', 'V2'), ('102', 'T3', 'T1', '2024-01-15', 'V1');
INSERT INTO venues VALUES ('V1', 'Arena'), ('V2', 'Dome');
INSERT INTO notes VALUES ('1', 'x'), ('1', 'y');
INSERT INTO scores VALUES ('1', '100', 12), ('3', '100', 7), ('4', '101', 3);
`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	key := func(table string) []string { return m.Table(table).PrimaryKey }
	if !slices.Equal(key("teams"), []string{"TeamID"}) || !slices.Equal(key("players"), []string{"id"}) || !slices.Equal(key("games"), []string{"game_no"}) {
		t.Errorf("recovered keys: teams %v, players %v, games %v", key("teams"), key("players"), key("games"))
	}
	if !m.Table("notes").RowID {
		t.Errorf("notes: id repeats, so it is no key; got %v", key("notes"))
	}
	if !m.Table("scores").RowID {
		t.Errorf("scores: no column is named as its key; got %v", key("scores"))
	}
	want := map[string]string{
		"players.team_id":    "teams.TeamID",
		"games.home_team_id": "teams.TeamID",
		"games.away_team_id": "teams.TeamID",
		"games.venue_code":   "venues.code",
		"scores.player_id":   "players.id",
		"scores.game_no":     "games.game_no",
		"players.position":   "",
		"games.played_on":    "",
		"teams.city":         "",
		"notes.id":           "",
		"venues.title":       "",
		"players.name":       "",
		"teams.team_name":    "",
		"scores.points":      "",
		"games.game_no":      "",
		"teams.TeamID":       "",
		"players.id":         "",
		"venues.code":        "",
		"notes.body":         "",
	}
	for _, tb := range m.Tables {
		for _, c := range tb.Columns {
			got := ""
			if fk := tb.ForeignKeyOf(c.Name); fk != nil {
				got = fk.RefTable + "." + fk.RefColumns[0]
			}
			w, ok := want[tb.Name+"."+c.Name]
			if !ok && c.Name == RowIDColumn {
				continue
			}
			if got != w {
				t.Errorf("%s.%s refers to %q, want %q", tb.Name, c.Name, got, w)
			}
		}
	}
	if c := m.Table("teams").Column("TeamID"); len(c.ReferencedBy) != 3 {
		t.Errorf("teams.TeamID referenced by %v, want the three references", c.ReferencedBy)
	}
	if !slices.ContainsFunc(m.Skipped, func(s string) bool { return strings.Contains(s, "TeamID is set and unique") }) {
		t.Errorf("the recovered key is not reported: %q", m.Skipped)
	}
}

// Two tables share one key (a 1:1 extension): the extension's key refers
// to the base table, named for it; the base's key refers to nothing.
func TestSharedKeyExtension(t *testing.T) {
	path := makeDB(t, `
CREATE TABLE person (person_id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE employee (person_id INTEGER PRIMARY KEY, salary INTEGER);
INSERT INTO person VALUES (1, 'Ana'), (2, 'Bo'), (3, 'Cy');
INSERT INTO employee VALUES (1, 100), (3, 300);
`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fk := m.Table("employee").ForeignKeyOf("person_id"); fk == nil || fk.RefTable != "person" {
		t.Errorf("employee.person_id: %+v, want a reference to person", fk)
	}
	if fk := m.Table("person").ForeignKeyOf("person_id"); fk != nil {
		t.Errorf("person.person_id refers to %s: the base table refers to nothing", fk.RefTable)
	}
}

// A name that fits two tables whose keys both hold the values is not
// guessed: no reference, and the reason said.
func TestAmbiguousReferenceNotGuessed(t *testing.T) {
	path := makeDB(t, `
CREATE TABLE city (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE cities (id INTEGER PRIMARY KEY, label TEXT);
CREATE TABLE shops (id INTEGER PRIMARY KEY, city_id INTEGER);
INSERT INTO city VALUES (1, 'a'), (2, 'b');
INSERT INTO cities VALUES (1, 'a'), (2, 'b');
INSERT INTO shops VALUES (1, 1), (2, 2);
`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if fk := m.Table("shops").ForeignKeyOf("city_id"); fk != nil {
		t.Errorf("shops.city_id guessed as a reference to %s", fk.RefTable)
	}
	if !slices.ContainsFunc(m.Skipped, func(s string) bool { return strings.Contains(s, "city_id") && strings.Contains(s, "alike") }) {
		t.Errorf("the undecided reference is not reported: %q", m.Skipped)
	}
}

// A table whose names are in another language is named by the data: the
// first short text column unique on every row; a first name unique by
// chance is not one.
func TestNaturalKeyFromDataInAnyLanguage(t *testing.T) {
	path := makeDB(t, `
CREATE TABLE film (film_id INTEGER PRIMARY KEY, titel TEXT, studio TEXT, brutto INTEGER);
CREATE TABLE gast (gast_id INTEGER PRIMARY KEY, first_name TEXT, land TEXT);
INSERT INTO film VALUES (1, 'Nordlicht', 'UFA', 10), (2, 'Der Hafen', 'UFA', 20), (3, 'Am Fluss', 'Bavaria', 30);
INSERT INTO gast VALUES (1, 'Ana', 'DE'), (2, 'Bo', 'DE'), (3, 'Cy', 'AT');
`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Table("film").NaturalKeys; !slices.Equal(got, []string{"titel"}) {
		t.Errorf("film natural keys %v, want [titel]", got)
	}
	if got := m.Table("gast").NaturalKeys; len(got) != 0 {
		t.Errorf("gast natural keys %v: a first name unique by chance names no one", got)
	}
}
