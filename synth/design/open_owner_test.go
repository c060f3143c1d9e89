package design

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// A staff schema where one person belongs to no team: the owner rule the
// references suggest ("every staff row belongs to a team") does not hold.
const staffSchema = `
CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE grades (code TEXT PRIMARY KEY, min_pay INTEGER, max_pay INTEGER);
CREATE TABLE staff (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, joined TEXT NOT NULL,
  grade TEXT NOT NULL REFERENCES grades(code), pay INTEGER, team_id INTEGER REFERENCES teams(id));
INSERT INTO teams VALUES (1, 'North'), (2, 'South');
INSERT INTO grades VALUES ('G1', 100, 200), ('G2', 150, 300);
INSERT INTO staff VALUES
  (1, 'a@example.org', '2020-01-01', 'G1', 150, 1), (2, 'b@example.org', '2020-02-01', 'G1', 120, 1),
  (3, 'c@example.org', '2021-01-01', 'G2', 200, 2), (4, 'd@example.org', '2021-03-01', 'G2', 250, 2),
  (5, 'e@example.org', '2022-01-01', 'G2', 180, NULL);
`

// TestOwnerRuleTheDataLacksIsNoFault: the owner rules of an open action
// come from the references, not from the model's answer; one the data
// does not hold (a person in no team) is not a rule, and not a problem
// the repair prompt asks the model to fix. Reported as one, two models in
// a row dropped a sound hire (its pay kept within the grade's range) for
// it.
func TestOwnerRuleTheDataLacksIsNoFault(t *testing.T) {
	conn, err := sqlite3.Open(filepath.Join(t.TempDir(), "staff.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(staffSchema); err != nil {
		t.Fatal(err)
	}
	m, err := dbmodel.Read(conn, dbmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a := answer(t, `{`+policyWords+`, "actions": [
	  {"name": "hire", "table": "staff", "rule": "open", "column": "joined",
	   "bounds": [{"column": "pay", "ref": "grade", "min": "min_pay", "max": "max_pay"}]}],
	  "rules": [{"action": "hire", "text": "Pay is within the grade's range."}]}`)
	p, err := Validate(m, conn, a)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Actions) != 1 || p.Actions[0].Name != "hire" || len(p.Actions[0].Action.Open.Bounds) != 1 {
		t.Fatalf("actions %+v", p.Actions)
	}
	for _, d := range p.Dropped {
		if strings.Contains(d.Reason, "belongs to") {
			t.Errorf("an owner rule the answer never asked for is reported as its fault: %+v", d)
		}
	}
}
