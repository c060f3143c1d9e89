package synth

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/synth/design"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// flatFigures are the measures and groups of flat tables of the
// text-to-SQL corpus (the tuning side, synth/testdata/textsql), written
// here as a design would name them: Go values, the generator's input, not
// a model's answer. They let the design route be measured before a model
// is asked.
var flatFigures = map[string][]toolgen.Figures{
	"bike_1": {
		{Table: "reise", Measures: []string{"dauer"}, Groups: []string{"abonnement_typ", "name_der_startstation", "name_der_endstation"}, By: toolgen.FiguresByDesign},
		{Table: "wetter", Measures: []string{"niederschlag_zoll", "wolkenbedeckung"}, Groups: []string{"postleitzahl", "ereignisse"}, By: toolgen.FiguresByDesign},
	},
	"company_1": {{Table: "arbeitet_an", Measures: []string{"stunden"}, Groups: []string{"mitarbeiter_ssn", "projektnummer"}, By: toolgen.FiguresByDesign}},
}

// TestMeasureFlatDatabases measures the tasks made from the corpus's
// databases with flat tables (no reference in or out), by the procedural
// route and by the design route with flatFigures and a scope that allows
// no change: tasks that need reasoning, the median calls, the share of
// policy tasks. WASMENV_TEXTSQL is the corpus directory (DIR/<name>/<name>.sqlite).
func TestMeasureFlatDatabases(t *testing.T) {
	dir := os.Getenv("WASMENV_TEXTSQL")
	if dir == "" {
		t.Skip("WASMENV_TEXTSQL names no corpus directory")
	}
	var rows []string
	for _, name := range []string{"bike_1", "company_1", "student_1", "flight_2"} {
		db := filepath.Join(dir, name, name+".sqlite")
		for _, route := range []string{"procedural", "design"} {
			opts := Options{Out: filepath.Join(t.TempDir(), name), Tasks: 20, Seed: 1, Toolset: toolgen.ToolsetDomain}
			if route == "design" {
				if flatFigures[name] == nil {
					continue
				}
				opts.plan = &design.Plan{Enums: map[string][]string{}, Policy: design.Policy{Rules: map[string][]string{}},
					Scope: &toolgen.Scope{Tables: []string{}, By: toolgen.ScopeByDesign}, Figures: flatFigures[name]}
			}
			res, err := FromDB(context.Background(), db, opts)
			if err != nil {
				rows = append(rows, fmt.Sprintf("| %s | %s | error: %v |", name, route, err))
				continue
			}
			var calls []int
			policy := 0
			for _, task := range res.Tasks {
				calls = append(calls, len(task.Calls))
				if strings.Contains(task.ID, "-refuse") {
					policy++
				}
			}
			slices.Sort(calls)
			median := 0
			if len(calls) > 0 {
				median = calls[len(calls)/2]
			}
			st := res.Summary.Tasks
			rows = append(rows, fmt.Sprintf("| %s | %s | %d | %d | %d | %d%% | %v |", name, route, st.Kept, st.Kept-st.Plain, median, 100*policy/max(1, st.Kept), st.ByKind))
		}
	}
	t.Logf("\n| database | route | tasks | need reasoning | median calls | policy | by kind |\n|---|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}
