package tasks

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Values a write puts in a row agree with the row's other columns. The
// parts of an address move together: a new state comes from a row in the
// same country, with that row's city, postal code and street ("I moved"),
// never a Brazilian customer's state set to NY alone. A phone number comes
// from a row in the same country. A number is corrected by a small step
// from its old value (a salary 5500 → 5700), not replaced by another row's
// (a clerk's salary band set to a president's).

// Levels of an address, from the widest; phone is apart.
const (
	levelCountry = iota
	levelState
	levelCity
	levelPostal
	levelStreet
	levelPhone
	levelNone = -1
)

// placeLevel is the part of an address col holds, and the words before
// it ("billing" for BillingCity, "shipping" for ShipCity): the columns of
// one address share them.
func placeLevel(col string) (int, string) {
	ws := strings.Fields(words(col))
	if slices.Contains(ws, "2") {
		return levelNone, "" // a second address line ("Suite 731") is the user's own
	}
	for i, w := range ws {
		lvl := levelNone
		switch {
		case w == "country":
			lvl = levelCountry
		case w == "state" || w == "region" || w == "province" || w == "county":
			lvl = levelState
		case w == "city" || w == "town":
			lvl = levelCity
		case w == "postal" || w == "zip" || w == "postcode" || w == "district":
			lvl = levelPostal
		case w == "street" || w == "address" || w == "address1":
			lvl = levelStreet
		case w == "phone" || w == "fax":
			lvl = levelPhone
		}
		if lvl != levelNone {
			return lvl, strings.Join(ws[:i], " ")
		}
	}
	return levelNone, ""
}

// placeCols are the columns of t in the same address as col (col
// included), by level; references count (a city_id) as parts to agree on.
func placeCols(t *dbmodel.Table, col string) map[string]int {
	_, prefix := placeLevel(col)
	out := map[string]int{}
	for _, c := range t.Columns {
		if lvl, p := placeLevel(c.Name); lvl != levelNone && p == prefix {
			out[c.Name] = lvl
		}
	}
	return out
}

// placeValues draws the new values for a change to col of row: from
// another row that agrees with row on the wider parts of the address, the
// parts from col's level down to the street (or the phone alone). It
// returns the columns to set with their values, nil when col is not part
// of an address of two parts or more, and errDeadEnd when no row agrees.
// settable says which columns the update tool can set.
func (w *walker) placeValues(t *dbmodel.Table, row map[string]any, col string, settable func(string) bool) (map[string]any, []string, error) {
	lvl, prefix := placeLevel(col)
	if lvl == levelPhone {
		return nil, nil, nil // a new number of the same format (newNumber)
	}
	if prefix == "billing" {
		// An invoice's billing address is a record of where it was
		// billed, not an address that moves.
		return nil, nil, errDeadEnd
	}
	group := placeCols(t, col)
	parts, countries := 0, 0
	for _, l := range group {
		if l != levelPhone {
			parts++
		}
		if l == levelCountry {
			countries++
		}
	}
	if lvl == levelNone || lvl != levelPhone && parts < 2 || lvl == levelPhone && countries == 0 {
		return nil, nil, nil // a lone city, a phone with no country: nothing to agree with
	}
	var agree, set []string
	for c, l := range group {
		switch {
		case lvl == levelPhone && l == levelCountry,
			lvl != levelPhone && l < lvl:
			agree = append(agree, c)
		case c == col,
			lvl != levelPhone && l >= lvl && l != levelPhone && settable(c) && row[c] != nil:
			set = append(set, c)
		}
	}
	if len(agree) == 0 && lvl != levelPhone && lvl != levelCountry {
		return nil, nil, errDeadEnd // nothing to agree on: a lone city would be a guess
	}
	// The order an address is written in: street, city, state, postal
	// code, country.
	sortByLevel(set, group)
	q := dbmodel.Quote
	var where []string
	var args []any
	for _, c := range agree {
		where = append(where, q(c)+" IS ?")
		args = append(args, sqlValue(row[c]))
	}
	where = append(where, q(col)+" IS NOT ?")
	args = append(args, sqlValue(row[col]))
	var sel []string
	for _, c := range set {
		sel = append(sel, q(c))
		where = append(where, q(c)+" IS NOT NULL")
	}
	from := fmt.Sprintf(`FROM %s WHERE %s`, q(t.Name), strings.Join(where, " AND "))
	n, err := dbmodel.QueryInt64(w.src, "SELECT COUNT(*) "+from, args...)
	if err != nil || n == 0 {
		return nil, nil, errDeadEnd
	}
	stmt, _, err := w.src.Prepare(fmt.Sprintf(`SELECT %s %s LIMIT 1 OFFSET ?`, strings.Join(sel, ", "), from))
	if err != nil {
		return nil, nil, err
	}
	defer stmt.Close()
	for i, a := range args {
		if err := dbmodel.Bind(stmt, i+1, a); err != nil {
			return nil, nil, err
		}
	}
	stmt.BindInt64(len(args)+1, w.rng.Int64N(n))
	if !stmt.Step() {
		return nil, nil, errDeadEnd
	}
	out := map[string]any{}
	for i, c := range set {
		v := dbmodel.ColumnValue(stmt, i)
		if !sayable(v) {
			return nil, nil, errDeadEnd
		}
		out[c] = v
	}
	return out, set, nil
}

