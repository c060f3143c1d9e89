package tasks

import (
	"fmt"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// RowChange is one row a right solution changes, as another pipeline
// (synth llm) found it by replaying the ground truth: its table, what
// happened to it ("update", "delete" or "create"), its key (update,
// delete) and the columns an update set.
type RowChange struct {
	Table string
	Kind  string
	Key   map[string]any
	Cols  []string
}

// KeptGuard is the guard this package gives its own write tasks, for
// changes found elsewhere: every table of m is as it was in init but for
// changes (an updated row's other columns, every other row, and the row
// counts, created rows included, all kept). It fails when a table of m
// has no primary key, or a change names a table m lacks: rows could not
// be told apart, so no guard is better than a wrong one.
func KeptGuard(m *dbmodel.Model, changes []RowChange) (envpkg.Check, error) {
	for _, t := range m.Tables {
		if len(t.PrimaryKey) == 0 {
			return envpkg.Check{}, fmt.Errorf("table %s has no primary key", t.Name)
		}
	}
	var cs []change
	for _, rc := range changes {
		t := m.Table(rc.Table)
		if t == nil {
			return envpkg.Check{}, fmt.Errorf("no table %s", rc.Table)
		}
		c := change{table: t, kind: rc.Kind, row: rc.Key}
		switch rc.Kind {
		case "update":
			c.cols = map[string]any{}
			for _, col := range rc.Cols {
				c.cols[col] = nil // only the names are read: these columns may differ
			}
		case "delete", "create":
		default:
			return envpkg.Check{}, fmt.Errorf("change of kind %q", rc.Kind)
		}
		cs = append(cs, c)
	}
	name := "nothing changed"
	if len(cs) > 0 {
		name = "nothing else changed"
	}
	return envpkg.Check{Name: name, Guard: true, SQL: allOf(stateKept(m, cs, nil))}, nil
}
