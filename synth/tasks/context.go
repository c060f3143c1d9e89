package tasks

import (
	"regexp"
	"strings"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// A request names its rows the way a person does: by one identifying fact,
// or through one or two relations ("my first reservation", "the customer
// of order 10248"), never as a chain of relations read off the schema
// ("the reservations of the user of the most recent reservation arriving
// at ..."). The walk stops before a row's description would take more
// than maxHops relations; a row two relations away is named in a context
// sentence first ("I have a question about my first reservation.") and
// then as "that reservation". And a user speaking of themselves changes
// only what is theirs: their own details, and the rows that belong to
// them (their orders), not their support rep or their job.

// maxHops is the most relations a row's description may take.
const maxHops = 2

// namesRE matches a quoted value ("...", “...”), whose words are a name,
// not relations.
var namesRE = regexp.MustCompile(`"[^"]*"|“[^”]*”`)

// relationRE matches the words that relate one row to another in a
// description.
var relationRE = regexp.MustCompile(`\bof\b|\bon\b|\bdeparting from\b|\barriving at\b|\bassigned to\b|\bwho \w+ (to|by)\b|\bwho \w+ (the|my|me)\b|\bas (its|their) \w+|\bI \w+ to\b|\bmanaged by\b|\bI manage\b|\bwith the same \w+ as\b|\bwith the \w+ "|\bin the \w+ "`)

// hops counts the relations in a row's description: "the customer of
// order 10248" 1, "the only payment of my first reservation" 2, "the
// artist "Academy of St. Martin in the Fields"" 0.
func hops(desc string) int {
	return len(relationRE.FindAllStringIndex(namesRE.ReplaceAllString(desc, `""`), -1))
}

// splitContext names cur's parent in a sentence of its own when cur is two
// relations away, and cur relative to it: "I have a question about my
// first reservation." and "the only payment of that reservation". It
// returns the sentence ("" when no split is needed).
func (w *walker) splitContext(cur *entity) string {
	p := cur.parent
	if cur.redo == nil || p == nil || p.person || p.table == nil || hops(cur.desc) < maxHops || hops(p.desc) < 1 {
		return ""
	}
	if placeTable(cur.table) && hops(p.desc) < maxHops {
		return "" // the address is left out of the wording: "the phone of the customer of rental 1198"
	}
	that := &entity{table: p.table, desc: "that " + noun(p.table)}
	desc := cur.redo(that)
	if hops(desc) >= hops(cur.desc) {
		return "" // the relation was left out of the wording anyway
	}
	cur.desc = desc
	ctx := capitalize(oneOf(w.rng,
		"I have a question about "+p.desc+".",
		"This is about "+p.desc+".",
		"I'm looking at "+p.desc+"."))
	// Once introduced, the parent is "that X" in the rest of the request
	// too (a second change to it).
	p.desc = that.desc
	return ctx
}

// sensibleHop: a hop a person makes. From the user, up to two (my order,
// its lines; my department, its manager); from a row named by what people
// know, one (the artist of this album, the customer of order 10248; "the
// city of the department "NOC""), even to an address the wording leaves
// out ("the state of the department of the employee X" read as a chain to
// the judges). ents is the number of rows the chain had before next.
func sensibleHop(cur, next *entity, ents int) bool {
	return cur.mine && ents < 3 || ents == 1
}

// placeTable: a table of addresses or locations, which a person leaves
// out when speaking of what is there.
func placeTable(t interface{ Singular() string }) bool {
	n := strings.ToLower(t.Singular())
	return strings.HasSuffix(n, "address") || strings.HasSuffix(n, "location")
}

// wordIn: s occurs in text as a whole word or phrase, case ignored.
func wordIn(s, text string) bool {
	s = strings.TrimSpace(s)
	if s == "" {
		return false
	}
	re, err := regexp.Compile(`(?i)(^|[^\pL\pN])` + regexp.QuoteMeta(s) + `([^\pL\pN]|$)`)
	return err == nil && re.MatchString(text)
}

// worker: a table of the people who run the business (employees, staff):
// speaking as one, a user knows their own details and does not edit them.
func worker(t interface{ Singular() string }) bool {
	l := strings.ToLower(t.Singular())
	return dbmodel.ContainsAny(l, "employee", "staff", "personnel", "agent", "worker")
}
