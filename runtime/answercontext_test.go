package runtime

import (
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// valuesQuery is an Alone.Others query listing vs.
func valuesQuery(vs ...string) string {
	q := "SELECT column1 FROM (VALUES "
	for i, v := range vs {
		if i > 0 {
			q += ", "
		}
		q += "('" + v + "')"
	}
	return q + ")"
}

// record is an Alone.Record of column, value pairs.
func record(pairs ...string) []envpkg.RecordValue {
	var out []envpkg.RecordValue
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, envpkg.RecordValue{Column: pairs[i], Value: pairs[i+1]})
	}
	return out
}

// scoreCases scores each answer of cases for instruction and rule.
func scoreCases(t *testing.T, instruction string, rule envpkg.Answer, cases map[string]bool) {
	t.Helper()
	e := loadEnv(t, "mini")
	for got, ok := range cases {
		if scoreAnswer(t, e, instruction, rule, got) != ok {
			t.Errorf("%s %q on %q: passes %v, want %v", rule.Match, rule.Value, got, !ok, ok)
		}
	}
}

// Issue 34 item 5, judged on held-out databases: a right value said with
// some of its record's own values passes ("day 18 (record 587, plot 2)"
// scored 0); a spray, a hedge, the record restated whole or another
// row's values still fail.
func TestAnswersMayNameTheirRecord(t *testing.T) {
	// A survey of portal_mammals: record 587, month 2, day 18, year 1978,
	// plot 2, species OX.
	day := envpkg.Answer{Value: "18", Match: "number", Alone: &envpkg.Alone{Value: "18",
		Record: record("record_id", "587", "month", "2", "year", "1978", "plot_id", "2", "species_id", "OX", "sex", "F", "hindfoot_length", "21", "weight", "25.5")}}
	scoreCases(t, "What is the day of the survey with year 1978 of species OX?", day, map[string]bool{
		"18": true,
		"The 1978 OX survey is on day 18 (record 587, plot 2).": true,
		"Day 18 (record 587).":                                 true,
		"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20": false,
		"Either 18 or 19.":                                     false,
		"Either 18 or 21.":                                     false, // 21 is the hindfoot length, said as a rival
		"18 or 2":                                              false,
		"Day 18 of month 2.":                                   true,
		`{"record_id":587,"month":2,"day":18,"year":1978,"plot_id":2,"species_id":"OX","sex":"F","hindfoot_length":21,"weight":25.5}`: false,
		"18 (587, 2, 21, 25.5)":                                   false, // more than half of the record
		`[{"record_id":586,"day":17},{"record_id":587,"day":18}]`: false, // another row
	})
	// A payment method of airline: a count said with its id, which
	// holds another of its values (credit_card), and its card's number
	// named by its column as written ("LastFour 9678").
	count := envpkg.Answer{Value: "2", Match: "number", Alone: &envpkg.Alone{Value: "2",
		Record: record("id", "credit_card_2153610", "user_id", "harper_silva_6969", "source", "credit_card", "brand", "visa", "LastFour", "9678", "created", "2024-05-01")}}
	scoreCases(t, "How many payments does my visa payment method have?", count, map[string]bool{
		"It is 2 (id credit_card_2153610, user_id harper_silva_6969).": true,
		"2 payments (LastFour 9678, created 2024-05-01).":              true,
		"2 payments (last four 9678).":                                 true,
		"2 or 9678":                                                    false,
		"2 (credit_card_2153610, harper_silva_6969, 9678)":             false,
	})
	// A player of worldcup: "Given" and "Name" are family names too, and
	// here the label of the given name.
	family := envpkg.Answer{Value: "Abalo", Match: "contains", Alone: &envpkg.Alone{Value: "Abalo",
		Others: valuesQuery("Abalo", "Given", "Name", "Paul", "Pelé"),
		Record: record("key_id", "5", "player_id", "P-03523", "given_name", "Jean-Paul", "birth_date", "1975-06-26", "list_tournaments", "2006")}}
	scoreCases(t, "What's the family name of player P-03523?", family, map[string]bool{
		"Abalo (given name Jean-Paul).": true,
		"Abalo or Pelé":                 false,
		"Abalo, Paul":                   false,
	})
	// An employee of hr: the record's last name, said with its label, is
	// another employee's first name, the column asked for.
	first := envpkg.Answer{Value: "Alexander", Match: "contains", Alone: &envpkg.Alone{Value: "Alexander",
		Others: valuesQuery("Alexander", "James", "Bruce"),
		Record: record("employee_id", "103", "last_name", "James", "email", "AJAMES", "hire_date", "2016-01-03", "job_id", "IT_PROG", "salary", "9000")}}
	scoreCases(t, "What's the first name of the manager of the IT department?", first, map[string]bool{
		"It is Alexander (employee_id 103, last_name James).": true,
		"Alexander (last name James)":                         true,
		"Alexander or James":                                  false,
		"Alexander, James":                                    false,
		"Alexander (James)":                                   false,
	})
	// A code list: a field's label with digits in it ("M49", "alpha3") is a
	// name, not a number the answer says.
	region := envpkg.Answer{Value: "014", Match: "number", Alone: &envpkg.Alone{Value: "014",
		Record: record("m49", "404", "iso_alpha3", "KEN", "region_code", "002", "sub_region_code", "202", "name", "Kenya")}}
	scoreCases(t, "What's the intermediate region code for the entry coded 404?", region, map[string]bool{
		"The intermediate region code for M49 code 404 is 014.": true,
		"ISO-alpha3 KEN: 014": true,
		"014 or 49":           false,
		"014 (or 15)":         false,
	})
	// The rules' own example (synth/policy.go's answering paragraph).
	total := envpkg.Answer{Value: "42.50", Match: "number", Alone: &envpkg.Alone{Value: "42.50",
		Record: record("order_id", "1001", "customer_id", "7", "status", "shipped", "placed_at", "2024-05-01")}}
	scoreCases(t, "What is the total of my order placed on 2024-05-01?", total, map[string]bool{
		"total 42.50 (order_id 1001)": true,
		"42.50 or 1001":               false,
	})
	// A tournament standing of worldcup: the team asked for is Chile.
	team := envpkg.Answer{Value: "Chile", Match: "contains", Alone: &envpkg.Alone{Value: "Chile",
		Others: valuesQuery("Chile", "Brazil", "Yugoslavia", "Czechoslovakia"),
		Record: record("key_id", "27", "tournament_id", "WC-1962", "tournament_name", "1962 FIFA Men's World Cup", "position", "3", "team_id", "T-13", "team_code", "CHI", "standing", "third place")}}
	scoreCases(t, "Which team is tournament standing 27?", team, map[string]bool{
		"Chile": true,
		"It is Chile (1962 FIFA Men's World Cup, position 3).": true,
		"Chile (WC-1962, T-13).":                               true,
		"Chile or Brazil":                                      false,
		"Brazil, Chile or Yugoslavia":                          false,
		`{"key_id":27,"tournament_id":"WC-1962","tournament_name":"1962 FIFA Men's World Cup","position":3,"team_id":"T-13","team_name":"Chile","team_code":"CHI","standing":"third place"}`: false,
		"Chile 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20": false,
	})
}

