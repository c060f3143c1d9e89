package dbmodel

import (
	"fmt"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// timeLayouts are the forms of dates and times a text column is read in,
// as Go layouts: SQLite's CURRENT_TIMESTAMP first, then ISO 8601's.
var timeLayouts = []string{
	"2006-01-02 15:04:05",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04:05Z07:00", // "Z", or an offset ("+02:00")
	"2006-01-02T15:04:05-07:00", // "+00:00" for UTC (Python's isoformat)
	"2006-01-02 15:04:05.000",
	"2006-01-02T15:04:05.000",
	"2006-01-02T15:04:05.000Z07:00",
	"2006-01-02 15:04:05.000000", // Python's str(datetime)
	"2006-01-02T15:04:05.000000-07:00",
	"2006-01-02 15:04",
	"2006-01-02",
}

// lastTime bounds Latest: a later value (a row stamped 9999-12-31) is a
// data error, not the application's last write, and a clock set after it
// could not run (the runtime counts nanoseconds from 1970 in an int64,
// which ends in 2262).
const lastTime = "2200-01-01"

// timeSample is how many values of a column decide its layout.
const timeSample = 50

// readTimeLayout sets c.TimeLayout when the column's first values are all
// dates or times written in one of timeLayouts, so that a value the tools
// write (a create tool's stamp) is written as the others are: airline's
// created_at "2024-05-14T19:21:38", not "2024-05-14 19:21:38". It sets
// c.Latest to the latest of all the column's values as SQLite reads times
// (julianday: any of its forms, offsets applied), in UTC, before lastTime.
func readTimeLayout(conn *sqlite3.Conn, c *Column, q string) error {
	vals, err := queryStrings(conn, fmt.Sprintf(`SELECT CAST(%[1]s AS TEXT) FROM %[2]s WHERE %[1]s IS NOT NULL LIMIT %[3]d`, quote(c.Name), q, timeSample))
	if c.TimeLayout = layoutOf(vals); c.TimeLayout == "" {
		return err
	}
	latest, err := queryStrings(conn, fmt.Sprintf(`SELECT strftime('%%Y-%%m-%%dT%%H:%%M:%%SZ', MAX(julianday(CAST(%[1]s AS TEXT)))) FROM %[2]s
		WHERE julianday(CAST(%[1]s AS TEXT)) < julianday('%[3]s')`, quote(c.Name), q, lastTime))
	if err == nil && len(latest) == 1 {
		if _, perr := time.Parse(time.RFC3339, latest[0]); perr == nil {
			c.Latest = latest[0]
		}
	}
	return err
}

// layoutOf is the first of timeLayouts every value is written in exactly
// (it parses, and formats back to the same text), "" when none or no
// values.
func layoutOf(vals []string) string {
	if len(vals) == 0 {
		return ""
	}
next:
	for _, l := range timeLayouts {
		for _, v := range vals {
			t, err := time.Parse(l, v)
			if err != nil || t.Format(l) != v {
				continue next
			}
		}
		return l
	}
	return ""
}
