package tasks

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wasmenv/wasmenv/synth/dbmodel"
)

// The instruction grammar: several phrasings per task shape, in a user's
// voice, with a motive where a person would give one, and an optional
// greeting and thanks. A row the user is (a customer, a member) is spoken
// of in the first person: "my order", "How many reviews do I have?".

// oneOf picks one phrasing.
func oneOf(rng *rand.Rand, options ...string) string { return options[rng.IntN(len(options))] }

// polite wraps a request in an optional greeting and thanks.
func polite(rng *rand.Rand, intro, body string) string {
	var parts []string
	if rng.IntN(3) == 0 {
		parts = append(parts, oneOf(rng, "Hi!", "Hello.", "Hi there.", "Good morning."))
	}
	if intro != "" {
		parts = append(parts, intro)
	}
	parts = append(parts, capitalize(body))
	if rng.IntN(3) == 0 {
		parts = append(parts, oneOf(rng, "Thanks!", "Thank you.", "Thanks a lot.", "I appreciate it."))
	}
	return strings.Join(parts, " ")
}

// of is "the ATTR of DESC", or "my ATTR" when the user is the row. An
// attribute named for its row's table is said once: "the name of the
// region Asia", not "the region name of the region Asia"; "the city of the
// address of X" for the city table's city, not "the city of the city of".
func of(attr string, e *entity) string {
	if e.person {
		return "my " + attr
	}
	if owner, ok := placeOwner(e); ok {
		if owner == "my" {
			return "my " + attr
		}
		return "the " + attr + " of " + owner
	}
	if strings.HasPrefix(attr, "top of the ") || strings.HasPrefix(attr, "bottom of the ") {
		return "the " + attr + " for " + e.desc // "the top of the salary range for my job"
	}
	if e.table != nil {
		n := noun(e.table)
		if attr == n && strings.HasPrefix(e.desc, "the "+n+" of ") {
			return e.desc
		}
		if rest, ok := strings.CutPrefix(attr, n+" "); ok && rest != "id" && rest != "date" {
			// (Not "the date of rental 229": a rental has a return date
			// too; judged round 3.)
			attr = rest
		}
	}
	return "the " + attr + " of " + e.desc
}

// placeOwner: e is the address or location of something (reached from
// it), which a person leaves out: "the postal code of the customer X", "my
// city", not "the postal code of the address of the customer X". A
// reference leads to one row, so the shorter phrase names the same one.
// It returns what the place belongs to ("my" for the user).
func placeOwner(e *entity) (string, bool) {
	if e.table == nil || e.person {
		return "", false
	}
	n := noun(e.table)
	if n != "address" && n != "location" {
		return "", false
	}
	if e.desc == "my "+n {
		return "my", true
	}
	if owner, ok := strings.CutPrefix(e.desc, "the "+n+" of "); ok {
		return owner, true
	}
	return "", false
}

// its is the possessive for e: "my" or "its".
func its(e *entity) string {
	if e.person {
		return "my"
	}
	return "its"
}

// attrWords is a column as a person says it: "price_cents" → "price in
// cents", "is_open" → "open", "BillingCity" and "billingcity" → "billing
// city".
func attrWords(col string) string {
	if dbmodel.Foreign(col) {
		return dbmodel.FieldWords(col) // `the "tragfähigkeit" of the bridge`, not as an English word
	}
	w := words(col)
	w = strings.TrimPrefix(w, "is ")
	switch w {
	case "at", "ts", "timestamp":
		return "time"
	case "state province":
		return "state or province"
	}
	if rest, ok := strings.CutPrefix(w, "min "); ok {
		return "minimum " + rest // "the minimum salary of the job", not "min salary"
	}
	if rest, ok := strings.CutPrefix(w, "max "); ok {
		return "maximum " + rest
	}
	for _, suf := range []string{" cents", " usd", " eur"} {
		if strings.HasSuffix(w, suf) && len(w) > len(suf) {
			return strings.TrimSuffix(w, suf) + " in" + suf
		}
	}
	if head, rest, ok := strings.Cut(w, " "); ok && (head == "price" || head == "seats" || head == "fare") && !strings.HasPrefix(rest, "in ") && !strings.HasPrefix(rest, "per ") {
		// price_basic_economy: "the basic economy price".
		return rest + " " + head
	}
	if when, ok := whenWords(w); ok {
		return when
	}
	return w
}