// A refusal may explain itself in the user's words: the state the user
// expected, beside the one found (re-recorded retention gate: scored 0).
// Naming a value the user did not say still fails, and so does naming
// another where the user named the expected value too (it would pass for
// either).
func TestAnswersMaySayTheUsersWordsBack(t *testing.T) {
	status := envpkg.Answer{Value: "ordered", Match: "contains", Alone: &envpkg.Alone{Value: "ordered",
		Others: valuesQuery("ordered", "shipped", "delivered", "return requested", "returned"),
		Record: record("item_id", "17", "order_id", "#W1012", "variant_id", "V2009", "quantity", "1")}}
	scoreCases(t, "If the item of order #W1012 is still return requested, please mark it returned; otherwise change nothing and tell me its status.", status, map[string]bool{
		"The item of order #W1012 is not return requested: its status is ordered. I changed nothing.": true,
		"ordered": true,
		"It is ordered, not return requested or returned.": true,
		"ordered or shipped":                      false,
		"return requested, ordered or delivered":  false,
		"ordered, shipped, delivered or returned": false,
	})
	scoreCases(t, "Is the item of order #W1012 ordered or shipped?", status, map[string]bool{
		"It is ordered.":                    true,
		"ordered or shipped":                false,
		"It is not shipped, it is ordered.": false, // said either way; the rule cannot tell
	})
}

// Issue 34 item 5, judged on held-out unsd_ru: a "contains" rule passed a
// sub-region for its region ("Северная Африка" holds "Африка"). The value
// must be said as itself, not inside a longer value of its record or of
// its kind; a right reply naming the sub-region beside it passes, even one
// holding another intermediate region ("Латинская Америка и Карибский
// бассейн" holds "Карибский бассейн").
func TestAnswersSayTheValueNotAPartOfAnother(t *testing.T) {
	region := envpkg.Answer{Value: "Африка", Match: "contains", Alone: &envpkg.Alone{Value: "Африка",
		Others: valuesQuery("Африка", "Европа", "Азия", "Америка"),
		Record: record("iso_alpha2", "DZ", "iso_alpha3", "DZA", "m49", "012", "country", "Алжир", "sub_region", "Северная Африка", "sub_region_code", "015")}}
	scoreCases(t, "What is the region of DZ?", region, map[string]bool{
		"Африка": true,
		"Африка (Северная Африка).": true,
		"Северная Африка":           false,
		"Северная Африка, Европа":   false,
	})
	// Without a record, the longer value is one of the kind asked for.
	fare := envpkg.Answer{Value: "economy", Match: "contains", Alone: &envpkg.Alone{Value: "economy",
		Others: valuesQuery("economy", "basic economy", "business")}}
	scoreCases(t, "Which cabin class is my reservation?", fare, map[string]bool{
		"economy":       true,
		"basic economy": false,
	})
	mid := envpkg.Answer{Value: "Центральная Америка", Match: "contains", Alone: &envpkg.Alone{Value: "Центральная Америка",
		Others: valuesQuery("Центральная Америка", "Карибский бассейн", "Южная Америка"),
		Record: record("iso_alpha2", "MX", "iso_alpha3", "MEX", "m49", "484", "country", "Мексика", "sub_region", "Латинская Америка и Карибский бассейн", "sub_region_code", "419")}}
	scoreCases(t, "What is the intermediate region of MX?", mid, map[string]bool{
		"Центральная Америка (Латинская Америка и Карибский бассейн).": true,
		"Центральная Америка или Карибский бассейн":                    false,
	})
}