// writtenOrder ranks the levels as an address is written.
var writtenOrder = map[int]int{levelStreet: 0, levelCity: 1, levelState: 2, levelPostal: 3, levelCountry: 4, levelPhone: 5}

func sortByLevel(cols []string, lvl map[string]int) {
	rank := func(c string) int { return writtenOrder[lvl[c]] }
	for i := 1; i < len(cols); i++ {
		for j := i; j > 0 && (rank(cols[j]) < rank(cols[j-1]) || rank(cols[j]) == rank(cols[j-1]) && cols[j] < cols[j-1]); j-- {
			cols[j], cols[j-1] = cols[j-1], cols[j]
		}
	}
}

func placeLevelOf(col string) int {
	l, _ := placeLevel(col)
	return l
}

// newNumber is a phone or fax number like old with its last four digits
// drawn anew: the same country code, area and punctuation
// ("+1 (403) 262-3443" → "+1 (403) 262-5817"). ok is false for a value
// with fewer than six digits.
func (w *walker) newNumber(old any) (string, bool) {
	s, ok := sqlValue(old).(string)
	if !ok {
		return "", false
	}
	rs := []rune(s)
	digits := 0
	for _, r := range rs {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	if digits < 6 {
		return "", false
	}
	for range 4 {
		out := slices.Clone(rs)
		changed, left := false, 4
		for i := len(out) - 1; i >= 0 && left > 0; i-- {
			if out[i] >= '0' && out[i] <= '9' {
				d := rune('0' + w.rng.IntN(10))
				changed = changed || d != out[i]
				out[i] = d
				left--
			}
		}
		if changed {
			return string(out), true
		}
	}
	return "", false
}

// nudge corrects a number by a small step from its old value: a tenth of
// its order of magnitude from the old value rounded to that step (5500 →
// 5600, 2008 → 2300, 48 → 47, 0.15 → 0.2, 4.99 → 5.5), one to three steps
// up or down, never to 0 or below. ok is false
// for a value that is not a number.
func (w *walker) nudge(old any, integer bool) (any, bool) {
	f, err := strconv.ParseFloat(fmt.Sprint(sqlValue(old)), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f <= 0 {
		return nil, false
	}
	mag := math.Pow(10, math.Floor(math.Log10(f)))
	step := mag / 10
	if !integer {
		step = mag / 2
	}
	if integer {
		step = math.Max(1, step)
	}
	k := float64(1 + w.rng.IntN(3))
	base := math.Round(f/step) * step // 2008 → 2000: a corrected value is round
	if w.rng.IntN(2) == 0 && base-k*step > 0 {
		k = -k
	}
	v := base + k*step
	if v == f {
		v += step
	}
	if integer {
		return int64(math.Round(v)), true
	}
	// Rounded to the step's decimals, so 0.15 + 0.05 is 0.2, not 0.2000001.
	dec := max(0, int(-math.Floor(math.Log10(step)))+1)
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', dec, 64), 64)
	return r, true
}

// measured: a number measured from the thing itself (a track's length in
// milliseconds, a file's size): not something anyone corrects by hand.
func measured(col string) bool {
	l := strings.ToLower(col)
	return dbmodel.ContainsAny(l, "millisecond", "bytes", "duration", "length", "size", "weight")
}
