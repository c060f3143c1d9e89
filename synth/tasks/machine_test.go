package tasks_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// sitesDB: sites known by name, each with a GUID, a long-float score and
// a (region, site code) pair that visits refer to; visits by people.
func sitesDB(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "sites.sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b strings.Builder
	b.WriteString(`
CREATE TABLE sites (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, region TEXT NOT NULL, site_code TEXT NOT NULL,
  guid TEXT NOT NULL, score REAL, manager TEXT, opened TEXT, UNIQUE (region, site_code));
CREATE TABLE visitors (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, first_name TEXT, last_name TEXT, phone TEXT);
CREATE TABLE visits (id INTEGER PRIMARY KEY, visitor_id INTEGER NOT NULL REFERENCES visitors(id), region TEXT NOT NULL, site_code TEXT NOT NULL,
  day TEXT NOT NULL, purpose TEXT, FOREIGN KEY (region, site_code) REFERENCES sites (region, site_code));
BEGIN;
`)
	places := []string{"Harbor", "Mill", "Quarry", "Ridge", "Orchard", "Ferry", "Lantern", "Beacon", "Meadow", "Summit"}
	managers := []string{"Ana Silva", "Bo Chen", "Cy Diaz", "Di Park"}
	for i, p := range places {
		fmt.Fprintf(&b, "INSERT INTO sites VALUES (%d, '%s Site', '%s', 'S%02d', '%08X-4B1C-4D2E-8F3A-%012X', %.15f, '%s', '2020-%02d-01');\n",
			i+1, p, []string{"north", "south", "east"}[i%3], i, 0x3FA85F64+i*977, 0x2C963F66AFA6+i*31, float64(i*i%7)/3.0-0.987654321, managers[i%4], 1+i)
	}
	firsts := []string{"Lena", "Omar", "Sofia", "Ivan", "Maya", "Tariq"}
	for i, f := range firsts {
		fmt.Fprintf(&b, "INSERT INTO visitors VALUES (%d, '%s%d@example.org', '%s', '%s', '+1 555 %04d');\n", i+1, strings.ToLower(f), i, f, []string{"Ng", "Ruiz", "Berg"}[i%3], 1000+i)
	}
	for v := 1; v <= 40; v++ {
		s := (v * 7) % len(places)
		fmt.Fprintf(&b, "INSERT INTO visits VALUES (%d, %d, '%s', 'S%02d', '2024-%02d-%02d', '%s');\n", v, 1+v%len(firsts), []string{"north", "south", "east"}[s%3], s, 1+v%12, 1+v%28, []string{"tour", "audit", "delivery"}[v%3])
	}
	b.WriteString("COMMIT;")
	if err := conn.Exec(b.String()); err != nil {
		t.Fatal(err)
	}
	return path
}

// No task names a row by a GUID or a long float, asks for one, or sets
// one; no task edits the columns other rows refer to by.
func TestMachineValuesAndReferencedKeysLeftAlone(t *testing.T) {
	res := fromDB(t, sitesDB(t), synth.Options{Tasks: 60})
	if len(res.Tasks) == 0 {
		t.Fatal("no tasks")
	}
	guid := regexp.MustCompile(`[0-9A-F]{8}-[0-9A-F]{4}-`)
	longFloat := regexp.MustCompile(`\d\.\d{5,}`)
	for _, task := range res.Tasks {
		text := task.Instruction
		if task.Answer != nil {
			text += " " + task.Answer.Value
		}
		if guid.MatchString(text) || longFloat.MatchString(text) {
			t.Errorf("task %s says a GUID or a long float: %q", task.ID, text)
		}
		for _, call := range task.Calls {
			tool := res.Spec.Tool(call.Name)
			if tool == nil || tool.Kind != toolgen.Update && tool.Kind != toolgen.Create {
				continue
			}
			var args map[string]any
			if err := json.Unmarshal(call.Arguments, &args); err != nil {
				t.Fatal(err)
			}
			for _, p := range tool.Params {
				if _, set := args[p.Name]; !set || p.Op != toolgen.OpSet && tool.Kind == toolgen.Update {
					continue
				}
				if tool.Table == "sites" && (p.Column == "guid" || p.Column == "score") {
					t.Errorf("task %s sets %s.%s", task.ID, tool.Table, p.Column)
				}
				if tool.Kind == toolgen.Update && tool.Table == "sites" && (p.Column == "site_code" || p.Column == "region") {
					t.Errorf("task %s edits %s.%s, which visits refer to", task.ID, tool.Table, p.Column)
				}
			}
		}
	}
}

// A league imported from CSV: no types, keys or references declared.
// Players and games refer to teams by TeamID and games to venues by code;
// no task edits those.
func TestUndeclaredKeysNotEdited(t *testing.T) {
	path := filepath.Join(t.TempDir(), "league.sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE teams (TeamID, team_name, city, coach);\nCREATE TABLE venues (code, title, capacity);\n" +
		"CREATE TABLE players (id, name, email, team_id, position);\nCREATE TABLE games (game_no, home_team_id, away_team_id, played_on, venue_code, attendance);\nBEGIN;\n")
	teams := []string{"Hawks", "Owls", "Crows", "Kites", "Rooks", "Wrens"}
	for i, n := range teams {
		fmt.Fprintf(&b, "INSERT INTO teams VALUES ('T%d', '%s', '%s', 'Coach %c');\n", i+1, n, []string{"Oslo", "Bergen", "Tromsø"}[i%3], 'A'+i)
	}
	for i := range 4 {
		fmt.Fprintf(&b, "INSERT INTO venues VALUES ('V%d', '%s', '%d');\n", i+1, []string{"Arena", "Dome", "Field", "Park"}[i], 1000*(i+2))
	}
	for p := 1; p <= 30; p++ {
		fmt.Fprintf(&b, "INSERT INTO players VALUES ('%d', 'Player %c%c', 'p%d@example.org', 'T%d', '%s');\n", p, 'A'+p%26, 'a'+p*7%26, p, 1+p%6, []string{"G", "F", "C"}[p%3])
	}
	for g := 1; g <= 20; g++ {
		fmt.Fprintf(&b, "INSERT INTO games VALUES ('%d', 'T%d', 'T%d', '2024-%02d-%02d', 'V%d', '%d');\n", 100+g, 1+g%6, 1+(g+1)%6, 1+g%12, 1+g%28, 1+g%4, 500+g*13)
	}
	b.WriteString("COMMIT;")
	if err := conn.Exec(b.String()); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	res := fromDB(t, path, synth.Options{Tasks: 60})
	for _, task := range res.Tasks {
		for _, call := range task.Calls {
			tool := res.Spec.Tool(call.Name)
			if tool == nil || tool.Kind != toolgen.Update {
				continue
			}
			var args map[string]any
			if err := json.Unmarshal(call.Arguments, &args); err != nil {
				t.Fatal(err)
			}
			for _, p := range tool.Params {
				if _, set := args[p.Name]; set && p.Op == toolgen.OpSet && (p.Column == "TeamID" || tool.Table == "venues" && p.Column == "code" || tool.Table == "players" && p.Column == "id") {
					t.Errorf("task %s edits %s.%s, which other rows refer to: %s", task.ID, tool.Table, p.Column, task.Instruction)
				}
			}
		}
	}
}