// Issue 34 (round 8): a count or a sum may name every row it is over, not
// only the first: "3: orders 10, 11 and 12" passed for none but the
// first counted row (played round 7: "2 (order_id 10585)" failed though
// both orders were counted). A spray, a hedge and a row not counted still
// fail.
func TestCountsMayNameTheRowsTheyCount(t *testing.T) {
	count := envpkg.Answer{Value: "3", Match: "number", Alone: &envpkg.Alone{Value: "3",
		Record:  record("order_id", "10", "customer_id", "7", "placed_at", "2024-05-01"),
		Counted: record("order_id", "10", "order_id", "11", "order_id", "12")}}
	scoreCases(t, "How many lines do my three most recent orders have together?", count, map[string]bool{
		"3":                            true,
		"3: orders 10, 11 and 12":      true,
		"3 (order_id 11)":              true,
		"3 lines, on orders #11 & #12": true,
		"3 (order 12, order 10)":       true,
		"3 or 11":                      false, // a counted row's key said as a rival
		"3, 11, 12":                    false, // unlabelled
		"3: orders 10, 11 and 13":      false, // 13 was not counted
		"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20": false,
		"orders 10, 11 and 12: 3 or 4":                         false,
	})
}

// Issue 34 (round 8's players): a right answer may name its record by two
// of its own fields ("4000 (Programmer, job_id IT_PROG)" scored 0 while
// either field alone passed), and a count may name the rows it counts by
// their bare keys when it names all of them ("7 lines (10475 and 10885)"
// failed after "by shipped date"). The record pasted whole, a key said as
// a rival, a run that leaves a counted row out, a spray and another row's
// values still fail.
func TestAnswersNameARecordByTwoFieldsAndRowsByBareKeys(t *testing.T) {
	salary := envpkg.Answer{Value: "4000", Match: "number", Alone: &envpkg.Alone{Value: "4000",
		Record: record("job_id", "IT_PROG", "job_title", "Programmer", "max_salary", "10000")}}
	scoreCases(t, "What is the lowest salary of the job Diana Lorentz holds?", salary, map[string]bool{
		"4000 (Programmer, job_id IT_PROG)": true,
		"It is 4000 (Programmer, IT_PROG).": true,
		"4000 (job_id IT_PROG)":             true,
		`{"job_id":"IT_PROG","job_title":"Programmer","min_salary":4000,"max_salary":10000}`: false,
		"4000 (Programmer, IT_PROG, max_salary 10000)":                                       false,
		"4000 or 10000": false,
		"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 4000": false,
	})
	// The record pasted: every value the user did not say, however few
	// (round 9, the held-out sets: a lookup by the key whose output has
	// three other fields passed as "two fields naming the record").
	taxon := envpkg.Answer{Value: "Bird", Match: "contains", Alone: &envpkg.Alone{Value: "Bird",
		Record: record("species_id", "US", "genus", "Sparrow", "species", "sp.")}}
	scoreCases(t, "Which taxon is the species with code US?", taxon, map[string]bool{
		"Bird":                    true,
		"US is a Bird (Sparrow).": true,
		`{"species_id":"US","genus":"Sparrow","species":"sp.","taxa":"Bird"}`: false,
		"Bird (Sparrow sp.)": false,
	})
	lines := envpkg.Answer{Value: "7", Match: "number", Alone: &envpkg.Alone{Value: "7",
		Record:  record("OrderID", "10475", "CustomerID", "SUPRD", "ShippedDate", "1997-03-14"),
		Counted: record("OrderID", "10475", "OrderID", "10885")}}
	scoreCases(t, "How many lines do my two orders shipped last have together?", lines, map[string]bool{
		"My two orders by shipped date (10475 and 10885) have 7 lines.": true,
		"7 (10885, 10475)":           true,
		"7 (orders 10475 and 10885)": true,
		"7 (10475)":                  false, // one of two, bare
		"7 or 10475":                 false,
		"7 or 10475 or 10885":        false,
		"10475 and 10885: 7 or 8":    false,
		"0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20": false,
	})
}
