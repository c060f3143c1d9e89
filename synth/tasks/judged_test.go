package tasks

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// The rules below answer the judge's notes on the tasks `synth from-db`
// made for chinook, northwind, sakila, hr and airline (issue 28, items 4
// and 5).

// TestColumnWords: run-together and CamelCase column names read as words
// ("billingcity" → "billing city"), not as the schema spells them.
func TestColumnWords(t *testing.T) {
	for _, c := range []struct{ col, want string }{
		{"billingcity", "billing city"},
		{"BillingCity", "billing city"},
		{"invoicedate", "invoice date"},
		{"InvoiceDate", "invoice date"},
		{"reportsto", "reports to"},
		{"ReportsTo", "reports to"},
		{"SupportRepId", "support rep id"},
		{"QuantityPerUnit", "quantity per unit"},
		{"employeeterritory", "employee territory"},
		{"postal_code", "postal code"},
		{"price_cents", "price in cents"},
		{"city", "city"},
		{"tagline", "tagline"}, // not a word of the dictionary's: left whole
		{"HTMLTitle", "html title"},
		{"dob", "date of birth"},
		{"CustomerDesc", "customer description"},
		{"scheduled_departure_time_est", "scheduled departure time (EST)"},
		{"estimated_arrival_time_est", "estimated arrival time (EST)"},
		{"ShipPostalCode", "shipping postal code"},
		{"ShipVia", "ship via"},
		{"price_basic_economy", "basic economy price"},
		{"seats_economy", "economy seats"},
		{"state_province", "state or province"},
		{"membership", "membership"},
		{"shipname", "shipping name"},
		{"commission_pct", "commission percent"},
		// Issue 38: "set the opened on of the station".
		{"opened_on", "opening date"},
		{"shipped_at", "shipping time"},
		{"hired_on", "hiring date"},
		{"due_on", "due date"},
		{"born_on", "birth date"},
		{"expires_on", "expiry date"},
		{"starts_on", "start date"},
		{"ReportedOn", "reporting date"},
		{"created_at", "creation time"},
	} {
		if got := attrWords(c.col); got != c.want {
			t.Errorf("attrWords(%q) = %q, want %q", c.col, got, c.want)
		}
	}
	if got := noun(&dbmodel.Table{Name: "InvoiceLine"}); got != "invoice line" {
		t.Errorf("noun(InvoiceLine) = %q", got)
	}
	if got := plural(&dbmodel.Table{Name: "EmployeeTerritories"}); got != "employee territories" {
		t.Errorf("plural(EmployeeTerritories) = %q", got)
	}
}

// TestBookkeepingColumns: a "last update" stamp is neither asked for nor
// set by hand.
func TestBookkeepingColumns(t *testing.T) {
	for _, col := range []string{"last_update", "LastUpdate", "updated_at", "modified_date", "created_at", "seats_economy", "available_seats"} {
		if !incidental(col) {
			t.Errorf("incidental(%q) = false", col)
		}
	}
	tbl := &dbmodel.Table{Name: "address", Columns: []*dbmodel.Column{{Name: "address"}, {Name: "district"}, {Name: "last_update"}}}
	for _, c := range askable(tbl) {
		if c.Name == "last_update" {
			t.Error("askable lists last_update")
		}
	}
}

