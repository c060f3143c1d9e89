package tasks

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"slices"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// The rules below answer the second judgement of the shipped corpus
// environments (issue 28: naturalness 2.98 of 5).

// TestRelationHops: a row's description is counted in relations, names
// in quotes left out; a row two relations away is introduced in a
// sentence of its own and then named as "that X".
func TestRelationHops(t *testing.T) {
	for _, c := range []struct {
		desc string
		want int
	}{
		{"me", 0},
		{`the artist "Academy of St. Martin in the Fields"`, 0},
		{"the customer of invoice 64", 1},
		{"my first reservation", 0},
		{"the only payment of my first reservation", 1},
		{"the reservations of the user of the most recent reservation arriving at the airport with IATA JFK", 3},
		{`the customer named "Luís" with me as their support rep`, 1},
		{"the employees who report to the employee Nancy Edwards", 1},
		{"the title of the job of my first job history", 2},
	} {
		if got := hops(c.desc); got != c.want {
			t.Errorf("hops(%q) = %d, want %d", c.desc, got, c.want)
		}
	}
	res := &dbmodel.Table{Name: "reservations"}
	pay := &dbmodel.Table{Name: "payments"}
	p := &entity{table: res, desc: "the first reservation of the user Raj Sanchez"}
	d := distinction{only: true}
	cur := &entity{table: pay, parent: p, desc: childDescVia(pay, "reservation_id", res, d, p),
		redo: func(q *entity) string { return childDescVia(pay, "reservation_id", res, d, q) }}
	w := &walker{rng: rand.New(rand.NewPCG(1, 2))}
	ctx := w.splitContext(cur)
	if ctx == "" || cur.desc != "the payment of that reservation" {
		t.Errorf("split: context %q, desc %q", ctx, cur.desc)
	}
	if hops(ctx) != 1 {
		t.Errorf("context %q names the reservation through %d relations", ctx, hops(ctx))
	}
}

// TestOwnThingsOnly: a user speaking as themselves does not change their
// support rep, their job or (as an employee) their own record.
func TestOwnThingsOnly(t *testing.T) {
	w := &walker{}
	jobs := &dbmodel.Table{Name: "jobs"}
	emp := &dbmodel.Table{Name: "employees"}
	for _, c := range []struct {
		name string
		c    *chain
		cur  *entity
	}{
		{"my job", &chain{me: true}, &entity{table: jobs, desc: "my job"}},
		{"myself at work", &chain{me: true}, &entity{table: emp, desc: "me", person: true, mine: true}},
		{"a customer's support rep", &chain{entities: []*entity{{table: &dbmodel.Table{Name: "customers"}, desc: "the customer Ana"}, {table: emp}}},
			&entity{table: emp, desc: "the support rep of the customer Ana"}},
	} {
		if _, _, err := w.finishWrite(c.c, c.cur); err != errDeadEnd {
			t.Errorf("%s: err %v, want a dead end", c.name, err)
		}
	}
	if !worker(emp) || worker(&dbmodel.Table{Name: "customers"}) {
		t.Error("worker() misreads employees or customers")
	}
}

// TestAddressLevels: the parts of an address are told apart, with the
// words that say whose address it is (BillingCity, ShipPostalCode).
func TestAddressLevels(t *testing.T) {
	for _, c := range []struct {
		col    string
		level  int
		prefix string
	}{
		{"country", levelCountry, ""},
		{"BillingState", levelState, "billing"},
		{"ShipPostalCode", levelPostal, "shipping"},
		{"state_province", levelState, ""},
		{"street_address", levelStreet, ""},
		{"address1", levelStreet, ""},
		{"address2", levelNone, ""},
		{"Phone", levelPhone, ""},
		{"hire_date", levelNone, ""},
	} {
		if l, p := placeLevel(c.col); l != c.level || p != c.prefix {
			t.Errorf("placeLevel(%q) = %d %q, want %d %q", c.col, l, p, c.level, c.prefix)
		}
	}
}

