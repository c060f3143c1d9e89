package dbmodel

import (
	"fmt"
	"strings"
	"testing"
)

// TestLayoutOf: one form for every value, exactly as written, or none.
func TestLayoutOf(t *testing.T) {
	for _, c := range []struct {
		vals []string
		want string
	}{
		{[]string{"2006-02-15 04:34:33", "2006-02-15 05:03:42"}, "2006-01-02 15:04:05"},
		{[]string{"2024-05-14T19:21:38", "2024-05-10T16:08:44"}, "2006-01-02T15:04:05"},
		{[]string{"2024-05-14T19:21:38Z"}, "2006-01-02T15:04:05Z07:00"},
		{[]string{"1996-07-04 00:00:00.000"}, "2006-01-02 15:04:05.000"},
		{[]string{"2024-05-14", "2024-05-15"}, "2006-01-02"},
		{[]string{"2024-05-14", "2024-05-14 10:00:00"}, ""}, // two forms
		{[]string{"2024-5-14"}, ""},                         // does not format back
		{[]string{"2024-13-45"}, ""},
		{[]string{"14/05/2024"}, ""},
		{[]string{"'); DROP TABLE x; --"}, ""},
		{nil, ""},
	} {
		if got := layoutOf(c.vals); got != c.want {
			t.Errorf("layoutOf(%q) = %q, want %q", c.vals, got, c.want)
		}
	}
}

// TestLatestStamp: the latest time of a column as SQLite reads times,
// whatever its values' offsets, forms or junk; in UTC.
func TestLatestStamp(t *testing.T) {
	var rows []string
	for i := range 60 { // more than the layout's sample
		rows = append(rows, fmt.Sprintf("(%d, '2024-05-01T%02d:00:00+05:00', '2024-05-02T10:%02d:00Z')", i, i%24, i%60))
	}
	path := makeDB(t, `CREATE TABLE t (id INTEGER PRIMARY KEY, created_at TEXT, updated_at TEXT);
INSERT INTO t VALUES `+strings.Join(rows, ", ")+`,
 (100, '2024-05-01T22:00:00-03:00', 'zzz'),       -- 01:00Z the next day: later than 23:00+05:00 in time, earlier in text
 (101, '2024-05-01T23:00:00+05:00', '2024-06-01 10:00:00'), -- another form past the sample: still a time
 (102, '9999-12-31T23:30:00Z', NULL);             -- a data error, not the last write`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tbl := m.Table("t")
	for col, want := range map[string][2]string{
		"created_at": {"2006-01-02T15:04:05Z07:00", "2024-05-02T01:00:00Z"},
		"updated_at": {"2006-01-02T15:04:05Z07:00", "2024-06-01T10:00:00Z"},
	} {
		c := tbl.Column(col)
		if c.TimeLayout != want[0] || c.Latest != want[1] {
			t.Errorf("%s: layout %q latest %q, want %q %q", col, c.TimeLayout, c.Latest, want[0], want[1])
		}
	}
}
