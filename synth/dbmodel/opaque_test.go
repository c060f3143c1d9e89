package dbmodel

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// GUIDs, hashes, tokens and long floats are marked from the data's shape,
// whatever the column is called; columns computed from others are marked
// derived; none of them names a row.
func TestOpaqueAndDerivedColumns(t *testing.T) {
	var rows []string
	scores := []float64{12, 15, 9, 20, 14, 11, 18}
	levels := []int{3, 1, 4, 1, 5, 2, 6}
	prices := []float64{9.99, 4.5, 12, 7.25, 3.1, 15.75, 8.8}
	mean, sd := 0.0, 0.0
	for _, s := range scores {
		mean += s / float64(len(scores))
	}
	for _, s := range scores {
		sd += (s - mean) * (s - mean) / float64(len(scores))
	}
	sd = math.Sqrt(sd)
	for i, s := range scores {
		z := (s - mean) / sd
		rows = append(rows, fmt.Sprintf("(%d, '%08X-1C2D-4E5F-8A9B-0C1D2E3F4A%02d', '%x', 'aZ%dkQ9pL2mN7xR4tY6wB', 'Item %d', %d, %d, %d, %.15f, %.2f, %d, %.2f)",
			i+1, 0xE010C10A+i, i, 0x9f86d081884c7d65+uint64(i)*7919, i, i, i+2, int(s), (i+2)*int(s), z, s/float64(i+2), levels[i], prices[i]))
	}
	path := makeDB(t, `
CREATE TABLE items (id INTEGER PRIMARY KEY, rowguid TEXT UNIQUE, digest TEXT UNIQUE, api TEXT, name TEXT UNIQUE,
	qty INTEGER, score INTEGER, total INTEGER, zscore REAL, ratio REAL, level INTEGER, price REAL);
INSERT INTO items VALUES `+strings.Join(rows, ",\n")+`;`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	it := m.Table("items")
	opaque := map[string]string{"rowguid": "a GUID", "digest": "a hash", "api": "a token", "zscore": "a long float",
		"name": "", "qty": "", "score": "", "total": "", "ratio": "", "level": "", "price": ""}
	for col, want := range opaque {
		if got := it.Column(col).Opaque; got != want {
			t.Errorf("%s: opaque %q, want %q", col, got, want)
		}
	}
	derived := map[string]bool{"total": true, "zscore": true, "ratio": true, "qty": false, "score": false, "level": false, "price": false, "name": false}
	for col, want := range derived {
		if got := it.Column(col).Derived != ""; got != want {
			t.Errorf("%s: derived %q, want derived=%v", col, it.Column(col).Derived, want)
		}
	}
	if !slices.Equal(it.NaturalKeys, []string{"name"}) || it.Label != "name" {
		t.Errorf("natural keys %v, label %q: a GUID or a hash is no name", it.NaturalKeys, it.Label)
	}
}

// A table keyed by GUIDs is not named by its key.
func TestGUIDKeyIsNotNatural(t *testing.T) {
	path := makeDB(t, `
CREATE TABLE sessions (id TEXT PRIMARY KEY, started TEXT);
INSERT INTO sessions VALUES ('6F9619FF-8B86-D011-B42D-00C04FC964FF', '2024-01-01'), ('7A9619FF-8B86-D011-B42D-00C04FC964FF', '2024-01-02');
`)
	m, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := m.Table("sessions"); s.KeyIsNatural || len(s.NaturalKeys) > 0 {
		t.Errorf("sessions named by its GUID key: %v", s.NaturalKeys)
	}
}