// TestNudge: a number is corrected by one to three tenths of its order of
// magnitude, never to 0 or below (a clerk's 5500 is not set to a
// president's 20080).
func TestNudge(t *testing.T) {
	w := &walker{rng: rand.New(rand.NewPCG(3, 4))}
	for range 200 {
		v, ok := w.nudge(json.Number("5500"), true)
		if n := v.(int64); !ok || n == 5500 || n < 5200 || n > 5800 {
			t.Fatalf("nudge(5500) = %v", v)
		}
		v, _ = w.nudge(json.Number("0.15"), false)
		if f := v.(float64); f <= 0 || f > 0.3 || f == 0.15 {
			t.Fatalf("nudge(0.15) = %v", v)
		}
		v, _ = w.nudge(json.Number("3"), true)
		if n := v.(int64); n <= 0 || n > 6 || n == 3 {
			t.Fatalf("nudge(3) = %v", v)
		}
	}
	if _, ok := w.nudge("n/a", false); ok {
		t.Error("nudged text")
	}
	if !measured("Milliseconds") || measured("salary") {
		t.Error("measured() misreads")
	}
}

// TestActions: flags and declared statuses are changed by the action's
// name, not "set the active of X to no".
func TestActions(t *testing.T) {
	active := &dbmodel.Column{Name: "active", Bool: true}
	disc := &dbmodel.Column{Name: "is_discontinued", Bool: true}
	status := &dbmodel.Column{Name: "status", Enum: []string{"pending", "shipped", "cancelled"}}
	size := &dbmodel.Column{Name: "size", Enum: []string{"S", "M"}}
	guessed := &dbmodel.Column{Name: "status", Enum: []string{"pending", "shipped"}, EnumInferred: true}
	for _, c := range []struct{ got, want string }{
		{action(active, "the customer KAREN", int64(0)), "deactivate the customer KAREN"},
		{action(active, "my account", int64(1)), "reactivate my account"},
		{action(disc, `the product "Chai"`, int64(1)), `mark the product "Chai" as discontinued`},
		{action(disc, `the product "Chai"`, int64(0)), `mark the product "Chai" as no longer discontinued`},
		{action(status, "order ORD-1", "cancelled"), "cancel order ORD-1"},
		{action(status, "it", "shipped"), "mark it as shipped"},
		{action(status, "it", "pending"), ""},
		{action(size, "it", "M"), ""},
		{action(guessed, "it", "shipped"), ""},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestPlainerNames: a row that only links two others is left out ("the
// film of rental 586"); a supplier is not named by its contact person as
// if it were the supplier's name; the shipper of an order is its shipper,
// not its "ship via"; sums are of numbers that add up, without float
// noise.
func TestPlainerNames(t *testing.T) {
	inv := &dbmodel.Table{Name: "inventory", PrimaryKey: []string{"inventory_id"}, Columns: []*dbmodel.Column{{Name: "inventory_id"}, {Name: "film_id"}, {Name: "store_id"}, {Name: "last_update"}},
		ForeignKeys: []dbmodel.ForeignKey{{Columns: []string{"film_id"}, RefTable: "film", RefColumns: []string{"film_id"}}, {Columns: []string{"store_id"}, RefTable: "store", RefColumns: []string{"store_id"}}}}
	for _, c := range []struct{ got, want string }{
		{parentDesc("film", &dbmodel.Table{Name: "film"}, &entity{table: inv, desc: "the inventory of rental 586"}), "the film of rental 586"},
		{keyDesc(&dbmodel.Table{Name: "Suppliers"}, "ContactName", "Cheryl Saylor"), "the supplier with contact Cheryl Saylor"},
		{keyDesc(&dbmodel.Table{Name: "Customers"}, "ContactName", "Rene Phillips"), "Rene Phillips' company"},
		{keyDesc(&dbmodel.Table{Name: "airports"}, "iata", "LAS"), "LAS airport"},
		{parentDesc("ship_via", &dbmodel.Table{Name: "Shippers"}, &entity{desc: "order 10353"}), "the shipper of order 10353"},
		{number(20.790000000000003, false), "20.79"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for col, want := range map[string]bool{"Freight": true, "UnitPrice": false, "ReorderLevel": false, "Discount": false, "commission_pct": false, "Milliseconds": false, "total_cents": true, "Quantity": true, "salary": true} {
		if additive(col) != want {
			t.Errorf("additive(%q) = %v", col, !want)
		}
	}
}

// TestNotAskedNotSet: a password is not read out; a user is not asked
// what their own city is called; a composer is not replaced by another
// track's; a method of payment is not "the method of that payment".
func TestNotAskedNotSet(t *testing.T) {
	staff := &dbmodel.Table{Name: "staff", Columns: []*dbmodel.Column{{Name: "first_name"}, {Name: "password"}}}
	for _, c := range askable(staff) {
		if c.Name == "password" {
			t.Error("a password is askable")
		}
	}
	if secret("ShipPostalCode") || !secret("password_hash") {
		t.Error("secret() misreads")
	}
	if !myPlace(&entity{table: &dbmodel.Table{Name: "city"}, desc: "my city"}) || myPlace(&entity{table: &dbmodel.Table{Name: "city"}, desc: "the city of rental 5"}) {
		t.Error("myPlace() misreads")
	}
	if !maker("Composer") || maker("UnitPrice") {
		t.Error("maker() misreads")
	}
	pay := &dbmodel.Table{Name: "payments"}
	if got, want := parentDesc("payment", &dbmodel.Table{Name: "payment_methods"}, &entity{table: pay, desc: "that payment"}), "the payment method of that payment"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCodesAndTimes: a short code is matched as written ("IN" is not the
// word "in"); a question about a time accepts the time alone; a time of
// day names no "first" row.
func TestCodesAndTimes(t *testing.T) {
	a := answerFor("IN")
	if !accepts(t, a.Match, a.Value, "The state is IN.") || accepts(t, a.Match, a.Value, "She lives in Texas.") {
		t.Errorf("code rule %q", a.Value)
	}
	a = timeAnswer("estimated_arrival_time_est", "2024-05-16 02:04:00")
	if a == nil {
		t.Fatal("no time rule")
	}
	for _, r := range []string{"02:04", "It arrives at 2:04 AM.", a.Value} {
		if !accepts(t, a.Match, a.Value, r) {
			t.Errorf("time rule %q rejects %q", a.Value, r)
		}
	}
	for _, w := range []string{"12:04", "2:04 pm", "03:04"} {
		if accepts(t, a.Match, a.Value, w) {
			t.Errorf("time rule %q accepts %q", a.Value, w)
		}
	}
	if timeAnswer("created_date", "2024-05-16 02:04:00") != nil {
		t.Error("a date column got a time rule")
	}
	if calendarDate("13:00:00") || !calendarDate("2024-05-15") {
		t.Error("calendarDate misreads")
	}
}

// TestFlagColumns: a 0/1 column named for a state, not declared a
// boolean (Northwind's Discontinued), is changed as a flag too.
func TestFlagColumns(t *testing.T) {
	disc := &dbmodel.Column{Name: "Discontinued", Kind: dbmodel.Integer, Distinct: 2}
	if got, want := action(disc, `the product "Chai"`, int64(1)), `mark the product "Chai" as discontinued`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := action(&dbmodel.Column{Name: "has_whiteboard", Bool: true}, `the room "Delta"`, int64(0)), `note that the room "Delta" no longer has a whiteboard`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := action(&dbmodel.Column{Name: "ReorderLevel", Kind: dbmodel.Integer, Distinct: 7}, "it", int64(1)); got != "" {
		t.Errorf("a level read as a flag: %q", got)
	}
}

// TestInternalIDs: an id made of words and a number is not where a
// request starts (no one finds a person by their card's id).
func TestInternalIDs(t *testing.T) {
	for s, want := range map[string]bool{"gift_card_4343305": true, "credit_card_9588108": true, "chen_nguyen_2677": true, "ORD-10037": false, "HAT089": false, "Desk Lamp": false} {
		if slugID.MatchString(s) != want {
			t.Errorf("slugID(%q) = %v", s, !want)
		}
	}
	if !codeNamed(&entity{table: &dbmodel.Table{Name: "countries", PrimaryKey: []string{"country_id"}}, namedBy: "country_id", row: map[string]any{"country_id": "BR"}}) {
		t.Error("country BR is not seen as named by a code")
	}
	if !wordIn("Pâté chinois", `Which of the products of the supplier of the product "Pâté chinois" is cheapest?`) || wordIn("Tea", "Steam") {
		t.Error("wordIn misreads")
	}
}

// TestRowOfItsParent: a row whose table is named for its parent's
// ("reservation_flights" of a reservation) is "the flight of reservation
// X"; a birth date is a date (corrected, never "changed recently") but
// names no "earliest" row.
func TestRowOfItsParent(t *testing.T) {
	rf := &dbmodel.Table{Name: "reservation_flights"}
	res := &entity{table: &dbmodel.Table{Name: "reservations"}, desc: "reservation YMEGUM"}
	if got, want := childDesc(rf, distinction{only: true}, res), "the flight of reservation YMEGUM"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	flight := &entity{table: &dbmodel.Table{Name: "flights"}, desc: "flight HAT146"}
	if got, want := childDesc(rf, distinction{pre: "earliest "}, flight), "the earliest reservation of flight HAT146"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if !dateName("dob") {
		t.Error("dob is not a date")
	}
	for _, c := range namingColumns(&dbmodel.Table{Name: "passengers", Columns: []*dbmodel.Column{{Name: "dob", Kind: dbmodel.Text}, {Name: "BirthDate", Kind: dbmodel.Text}}}) {
		t.Errorf("%s names a passenger", c.Name)
	}
}

// TestPeopleByName: a person speaking by their contact name says who they
// are and where from; a person among siblings is named in full; a
// customer does not set prices.
func TestPeopleByName(t *testing.T) {
	cust := &dbmodel.Table{Name: "Customers", Columns: []*dbmodel.Column{{Name: "ContactName", Kind: dbmodel.Text}, {Name: "CompanyName", Kind: dbmodel.Text}}}
	if got := companyOf(cust, map[string]any{"CompanyName": "Ernst Handel"}); got != "Ernst Handel" {
		t.Errorf("companyOf = %q", got)
	}
	for col, want := range map[string]bool{"Freight": true, "UnitPrice": true, "ShipCity": false, "status": false} {
		if money(col) != want {
			t.Errorf("money(%q) = %v", col, !want)
		}
	}
}

// TestSnakeValues: "basic_economy" is a right answer said as "basic
// economy"; "economy" alone is not.
func TestSnakeValues(t *testing.T) {
	a := answerFor("basic_economy")
	for _, r := range []string{"basic_economy", "It is basic economy.", "Basic-Economy", a.Value} {
		if !accepts(t, a.Match, a.Value, r) {
			t.Errorf("%q rejects %q", a.Value, r)
		}
	}
	for _, w := range []string{"economy", "business"} {
		if accepts(t, a.Match, a.Value, w) {
			t.Errorf("%q accepts %q", a.Value, w)
		}
	}
}

// TestNewNumber: a new phone number keeps the old one's format, country
// code and area, and differs in its last digits.
func TestNewNumber(t *testing.T) {
	w := &walker{rng: rand.New(rand.NewPCG(7, 8))}
	for range 50 {
		v, ok := w.newNumber("+1 (403) 262-3443")
		if !ok || v == "+1 (403) 262-3443" || len(v) != len("+1 (403) 262-3443") || v[:11] != "+1 (403) 26" {
			t.Fatalf("newNumber = %q, %v", v, ok)
		}
	}
	if _, ok := w.newNumber("12"); ok {
		t.Error("a two-digit value got a new number")
	}
}

// TestSharedRows: a job, a calendar or a location other rows share is not
// changed through one of them ("the max salary of the job of the employee
// X" changes every holder's job); a person reached that way is someone of
// their own, and a job only one employee holds is theirs to change.
func TestSharedRows(t *testing.T) {
	db, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(`CREATE TABLE jobs (job_id TEXT PRIMARY KEY, max_salary INTEGER);
		CREATE TABLE employees (employee_id INTEGER PRIMARY KEY, job_id TEXT REFERENCES jobs, manager_id INTEGER);
		INSERT INTO jobs VALUES ('CLERK', 5000), ('PRES', 40000);
		INSERT INTO employees VALUES (1, 'PRES', NULL), (2, 'CLERK', 1), (3, 'CLERK', 1);`); err != nil {
		t.Fatal(err)
	}
	w := &walker{src: db}
	jobs := &dbmodel.Table{Name: "jobs", PrimaryKey: []string{"job_id"}}
	emp := &dbmodel.Table{Name: "employees", PrimaryKey: []string{"employee_id"}}
	for _, c := range []struct {
		name string
		e    *entity
		want bool
	}{
		{"a clerk's job", &entity{table: jobs, via: "job_id", parent: &entity{table: emp}, row: map[string]any{"job_id": "CLERK"}}, true},
		{"the president's job", &entity{table: jobs, via: "job_id", parent: &entity{table: emp}, row: map[string]any{"job_id": "PRES"}}, false},
		{"a manager", &entity{table: emp, via: "manager_id", parent: &entity{table: emp}, row: map[string]any{"employee_id": json.Number("1")}}, false},
	} {
		if shared, err := w.sharedPlace(c.e); err != nil || shared != c.want {
			t.Errorf("%s: shared %v, %v", c.name, shared, err)
		}
	}
}

// TestMidnightDates: a date stored at midnight is asked for as the date,
// and the check takes either form; another date fails it.
func TestMidnightDates(t *testing.T) {
	db, err := sqlite3.Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Exec(`CREATE TABLE employees (id INTEGER PRIMARY KEY, birth_date TEXT); INSERT INTO employees VALUES (1, '1980-01-01 00:00:00')`); err != nil {
		t.Fatal(err)
	}
	tbl := &dbmodel.Table{Name: "employees", PrimaryKey: []string{"id"}, Columns: []*dbmodel.Column{{Name: "id", Kind: dbmodel.Integer}, {Name: "birth_date", Kind: dbmodel.Text}}}
	ch := change{table: tbl, kind: "update", row: map[string]any{"id": json.Number("1")}, cols: map[string]any{"birth_date": "1973-07-01 00:00:00"}}
	for v, want := range map[string]int64{"1973-07-01 00:00:00": 1, "1973-07-01": 1, "1973-07-02": 0, "1980-01-01 00:00:00": 0} {
		if err := db.Exec(`UPDATE employees SET birth_date = '` + v + `' WHERE id = 1`); err != nil {
			t.Fatal(err)
		}
		got, err := dbmodel.QueryInt64(db, "SELECT "+ch.target())
		if err != nil || got != want {
			t.Errorf("birth date %s: check %d, %v; want %d", v, got, err, want)
		}
	}
	if d, ok := midnight("1973-07-01 00:00:00"); !ok || d != "1973-07-01" {
		t.Errorf("midnight = %q, %v", d, ok)
	}
	if _, ok := midnight("2005-05-25 11:30:37"); ok {
		t.Error("a time of day taken for midnight")
	}
}

// TestStampsNameNoRow: "the earliest payment" is by the payment's own date,
// never by the application's last_update stamp (sakila: the payment with
// the earliest stamp was not the earliest payment, and the answer check
// rejected the right date).
func TestStampsNameNoRow(t *testing.T) {
	pay := &dbmodel.Table{Name: "payment", PrimaryKey: []string{"payment_id"}, Columns: []*dbmodel.Column{
		{Name: "payment_id", Kind: dbmodel.Integer}, {Name: "payment_date", Kind: dbmodel.Text},
		{Name: "last_update", Kind: dbmodel.Text}, {Name: "LastModified", Kind: dbmodel.Text}, {Name: "updated_at", Kind: dbmodel.Text},
	}}
	var got []string
	for _, c := range namingColumns(pay) {
		got = append(got, c.Name)
	}
	if !slices.Equal(got, []string{"payment_date"}) {
		t.Errorf("naming columns %v, want [payment_date]", got)
	}
}

// TestDateOfAStamp: "the date of the payment" stored with its time of day is
// answered by the date alone (sakila: four questions rejected "May 31, 2005");
// another date still fails, and a time column keeps wanting the time.
func TestDateOfAStamp(t *testing.T) {
	a := dayAnswer("payment_date", "2005-05-31 11:25:01")
	if a == nil {
		t.Fatal("no rule for a date column stored with its time")
	}
	re := regexp.MustCompile(a.Value)
	for _, s := range []string{"It was on May 31, 2005.", "2005-05-31 11:25:01", "31 May 2005 at 11:25", "5/31/2005"} {
		if !re.MatchString(s) {
			t.Errorf("%q rejected", s)
		}
	}
	for _, s := range []string{"May 30, 2005", "2005-05-30 11:25:01", "June 31, 2005"} {
		if re.MatchString(s) {
			t.Errorf("%q accepted", s)
		}
	}
	if dayAnswer("departure_time", "2005-05-31 11:25:01") != nil || dayAnswer("birth_date", "1970-05-29") != nil {
		t.Error("a rule where the time is asked, or where there is no time")
	}
}