// whenWords: a date or time column named for what happened on it,
// "opened_on", "shipped_at", is said as a date or a time ("the opening date
// of the station", not "the opened on of the station").
func whenWords(w string) (string, bool) {
	head, prep, ok := strings.Cut(w, " ")
	if !ok || strings.Contains(prep, " ") || (prep != "on" && prep != "at") {
		return "", false
	}
	what := map[string]string{"on": "date", "at": "time"}[prep]
	switch head {
	case "due":
		return "due " + what, true
	case "born":
		return "birth " + what, true
	case "expires":
		return "expiry " + what, true
	case "starts", "ends", "begins", "opens", "closes":
		return strings.TrimSuffix(head, "s") + " " + what, true
	case "created", "updated", "modified", "deleted", "completed":
		n := map[string]string{"created": "creation", "updated": "update", "modified": "modification", "deleted": "deletion", "completed": "completion"}[head]
		return n + " " + what, true
	}
	if stem, ok := strings.CutSuffix(head, "ed"); ok && len(stem) >= 3 {
		return stem + "ing " + what, true // opened → opening, shipped → shipping, hired → hiring
	}
	return "", false
}

// noun is a table's row as a person says it ("order_items" → "order item",
// "InvoiceLine" → "invoice line").
func noun(t *dbmodel.Table) string {
	n := words(t.Singular())
	if strings.HasSuffix(n, "staff") || strings.HasSuffix(n, "personnel") {
		n += " member" // "the staff member", not "the staff"
	}
	return n
}

// by phrases the rows that refer to e through a column named for a role
// ("handled_by"): "handled by the staff member Aiko Sato"; "" for other
// columns.
func by(col string, e *entity) string {
	verb, ok := strings.CutSuffix(strings.ToLower(col), "_by")
	if !ok || verb == "" {
		return ""
	}
	if e.person {
		return dbmodel.Words(verb) + " by me"
	}
	return dbmodel.Words(verb) + " by " + e.desc
}

// plural is how a person says several rows of t: the table's own name when
// it is a plural, else the singular with an English plural ending
// ("audit_log" → "audit logs", "staff" → "staff").
func plural(t *dbmodel.Table) string {
	name := words(t.Name)
	if strings.HasSuffix(name, "history") {
		return name + " entries" // "How many job history entries", not "job history"
	}
	if !strings.EqualFold(t.Singular(), t.Name) || uncountable(name) {
		return name
	}
	return pluralize(name)
}

func uncountable(s string) bool {
	last := s[strings.LastIndex(s, " ")+1:]
	switch last {
	case "staff", "data", "information", "equipment", "inventory", "personnel", "media", "news", "series", "feedback", "history":
		return true
	}
	return false
}

func pluralize(s string) string {
	switch {
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}

// article is "a" or "an" for a noun phrase.
var article = dbmodel.Article

// capitalize upper-cases the first letter.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// Motives, by what the user asks for.
var (
	readMotives   = []string{"for a form I'm filling in", "before I call back", "for my records", "to double-check something", "for a report", "for an email I'm writing", "to finish some paperwork"}
	updateMotives = []string{"There was a mistake in the records", "We just got a correction", "It changed recently", "The old value was entered wrong", "The record is out of date", "It was typed in wrong"}
	fixMotives    = []string{"There was a mistake in the records", "We just got a correction", "The old value was entered wrong", "It was typed in wrong"}
	// (Not "it should never have been recorded": said of a track, it
	// judges the music; judged round 3.)
	deleteMotives = []string{"it was entered by mistake", "it is no longer needed"}
)

// attrOf is attrWords, but a pair of bounds of one range on t (min_salary
// and max_salary) is said as the range's bottom and top: "the top of the
// salary range for the job X", not "the max salary of the job X" (judged
// round 3).
func attrOf(t *dbmodel.Table, col string) string {
	w := words(col)
	for _, b := range [][3]string{{"min ", "max ", "bottom"}, {"max ", "min ", "top"}, {"minimum ", "maximum ", "bottom"}, {"maximum ", "minimum ", "top"}} {
		rest, ok := strings.CutPrefix(w, b[0])
		if !ok || t == nil {
			continue
		}
		for _, c := range t.Columns {
			if words(c.Name) == b[1]+rest {
				return b[2] + " of the " + rest + " range"
			}
		}
	}
	if t != nil && t.IsNatural(col) {
		// A number people quote, named "..._id": "its invoice number", "my
		// reservation number", not "its invoice id".
		if rest, ok := strings.CutSuffix(w, " id"); ok && rest != "" {
			return rest + " number"
		}
	}
	return attrWords(col)
}

// everyoneRE finds a "which of" over everyone like the user.
var everyoneRE = regexp.MustCompile(`Which of (everyone [^?]*?) has `)

// tidy smooths what the templates put together: "Which of everyone with
// my job (me included) has" reads "Among everyone with my job (me
// included), who has".
func tidy(s string) string {
	return everyoneRE.ReplaceAllString(s, "Among $1, who has ")
}
