package dbmodel

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/ncruces/go-sqlite3"
)

// checkExprs returns the CHECK expressions of a CREATE TABLE statement,
// without comments (a CHECK written inside a comment is not one).
func checkExprs(sql string) []string {
	sql, ok := stripComments(sql)
	if !ok {
		return nil
	}
	var out []string
	up := strings.ToUpper(sql)
	for i := 0; i < len(sql); i++ {
		if j := skipQuoted(sql, i); j > i {
			i = j
			continue
		}
		if !strings.HasPrefix(up[i:], "CHECK") || (i > 0 && isWord(sql[i-1])) || (i+5 < len(sql) && isWord(sql[i+5])) {
			continue
		}
		j := i + 5
		for j < len(sql) && (sql[j] == ' ' || sql[j] == '\t' || sql[j] == '\n' || sql[j] == '\r') {
			j++
		}
		if j >= len(sql) || sql[j] != '(' {
			continue
		}
		if end := matchParen(sql, j); end > j {
			out = append(out, strings.TrimSpace(sql[j+1:end]))
			i = end
		}
	}
	return out
}

// skipQuoted returns the index of the last byte of the literal or quoted
// identifier starting at i, or i when none starts there.
func skipQuoted(s string, i int) int {
	end := s[i]
	switch end {
	case '[':
		end = ']'
	case '\'', '"', '`':
	default:
		return i
	}
	j := i + 1
	for {
		k := strings.IndexByte(s[j:], end)
		if k < 0 {
			return len(s) - 1
		}
		j += k + 1
		if end != ']' && j < len(s) && s[j] == end {
			j++
			continue
		}
		return j - 1
	}
}