// TestDateAnswers: a datetime at midnight is matched by its date (a person
// writes "1996-11-22", not "1996-11-22 00:00:00.000"); a datetime with a
// time by the date and the hour and minute, whatever is between.
func TestDateAnswers(t *testing.T) {
	for _, c := range []struct {
		v       string
		right   []string
		wrong   []string
		literal string
	}{
		{"1996-11-22 00:00:00.000", []string{"It was required on 1996-11-22.", "1996-11-22 00:00:00.000", "November 22, 1996", "Nov. 22nd 1996", "22 November 1996", "11/22/1996"},
			[]string{"1996-11-21", "22/11/1996 maybe", "November 21, 1996", "122 November 1996", "1/22/1996"}, ""},
		{"1996-11-01", []string{"November 1, 1996", "1 Nov 1996", "1996-11-01", "11/01/1996"}, []string{"November 11, 1996", "11 November 1996", "11/11/1996"}, ""},
		{"2005-05-25 11:30:37", []string{"2005-05-25 at 11:30", "2005-05-25T11:30:37", "2005-05-25 11:30:37", "May 25, 2005 at 11:30 AM"}, []string{"2005-05-25 12:30", "2005-05-26 11:30", "May 26, 2005 at 11:30"}, ""},
		{"2005-05-25 14:05:00", []string{"May 25, 2005, 2:05 pm", "2005-05-25 14:05"}, []string{"May 25, 2005, 2:05 am", "May 25, 2005, 3:05 pm"}, ""},
	} {
		a := answerFor(c.v)
		for _, r := range append(c.right, a.Value) {
			if !accepts(t, a.Match, a.Value, r) {
				t.Errorf("%s %q rejects the right answer %q", a.Match, a.Value, r)
			}
		}
		for _, w := range c.wrong {
			if accepts(t, a.Match, a.Value, w) {
				t.Errorf("%s %q accepts the wrong answer %q", a.Match, a.Value, w)
			}
		}
		if c.literal != "" && a.Value != c.literal {
			t.Errorf("answerFor(%q).Value = %q, want %q", c.v, a.Value, c.literal)
		}
	}
}

// TestAccentFolding: a name stored with accents is found with them or
// without ("São Paulo", "Sao Paulo"), and another name is not.
func TestAccentFolding(t *testing.T) {
	for _, c := range []struct {
		v            string
		right, wrong []string
	}{
		{"São Paulo", []string{"São Paulo", "It is in Sao Paulo.", "SÃO PAULO"}, []string{"Santo André", "S Paulo"}},
		{"Forêts d'érables", []string{"Forets d'erables", "Forêts d’érables", "forêts d'érables"}, []string{"Forêts", "Forets de erables"}},
		{"Gonçalves (Jr.)", []string{"Luís Gonçalves (Jr.)", "goncalves (jr.)"}, []string{"Goncalves Jr"}},
	} {
		a := answerFor(c.v)
		for _, r := range append(c.right, a.Value) {
			if !accepts(t, a.Match, a.Value, r) {
				t.Errorf("%s %q rejects the right answer %q", a.Match, a.Value, r)
			}
		}
		for _, w := range c.wrong {
			if accepts(t, a.Match, a.Value, w) {
				t.Errorf("%s %q accepts the wrong answer %q", a.Match, a.Value, w)
			}
		}
	}
}

