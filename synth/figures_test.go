package synth

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/design"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// statsSchema is statistics data no person owns (issue 34, the held-out
// finding on reference and statistics data): one flat table of a league's
// appearances, no reference, numbers whose names are in no English word
// list of amounts (goals, minutes), and the columns a person selects rows
// by (a team, a season, a venue).
const statsSchema = `
CREATE TABLE appearances (id INTEGER PRIMARY KEY, player_name TEXT NOT NULL, team TEXT NOT NULL, season INTEGER NOT NULL,
  venue TEXT NOT NULL, goals INTEGER NOT NULL, minutes INTEGER NOT NULL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 240)
INSERT INTO appearances SELECT i,
  (CASE i % 12 WHEN 0 THEN 'Ada Okafor' WHEN 1 THEN 'Bruno Silva' WHEN 2 THEN 'Chen Wei' WHEN 3 THEN 'Dana Novak' WHEN 4 THEN 'Emil Berg'
   WHEN 5 THEN 'Farah Haddad' WHEN 6 THEN 'Goran Petrov' WHEN 7 THEN 'Hana Sato' WHEN 8 THEN 'Ivo Rossi' WHEN 9 THEN 'Jana Dvorak'
   WHEN 10 THEN 'Kemal Aydin' ELSE 'Lina Moreau' END) || ' ' || (i / 12),
  (CASE i % 4 WHEN 0 THEN 'Rovers' WHEN 1 THEN 'United' WHEN 2 THEN 'Athletic' ELSE 'Wanderers' END),
  1994 + (i % 5), (CASE (i / 3) % 2 WHEN 0 THEN 'home' ELSE 'away' END),
  (i * 7) % 5, 15 + (i * 37) % 76
FROM n;`

// statsDB writes the statistics database.
func statsDB(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "league.sqlite")
	conn, err := sqlite3.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(statsSchema); err != nil {
		t.Fatal(err)
	}
	return path
}

// statsPlan is a design of the statistics data built in Go (the input the
// generator takes from a design answer, not a model's answer): nothing
// may be changed, and the table's measures and groups are named.
func statsPlan() *design.Plan {
	return &design.Plan{
		Enums:   map[string][]string{},
		Policy:  design.Policy{Serves: "Fans looking up the league's appearance records.", Identify: "No identification: the records are public.", Refusal: "Say the records are read-only.", Rules: map[string][]string{}},
		Scope:   &toolgen.Scope{Tables: []string{}, By: toolgen.ScopeByDesign},
		Figures: []toolgen.Figures{{Table: "appearances", Measures: []string{"goals", "minutes"}, Groups: []string{"team", "season", "venue"}, By: toolgen.FiguresByDesign}},
	}
}

// grouped counts the tasks of the group shapes (synth/tasks grouped.go)
// and the policy (refusal) tasks.
func grouped(tasks []envpkg.Task) (group, policy int) {
	for _, task := range tasks {
		switch {
		case strings.Contains(task.ID, "-group-"):
			group++
		case strings.Contains(task.ID, "-refuse"):
			policy++
		}
	}
	return group, policy
}

// TestGroupFiguresGiveReasoning: on data no one owns, a design naming the
// measures and groups gives tasks that need reasoning (a total, an
// average, a spread, the largest, a comparison over the rows of a group
// the user names, each an exact figure the calls give), a list tool that
// filters by every group (season, an integer, included), and — the scope
// allowing no change — policy tasks that ask for one and must be refused
// (TestReadOnlyScopeRefusals has those without figures).
func TestGroupFiguresGiveReasoning(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an environment")
	}
	opts := Options{Out: filepath.Join(t.TempDir(), "env"), Tasks: 20, Seed: 3, Toolset: toolgen.ToolsetDomain, plan: statsPlan()}
	res, err := FromDB(context.Background(), statsDB(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	list := res.Spec.Tool("list_appearances")
	if list == nil || list.Param("season") == nil || list.Param("team") == nil || list.Param("venue") == nil {
		t.Fatalf("the list tool does not filter by every group: %+v", list)
	}
	for _, task := range res.Tasks {
		if len(task.Checks) > 0 && slices.ContainsFunc(task.Checks, func(c envpkg.Check) bool { return !c.Guard }) {
			t.Errorf("%s changes a row where nothing may be changed", task.ID)
		}
	}
	for _, task := range res.Tasks {
		ans := ""
		if task.Answer != nil {
			ans = task.Answer.Match + ":" + task.Answer.Value
		}
		t.Logf("%d\t%s\t%s\t%s", len(task.Calls), task.ID, task.Instruction, ans)
	}
	group, policy := grouped(res.Tasks)
	n := len(res.Tasks)
	if n == 0 || group < n/3 {
		t.Errorf("%d of %d tasks over a group; want a third or more (by kind %v)", group, n, res.Summary.Tasks.ByKind)
	}
	if n == 0 || float64(policy) < 0.15*float64(n) {
		t.Errorf("%d of %d policy tasks; want 15%% or more (by kind %v)", policy, n, res.Summary.Tasks.ByKind)
	}
	if !strings.Contains(res.Bundle.Manifest.Rules, "You may not change any record") {
		t.Errorf("the rules do not say that nothing may be changed:\n%s", res.Bundle.Manifest.Rules)
	}
	for _, task := range res.Tasks {
		if strings.Contains(task.ID, "-group-") && (task.Answer == nil || len(task.Calls) == 0) {
			t.Errorf("%s: no answer or no calls", task.ID)
		}
	}
}

// TestReadOnlyScopeRefusals: where the design's scope allows no change and
// no figure is named, the requests for a change are policy tasks, each a
// refusal that changes nothing, 15% or more of the set; the rules say that
// no record may be changed.
func TestReadOnlyScopeRefusals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an environment")
	}
	plan := statsPlan()
	plan.Figures = nil
	opts := Options{Out: filepath.Join(t.TempDir(), "env"), Tasks: 20, Seed: 5, Toolset: toolgen.ToolsetDomain, plan: plan}
	res, err := FromDB(context.Background(), statsDB(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	_, policy := grouped(res.Tasks)
	if n := len(res.Tasks); n == 0 || float64(policy) < 0.15*float64(n) {
		t.Errorf("%d of %d policy tasks; want 15%% or more (by kind %v)", policy, n, res.Summary.Tasks.ByKind)
	}
	for _, task := range res.Tasks {
		if slices.ContainsFunc(task.Checks, func(c envpkg.Check) bool { return !c.Guard }) {
			t.Errorf("%s changes a row where nothing may be changed", task.ID)
		}
	}
	if !strings.Contains(res.Bundle.Manifest.Rules, "You may not change any record") {
		t.Errorf("the rules do not say that nothing may be changed:\n%s", res.Bundle.Manifest.Rules)
	}
}
