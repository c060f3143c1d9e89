package dbmodel

import "testing"

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
