package synth

import (
	"time"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// clockOf is the epoch of the episode clock of an environment made from
// m: the hour after the latest bookkeeping stamp in its data (the
// application's "now" comes after the last row it stamped), so a row a
// create tool stamps is never older than a row there (a date-only stamp
// may share the latest date). Zero when the data has no stamps: the
// format's default.
func clockOf(m *dbmodel.Model) time.Time {
	var latest time.Time
	for _, t := range m.Tables {
		for _, c := range t.Columns {
			if !toolgen.Stamp(c) || c.Latest == "" {
				continue
			}
			v, err := time.Parse(time.RFC3339, c.Latest)
			if err == nil && v.After(latest) {
				latest = v
			}
		}
	}
	if latest.IsZero() {
		return latest
	}
	return latest.UTC().Truncate(time.Hour).Add(time.Hour)
}