// TestNoEscapes: a value with a line break is not put in an instruction
// as a Go-quoted string with a literal "\n" (which the check, wanting the
// real line break, rejects when typed as written); it is not sayable.
func TestNoEscapes(t *testing.T) {
	if sayable("Obere Str. 57\nBerlin") {
		t.Error("a value with a line break is sayable")
	}
	for _, v := range []any{"Via Ludovico il Moro 22", `say "hi", please`, "plain"} {
		if s := show(v); strings.Contains(s, `\`) {
			t.Errorf("show(%q) = %q has a backslash", v, s)
		}
	}
}

// TestRoleWords: a reference named for a role says the role in words: the
// flights departing from an airport, not "the flight of the airport".
func TestRoleWords(t *testing.T) {
	flights := &dbmodel.Table{Name: "flights"}
	airports := &dbmodel.Table{Name: "airports"}
	mia := &entity{desc: "the airport MIA"}
	me := &entity{desc: "me", person: true}
	for _, c := range []struct{ got, want string }{
		{childDescVia(flights, "origin", airports, distinction{pre: "most recent "}, mia), "the most recent flight departing from the airport MIA"},
		{childDescVia(flights, "destination", airports, distinction{pre: "first "}, mia), "the first flight arriving at the airport MIA"},
		{childDescVia(flights, "airport_id", airports, distinction{only: true}, mia), "the flight of the airport MIA"},
		{childDescVia(&dbmodel.Table{Name: "store"}, "manager_staff_id", &dbmodel.Table{Name: "staff"}, distinction{only: true}, &entity{desc: "the staff member Mike Hillyer"}), "the store managed by the staff member Mike Hillyer"},
		{childDescVia(&dbmodel.Table{Name: "reservation_flights"}, "flight_number", flights, distinction{pre: "first "}, &entity{table: flights, desc: "flight HAT055"}), "the first reservation of flight HAT055"},
		{childDescVia(&dbmodel.Table{Name: "customers"}, "SupportRepId", &dbmodel.Table{Name: "employees"}, distinction{post: ` named "Ana"`}, me), `my customer named "Ana"`},
		{childDescVia(&dbmodel.Table{Name: "employees"}, "ReportsTo", &dbmodel.Table{Name: "employees"}, distinction{only: true}, mia), "the employee who reports to the airport MIA"},
		{childDescVia(&dbmodel.Table{Name: "Orders"}, "ShipVia", &dbmodel.Table{Name: "Shippers"}, distinction{only: true}, &entity{desc: `the shipper "Speedy Express"`}), `the order assigned to the shipper "Speedy Express"`},
		{howManyWith("employees", roleFor("ReportsTo", &dbmodel.Table{Name: "Employees"}), "me"), "How many employees report to me?"},
		{howManyWith("flights", roleFor("origin", airports), "the airport MIA"), "How many flights depart from the airport MIA?"},
		{howManyWith("customers", roleFor("SupportRepId", &dbmodel.Table{Name: "Employee"}), "me"), "How many customers have me as their support rep?"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestNoEcho: the attribute asked for is not one the instruction states
// ("the first name of the actor CARY MCCONAUGHEY"), nor the row's own name
// repeated ("the city of the city of ...").
func TestNoEcho(t *testing.T) {
	c := &chain{intro: "I'm Mike Hillyer (Mike.Hillyer@sakilastaff.com)."}
	actor := &entity{desc: `the actor "CARY MCCONAUGHEY"`}
	if !stated(c, actor, "CARY") {
		t.Error(`"CARY" is not seen as stated`)
	}
	if !stated(c, &entity{desc: "me", person: true}, "Mike") {
		t.Error(`"Mike" (in the intro) is not seen as stated`)
	}
	if stated(c, actor, "Lethbridge") {
		t.Error(`"Lethbridge" is seen as stated`)
	}
	city := &dbmodel.Table{Name: "city"}
	e := &entity{table: city, desc: "the city of the address of the staff member Mike Hillyer"}
	if got := of(attrWords("city"), e); got != "the city of the address of the staff member Mike Hillyer" {
		t.Errorf("of(city) = %q", got)
	}
}

// TestZeroCounts: a count or sum of 0 makes no task: a person answers
// "none" (which a number rule rejects, and which the gates try as a wrong
// answer), and a wrong hop gives 0 as well.
func TestZeroCounts(t *testing.T) {
	if _, err := countAnswer("0"); err != errDeadEnd {
		t.Errorf("countAnswer(0): err %v", err)
	}
	a, err := countAnswer("3")
	if err != nil || a.Value != "3" || a.Match != "number" {
		t.Errorf("countAnswer(3) = %+v, %v", a, err)
	}
}

// accepts applies an answer rule the way the runtime does.
func accepts(t *testing.T, match, want, got string) bool {
	t.Helper()
	switch match {
	case "contains":
		return strings.Contains(strings.ToLower(got), strings.ToLower(want))
	case "regex":
		re, err := regexp.Compile(want)
		if err != nil {
			t.Fatal(err)
		}
		return re.MatchString(got)
	}
	t.Fatalf("match %q", match)
	return false
}

// TestNamesPeopleUse: a row is not "named" by a postal code or by another
// row's name (an order's ShipName), a city's own name is not edited (other
// addresses share it), history rows are counted as entries, and a role
// cut short from its table's name ("payment" for a payment method) says
// the table's name.
func TestNamesPeopleUse(t *testing.T) {
	suppliers := &dbmodel.Table{Name: "Suppliers"}
	city := &dbmodel.Table{Name: "city", Columns: []*dbmodel.Column{{Name: "city"}, {Name: "country_id"}}}
	for _, c := range []struct{ got, want string }{
		{keyDesc(suppliers, "PostalCode", "10785"), "the supplier with postal code 10785"},
		{keyDesc(&dbmodel.Table{Name: "jobs"}, "job_code", "AC_ACCOUNT"), "job AC_ACCOUNT"},
		{plural(&dbmodel.Table{Name: "job_history"}), "job history entries"},
		{parentDesc("payment", &dbmodel.Table{Name: "payment_methods"}, &entity{desc: "the payment of reservation JT26GY"}), "the payment method of the payment of reservation JT26GY"},
		{nameWords(&dbmodel.Table{Name: "Orders"}, "ShipName", "Hungry Coyote"), `shipped to "Hungry Coyote"`},
		{nameWords(&dbmodel.Table{Name: "products"}, "ProductName", "Chai"), `"Chai"`},
		{nameWords(&dbmodel.Table{Name: "albums"}, "Title", "Facelift"), `"Facelift"`},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if !identity(city, "city") {
		t.Error("the city's own name is not an identity column")
	}
}

// TestSalaryBand: a new minimum stays at or under the row's maximum, and a
// new maximum at or over its minimum.
func TestSalaryBand(t *testing.T) {
	jobs := &dbmodel.Table{Name: "jobs", Columns: []*dbmodel.Column{{Name: "min_salary"}, {Name: "max_salary"}, {Name: "MinPrice"}}}
	row := map[string]any{"min_salary": json.Number("2000"), "max_salary": json.Number("5000")}
	for _, c := range []struct {
		col  string
		v    any
		want bool
	}{
		{"min_salary", int64(8200), false},
		{"min_salary", int64(3000), true},
		{"max_salary", int64(1500), false},
		{"max_salary", int64(9000), true},
		{"MinPrice", int64(10), true}, // no MaxPrice: nothing to hold
	} {
		if got := inBand(jobs, row, c.col, c.v); got != c.want {
			t.Errorf("inBand(%s, %v) = %v", c.col, c.v, got)
		}
	}
}

// TestJunctionRows: a link row (playlist_track) is skipped in the wording:
// "the playlist of the track X", not "the playlist of the playlist track
// of the track X"; and counted as the rows it links.
func TestJunctionRows(t *testing.T) {
	pt := &dbmodel.Table{Name: "playlist_track", PrimaryKey: []string{"PlaylistId", "TrackId"},
		ForeignKeys: []dbmodel.ForeignKey{{Columns: []string{"PlaylistId"}, RefTable: "playlist", RefColumns: []string{"PlaylistId"}},
			{Columns: []string{"TrackId"}, RefTable: "track", RefColumns: []string{"TrackId"}}}}
	cur := &entity{table: pt, desc: childDesc(pt, distinction{only: true}, &entity{table: &dbmodel.Table{Name: "track"}, desc: `the track named "The Worm"`})}
	if got, want := parentDesc("playlist", &dbmodel.Table{Name: "playlist"}, cur), `the playlist of the track named "The Worm"`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := linked(pt, "TrackId"); got != "playlist" {
		t.Errorf("linked(playlist_track, TrackId) = %q", got)
	}
	if got := linked(&dbmodel.Table{Name: "orders", PrimaryKey: []string{"id"}}, "customer_id"); got != "" {
		t.Errorf("linked(orders) = %q", got)
	}
}

// TestPlaceHops: an address or location reached from its owner is left
// out of the wording: "the city of the staff member Mike", "my postal
// code".
func TestPlaceHops(t *testing.T) {
	address := &dbmodel.Table{Name: "address"}
	mike := &entity{table: address, desc: `the address of the staff member "Mike"`}
	mine := &entity{table: address, desc: "my address"}
	for _, c := range []struct{ got, want string }{
		{parentDesc("city", &dbmodel.Table{Name: "city"}, mike), `the city of the staff member "Mike"`},
		{parentDesc("city", &dbmodel.Table{Name: "city"}, mine), "my city"},
		{of("postal code", mike), `the postal code of the staff member "Mike"`},
		{of("phone", mine), "my phone"},
		{of("district", &entity{table: address, desc: `the address "47 MySakila Drive"`}), `the district of the address "47 MySakila Drive"`},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestOwnDetails: a user is not asked for their own address, names or
// birth date; what they may not know (a membership, a support rep's
// title) stays askable.
func TestOwnDetails(t *testing.T) {
	for _, c := range []struct {
		col  string
		want bool
	}{
		{"Address", true}, {"address1", true}, {"LastName", true}, {"BirthDate", true}, {"dob", true}, {"PostalCode", true}, {"HomePhone", true},
		{"membership", false}, {"salary", false}, {"commission_pct", false}, {"Title", false},
		{"ContactTitle", true}, // a contact knows their own title at the company
	} {
		if got := personalDetail(c.col); got != c.want {
			t.Errorf("personalDetail(%q) = %v", c.col, got)
		}
	}
}

// TestRowsByRole: the rows that refer to a row through a role column are
// named by the role: "the employees who report to the employee Nancy
// Edwards", not "the employees of the employee Nancy Edwards".
func TestRowsByRole(t *testing.T) {
	emp := &dbmodel.Table{Name: "Employee"}
	nancy := &entity{table: emp, desc: "the employee Nancy Edwards"}
	me := &entity{table: emp, desc: "me", person: true}
	for _, c := range []struct{ got, want string }{
		{rowsOf("employees", "ReportsTo", nancy), "the employees who report to the employee Nancy Edwards"},
		{rowsOf("customers", "SupportRepId", me), "my customers"},
		{rowsOf("invoices", "EmployeeId", nancy), "the invoices of the employee Nancy Edwards"},
		{rowsOf("payments", "staff_id", &entity{table: &dbmodel.Table{Name: "staff"}, desc: "the staff member Mike"}), "the payments of the staff member Mike"},
		{rowsOf("payments", "payment_id", &entity{table: &dbmodel.Table{Name: "payment_methods"}, desc: "my gift card"}), "the payments of my gift card"},
		{rowsOf("reservations", "origin", &entity{table: &dbmodel.Table{Name: "airports"}, desc: "the airport with IATA MIA"}), "the reservations departing from the airport with IATA MIA"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestNumbersStoredAsText: a number a column stores as text (a capacity
// "33000", a minute "52", worldcup judged round 5: "33,000" and "the 52nd
// minute" were rejected) gets a number rule, which reads them as the
// runtime's TestAnswersCannotBeGamed shows ("$1,234.50" is 1234.5,
// 378150 is not 37815). A code with a leading zero ("086", an M49 code)
// stays a code: "86" is not it.
func TestNumbersStoredAsText(t *testing.T) {
	for _, v := range []string{"33000", "52", "0.99"} {
		if a := answerFor(v); a.Match != "number" || a.Value != v {
			t.Errorf("answerFor(%q) = %s %q, want number %q", v, a.Match, a.Value, v)
		}
	}
	a := answerFor("086")
	for got, ok := range map[string]bool{"086": true, "Its code is 086.": true, "86": false, "0860": false} {
		if accepts(t, a.Match, a.Value, got) != ok {
			t.Errorf("%s %q on %q: passes %v", a.Match, a.Value, got, !ok)
		}
	}
}