func isWord(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// matchParen returns the index of the parenthesis closing the one at open.
func matchParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		if j := skipQuoted(s, i); j > i {
			i = j
			continue
		}
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

var inListRE = regexp.MustCompile(`(?i)["` + "`" + `\[]?([\p{L}_][\p{L}\p{N}_]*)["` + "`" + `\]]?\s+IN\s*\(([^()]*)\)`)
var literalRE = regexp.MustCompile(`'((?:[^']|'')*)'|(-?\d+(?:\.\d+)?)`)

// inLists finds "col IN (v1, v2, ...)" in a CHECK expression.
func inLists(expr string) map[string][]string {
	out := map[string][]string{}
	if strings.Contains(strings.ToUpper(expr), " NOT IN") {
		return out
	}
	for _, m := range inListRE.FindAllStringSubmatch(expr, -1) {
		var vals []string
		strs := 0
		for _, l := range literalRE.FindAllStringSubmatch(m[2], -1) {
			if l[2] != "" {
				vals = append(vals, l[2])
			} else {
				vals = append(vals, strings.ReplaceAll(l[1], "''", "'"))
				strs++
			}
		}
		if len(vals) > 0 && (strs == 0 || strs == len(vals)) {
			out[m[1]] = vals
		}
	}
	return out
}

func isBoolList(vals []string) bool {
	if len(vals) != 2 {
		return false
	}
	return vals[0] == "0" && vals[1] == "1" || vals[0] == "1" && vals[1] == "0"
}

var personWords = []string{"user", "customer", "member", "person", "people", "client", "account", "patron", "patient", "student", "subscriber", "player", "guest", "passenger"}

func personWord(w string) bool {
	for _, p := range personWords {
		if w == p {
			return true
		}
	}
	return false
}

// onlyPeople reports whether p is the one table of m named for people.
func onlyPeople(m *Model, p *Table) bool {
	for _, t := range m.Tables {
		if t != p && personWord(strings.ToLower(Singular(t.Name))) {
			return false
		}
	}
	return true
}

// valuesContained reports whether every non-NULL value of t.col exists in
// p.key, and how many non-NULL values there are (at least one is needed).
func valuesContained(conn *sqlite3.Conn, t, col, p, key string) (bool, int64, error) {
	rows, err := queryRows(conn, fmt.Sprintf(`SELECT COUNT(*), SUM(NOT EXISTS (SELECT 1 FROM %[3]s AS p WHERE p.%[4]s = c.%[2]s))
		FROM %[1]s AS c WHERE c.%[2]s IS NOT NULL`, quote(t), quote(col), quote(p), quote(key)))
	if err != nil {
		return false, 0, err
	}
	n, missing := asInt(rows[0][0]), asInt(rows[0][1])
	return n > 0 && missing == 0, n, nil
}

// naturalKeyNames rank the names of columns a user would identify a row by.
var naturalKeyNames = []string{"email", "username", "login", "handle", "name", "title", "code", "sku", "slug", "number", "phone", "isbn", "iata", "symbol"}

// chooseNaturalKeys picks unique human-readable columns and a label column.
func chooseNaturalKeys(t *Table) {
	type cand struct {
		col  string
		rank int
	}
	var cands []cand
	nonNull := func(c *Column) int64 { return t.Rows - c.Nulls }
	for _, c := range t.Columns {
		// Text, or an integer a user quotes: an invoice or order number
		// (not the surrogate key, which stays internal).
		quotedNumber := c.Kind == Integer && numberName(c.Name) && !(t.IsKey(c.Name) && len(t.PrimaryKey) == 1) && !c.Bool
		if c.Kind != Text && !quotedNumber || t.ForeignKeyOf(c.Name) != nil || c.Enum != nil || freeTextName(c.Name) || c.ByMachine() {
			continue
		}
		// A declared UNIQUE column counts; a column that merely happens to be
		// unique in the data counts only if its name says it identifies
		// (an email, a name, a code), not a date or a first name.
		byData := t.Rows >= 2 && c.Nulls == 0 && c.Distinct == t.Rows && nameRanked(c.Name) && !partialName(c.Name) && !dateName(c.Name) && !placeName(c.Name)
		if !(c.Unique || byData) || nonNull(c) == 0 {
			continue
		}
		if t.IsKey(c.Name) && len(t.PrimaryKey) == 1 && !nameRanked(c.Name) {
			continue // an opaque text id ('C1001') is not what a user says
		}
		rank := len(naturalKeyNames)
		for i, n := range naturalKeyNames {
			if strings.Contains(strings.ToLower(c.Name), n) {
				rank = i
				break
			}
		}
		cands = append(cands, cand{c.Name, rank})
	}
	for r := 0; r <= len(naturalKeyNames); r++ {
		for _, c := range cands {
			if c.rank == r {
				t.NaturalKeys = append(t.NaturalKeys, c.col)
			}
		}
	}
	// A table with nothing else to go by is named by its key when the key
	// is text: order numbers, SKUs and ticket ids are what users quote,
	// unlike integer surrogate keys.
	if len(t.NaturalKeys) == 0 && len(t.PrimaryKey) == 1 && !t.RowID {
		if c := t.Column(t.PrimaryKey[0]); c.Sayable() && (c.Kind == Text && !c.Generated || documentKey(t, c)) {
			t.NaturalKeys = []string{c.Name}
			t.KeyIsNatural = true
		}
	}
	// A table whose names are in no list above (another language's word
	// for title or name), and whose key is no text a person quotes, is
	// named by the data: a short text column,
	// set and unique on every row, that is no date, place, free text or
	// machine value, the first in table order.
	if len(t.NaturalKeys) == 0 {
		for _, c := range t.Columns {
			if c.Kind == Text && !t.IsKey(c.Name) && t.ForeignKeyOf(c.Name) == nil && c.Enum == nil && t.Rows >= 2 && c.Nulls == 0 && c.Distinct == t.Rows &&
				c.MaxLen <= 40 && c.TimeLayout == "" && !freeTextName(c.Name) && !placeName(c.Name) && !dateName(c.Name) && !partialName(c.Name) && !c.ByMachine() {
				t.NaturalKeys = []string{c.Name}
				break
			}
		}
	}
	if len(t.NaturalKeys) > 0 {
		t.Label = t.NaturalKeys[0]
		return
	}
	for _, want := range []string{"name", "title", "full_name", "label", "subject"} {
		for _, c := range t.Columns {
			if c.Kind == Text && strings.EqualFold(c.Name, want) && c.Sayable() {
				t.Label = c.Name
				return
			}
		}
	}
}

// documentKey: the integer key of a table of documents a customer holds a
// number of (an order, an invoice, a booking), named for the table
// ("OrderID", "invoice_id"): it is the order number printed on the
// receipt, which people quote, not a surrogate no one sees.
func documentKey(t *Table, c *Column) bool {
	if c.Kind != Integer {
		return false
	}
	sing := strings.ToLower(t.Singular())
	key := strings.ReplaceAll(strings.ToLower(c.Name), "_", "")
	if key != sing+"id" && key != "id" {
		return false
	}
	switch sing {
	case "order", "invoice", "booking", "ticket", "receipt", "rental", "loan", "shipment", "reservation":
		return true
	}
	return false
}

// numberName marks columns holding numbers people quote.
func numberName(col string) bool {
	l := strings.ToLower(col)
	return strings.HasSuffix(l, "number") || strings.HasSuffix(l, "_no") || strings.HasSuffix(l, "_num") || strings.HasSuffix(l, "_nr")
}

func nameRanked(col string) bool {
	l := strings.ToLower(col)
	for _, n := range naturalKeyNames {
		if strings.Contains(l, n) {
			return true
		}
	}
	return false
}

func partialName(col string) bool {
	l := strings.ToLower(col)
	return strings.Contains(l, "first") || strings.Contains(l, "last") || strings.Contains(l, "middle") || strings.Contains(l, "given") || strings.Contains(l, "family")
}

// placeName marks parts of an address: unique in a small table by chance,
// never how a person names a row.
func placeName(col string) bool {
	l := strings.ToLower(col)
	return ContainsAny(l, "postal", "postcode", "post_code", "zip", "street", "address", "city", "region", "country", "fax")
}

// dateName marks a column named for a date or time: a word of its name
// begins or ends with one ("date", "birthdate", "DateOfBirth",
// "timestamp", "updated"), or it ends in "_at" or "_on". Letters inside a
// word are no date: "mandatennummer" (a mandate number run together)
// is not one, nor is "candidate_name", whose last word says what it is.
func dateName(col string) bool {
	l := strings.ToLower(col)
	if strings.HasSuffix(l, "_at") || strings.HasSuffix(l, "_on") {
		return true
	}
	words := nameWords(col)
	if len(words) > 1 && nameRanked(words[len(words)-1]) {
		return false // a name, title or code of something
	}
	for _, w := range words {
		for _, d := range []string{"date", "time"} {
			if strings.HasPrefix(w, d) || strings.HasSuffix(w, d) || strings.HasSuffix(w, d+"d") || strings.HasSuffix(w, d+"s") {
				return true
			}
		}
	}
	return false
}

// nameWords splits an identifier into its lower-case words at
// underscores, spaces, digits and other non-letters, and where a lower-case
// letter meets an upper-case one ("DateOfBirth" → date, of, birth).
func nameWords(col string) []string {
	var words []string
	var cur []rune
	prevLower := false
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	for _, r := range col {
		switch {
		case !unicode.IsLetter(r):
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r)
	}
	flush()
	return words
}
