package synth_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth"
)

// bikesSQL: a newcomer's bike-rental database (issue 38) whose audit
// trigger fires only on some updates (WHEN), laid out as people write
// them: BEGIN on its own line, UPDATE OF, comments.
const bikesSQL = `
CREATE TABLE stations (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, city TEXT NOT NULL);
CREATE TABLE bikes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, station_id INTEGER NOT NULL REFERENCES stations(id),
  status TEXT NOT NULL CHECK (status IN ('available', 'repair', 'retired')), km INTEGER NOT NULL);
CREATE TABLE bike_log (id INTEGER PRIMARY KEY, bike_id INTEGER NOT NULL, note TEXT NOT NULL);
-- the log keeps retirements only
CREATE TRIGGER bikes_retired AFTER UPDATE OF status ON bikes
WHEN NEW.status = 'retired' AND OLD.status <> 'retired'
BEGIN
  -- one row per retirement
  INSERT INTO bike_log (bike_id, note) VALUES (NEW.id, 'retired ' || NEW.code);
END;
INSERT INTO stations VALUES (1, 'Harbour', 'Lisbon'), (2, 'Old Mill', 'Porto'), (3, 'Station Square', 'Braga');
INSERT INTO bikes VALUES
  (1, 'BK-101', 1, 'available', 120), (2, 'BK-102', 1, 'repair', 940), (3, 'BK-103', 2, 'available', 55),
  (4, 'BK-104', 2, 'available', 310), (5, 'BK-105', 3, 'repair', 1500), (6, 'BK-106', 3, 'available', 75),
  (7, 'BK-107', 1, 'available', 220), (8, 'BK-108', 2, 'repair', 610);
INSERT INTO bike_log VALUES (1, 4, 'serviced');
`

// TestConditionalTrigger: the audit table gets no write tools; a task
// whose ground truth fires the trigger is kept (its log row allowed),
// found by running that task, not by what the first task with the same
// tools did; and a seed gives the same task set every time.
func TestConditionalTrigger(t *testing.T) {
	dir := t.TempDir()
	db := sqlDB(t, dir, "bikes.sqlite", bikesSQL)
	run := func(seed int64) *synth.Result {
		res, err := synth.FromDB(context.Background(), db, synth.Options{Out: filepath.Join(t.TempDir(), "env"), Tasks: 40, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	retiring := 0
	for seed := int64(1); seed <= 3; seed++ {
		res := run(seed)
		for _, name := range []string{"create_bike_log", "update_bike_log", "delete_bike_log"} {
			if res.Spec.Tool(name) != nil {
				t.Fatalf("%s offered: the trigger adds its rows", name)
			}
		}
		for _, task := range res.Tasks {
			for _, c := range task.Calls {
				if c.Name == "update_bike" && strings.Contains(string(c.Arguments), `"retired"`) {
					retiring++
					if !slices.ContainsFunc(task.Checks, func(ch envpkg.Check) bool { return strings.Contains(ch.Name, "but bike_log") }) {
						t.Errorf("seed %d: %s retires a bike but does not allow its log row: %+v", seed, task.ID, task.Checks)
					}
				}
			}
		}
		if n := res.Summary.Tasks.Gates.Dropped["replay"]; n > 0 {
			t.Errorf("seed %d: %d tasks dropped at replay (%s)", seed, n, res.Summary.Tasks.Gates.Examples["replay"])
		}
		if seed == 1 {
			again := run(1)
			a, _ := json.Marshal(res.Tasks)
			b, _ := json.Marshal(again.Tasks)
			if string(a) != string(b) {
				t.Error("seed 1 made two different task sets")
			}
		}
	}
	if retiring == 0 {
		t.Error("no kept task retires a bike: the trigger's tasks were all dropped")
	}
}
