package synth

import (
	"time"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/toolgen"
)

// clockOf is the epoch of the episode clock of an environment made from
// m: the hour after the latest bookkeeping stamp in its data (the
// application's "now" comes after the last row it stamped), so a row a
// create tool stamps is newer than every row there, as it would be in the
// application. Zero when the data has no stamps: the format's default.
func clockOf(m *dbmodel.Model) time.Time {
	var latest time.Time
	for _, t := range m.Tables {
		for _, c := range t.Columns {
			if !toolgen.Stamp(c) || c.TimeLayout == "" || c.Latest == "" {
				continue
			}
			if v, err := time.Parse(c.TimeLayout, c.Latest); err == nil && v.After(latest) {
				latest = v
			}
		}
	}
	if latest.IsZero() {
		return latest
	}
	return latest.UTC().Truncate(time.Hour).Add(time.Hour)
}
