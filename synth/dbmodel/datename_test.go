package dbmodel

import "testing"

// A date is a word of a column's name, not letters inside one: a
// candidate's name (in English or run together in another language) is
// no date, and a name that was not a natural key for that reason is one.
func TestDateNameReadsWords(t *testing.T) {
	for col, want := range map[string]bool{
		"date": true, "birth_date": true, "birthdate": true, "DateOfBirth": true, "OrderDate": true,
		"timestamp": true, "start_time": true, "updated": true, "created_at": true, "shipped_on": true,
		"candidate_name": false, "mandatennummer": false, "name": false, "title": false, "amount": false,
	} {
		if got := dateName(col); got != want {
			t.Errorf("dateName(%q) = %v, want %v", col, got, want)
		}
	}
}
