package tasks

import (
	"strings"
	"unicode"
)

// words turns a schema name into the words a person says: CamelCase and
// snake_case split ("BillingCity", "billing_city"), and a run-together
// lower-case name ("billingcity", "reportsto") split into words of a small
// dictionary of the words schemas are made of. A name the dictionary
// cannot cover whole is left as it is ("tagline"), rather than cut into
// nonsense.
func words(name string) string {
	var out []string
	for _, part := range strings.FieldsFunc(camelSplit(name), func(r rune) bool { return r == '_' || r == ' ' || r == '-' }) {
		part = strings.ToLower(part)
		if long, ok := abbreviations[part]; ok {
			out = append(out, long)
		} else if split := dictSplit(part); split != nil {
			out = append(out, split...)
		} else {
			out = append(out, part)
		}
	}
	if n := len(out); n > 1 && out[n-1] == "est" {
		// "scheduled_departure_time_est": a time in Eastern Standard
		// Time, not an estimate (the table has "estimated_..._est" too).
		return strings.Join(out[:n-1], " ") + " (EST)"
	}
	if len(out) > 1 && out[0] == "ship" && out[1] != "via" {
		// Northwind's ShipCity, ShipPostalCode: where an order is shipped.
		out[0] = "shipping"
	}
	return strings.Join(out, " ")
}

// camelSplit puts a space at each lower-to-upper change and before the
// last capital of an acronym ("HTMLTitle" → "HTML Title").
func camelSplit(s string) string {
	rs := []rune(s)
	var b strings.Builder
	for i, r := range rs {
		if i > 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || unicode.IsUpper(prev) && nextLower {
				b.WriteByte(' ')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// dictSplit splits a lower-case word into the fewest dictionary words that
// make it up, or nil when it is a word itself, is short, or cannot be
// covered whole.
func dictSplit(w string) []string {
	if len(w) < 5 || schemaWords[w] {
		return nil
	}
	// best[i]: the fewest words covering w[:i] (nil: none).
	best := make([][]string, len(w)+1)
	best[0] = []string{}
	for i := 1; i <= len(w); i++ {
		for j := 0; j < i; j++ {
			if best[j] == nil || !schemaWords[w[j:i]] {
				continue
			}
			if best[i] == nil || len(best[j])+1 < len(best[i]) {
				best[i] = append(append([]string{}, best[j]...), w[j:i])
			}
		}
	}
	if len(best[len(w)]) < 2 || strings.HasSuffix(w, "ship") {
		return nil // "membership" is a word, not a member's ship
	}
	return best[len(w)]
}

// abbreviations are the short forms schemas use that a person spells out.
var abbreviations = map[string]string{
	"dob": "date of birth", "pct": "percent", "qty": "quantity",
	"amt": "amount", "num": "number", "addr": "address", "dept": "department",
	"desc": "description", "seq": "sequence",
	"address1": "address line 1", "address2": "address line 2", "baggages": "checked bags",
}

// schemaWords are the words column and table names are made of (from the
// corpus schemas and common ones), for splitting run-together names.
var schemaWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		account active actor address album amount any appointment arrival artist author
		balance bank billing birth book booking branch brand bytes
		cabin card category certificate city class code comment commission company composer contact cost country county course created credit currency customer
		date day department departure description destination discontinued discount district dob
		email employee end entry estimated event expiry extension
		fax feature features film first flight freight from full gift genre given grade group
		hire home hour id in invoice item job key kind
		language last length level line list location
		manager max media member method middle milliseconds min minute mobile modified month
		name number note notes of on order origin original
		paid path pay payment pct per phone photo playlist postal price product
		quantity rate rating region release rental rep reorder replacement reports required reservation return role
		salary scheduled seat ship shipped shipper shipping special staff start state status stock store street supplier support
		territory time title to total track type
		unit units update updated user username
		value via
		weight
		year zip`) {
		m[w] = true
	}
	return m
}()
