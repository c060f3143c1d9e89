package tasks

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// Names a row goes by: a natural key as a person says it ("order 10248",
// "LAS airport", "the supplier with contact Shelley Burke"), a row's own
// name after its noun, and a schedule's day ("flight HAT093 on
// 2024-05-13").

// nameWords tells a row by a name or title column: the quoted name for
// the row's own name ("name", "ProductName", "title": the track "X"),
// "named X" for a person's first or last name, and "with ship name X" for
// a name that belongs to something else (an order's ShipName: the order
// is not called that).
func nameWords(t *dbmodel.Table, col, v string) string {
	w := words(col)
	own := strings.TrimPrefix(strings.TrimPrefix(w, noun(t)+" "), "full ")
	switch own {
	case "shipping name":
		// An order's ShipName is who it goes to: "the order shipped to
		// "Hungry Coyote"", not "with ship name".
		return "shipped to " + quoted(v)
	case "title", "name":
		// The row's own name follows its noun, as people write it: the
		// track "Fast As a Shark" (judged round 3: "the track named ...
		// of the genre ..." read stiffly).
		return quoted(v)
	case "first name", "last name", "given name":
		return "named " + quoted(v)
	}
	return "with " + w + " " + quoted(v)
}

// keyDesc names a row by one natural key: "order ORD-10037", the product
// "Desk Lamp", the customer with email ana@x.org.
func keyDesc(t *dbmodel.Table, col string, v any) string {
	l := strings.ToLower(col)
	s := fmt.Sprint(sqlValue(v))
	n := noun(t)
	switch {
	case strings.Contains(l, "email"):
		return "the " + n + " with email " + s
	case strings.Contains(l, "phone"):
		return "the " + n + " with phone number " + s
	case strings.HasPrefix(words(col), "contact ") && strings.Contains(l, "name"):
		// A ContactName is a person at the company the row is, not the
		// company's name; "whose contact name is" was read as schema talk
		// (judged round 3). A customer that is a company is that
		// person's company; another row keeps its noun up front (a
		// relative clause ending in "works at" meets "... has").
		if n == "customer" {
			return possessive(s) + " company"
		}
		return "the " + n + " with contact " + s
	case strings.HasPrefix(words(col), "contact "):
		return "the " + n + " whose " + words(col) + " is " + s
	case l == "iata" || l == "icao" || l == "iata_code" || l == "icao_code":
		// "LAS airport", not "the airport with IATA LAS".
		return s + " " + n
	case unnatural(l):
		// A postal code is not a name: "the supplier with postal code
		// 10785", never "supplier 10785".
		return "the " + n + " with " + attrWords(col) + " " + s
	case l == "sku" || l == "isbn" || l == "upc" || l == "ean" || l == "vin":
		return "the " + n + " with " + strings.ToUpper(l) + " " + s
	case strings.HasSuffix(l, "number") || strings.HasSuffix(l, "_no") || strings.HasSuffix(l, "code") || strings.HasSuffix(l, "_ref") || strings.ReplaceAll(l, "_", "") == strings.ToLower(t.Singular())+"id":
		return n + " " + s
	case strings.Contains(l, "name") || strings.Contains(l, "title") || col == t.Label:
		return "the " + n + " " + quoted(s)
	}
	return "the " + n + " whose " + attrWords(col) + " is " + show(v)
}

// possessive is "Maria Larsson's", "Rene Phillips'".
func possessive(s string) string {
	if strings.HasSuffix(s, "s") {
		return s + "'"
	}
	return s + "'s"
}

// dayColumn is the date column of a schedule's key other than fkCol ("" if
// none).
func dayColumn(t *dbmodel.Table, fkCol string) string {
	for _, k := range t.PrimaryKey {
		if k != fkCol && dateName(k) && t.ForeignKeyOf(k) == nil {
			return k
		}
	}
	return ""
}

// scheduleDay is the day that names row of a schedule keyed by its parent
// and a date ("2024-05-13"), or "".
func scheduleDay(t *dbmodel.Table, fkCol string, row map[string]any) string {
	if len(t.PrimaryKey) != 2 || !slices.Contains(t.PrimaryKey, fkCol) {
		return ""
	}
	if n := noun(t); n != "date" && !strings.HasSuffix(n, " date") {
		return "" // a table of days (flight_dates), not a history keyed by its start
	}
	k := dayColumn(t, fkCol)
	if k == "" {
		return ""
	}
	v, ok := sqlValue(row[k]).(string)
	if !ok || !calendarDate(v) {
		return ""
	}
	if day, ok := midnight(v); ok {
		return day
	}
	return v
}
