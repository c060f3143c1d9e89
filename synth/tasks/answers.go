package tasks

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/synth/dbmodel"
	"github.com/wasmenv/wasmenv/synth/emit"
)

// An answer is matched in the forms people write it, not only as stored:
// a date as "1996-11-18", "November 18, 1996", "18 Nov 1996" or
// "11/18/1996"; a time as "14:30" or "2:30 PM"; a name with its accents
// or without ("São Paulo", "Sao Paulo"). Every rule still rejects another
// date or another name, and matches its own text (the ground truth's
// answer is the rule's value): the stored form comes first, as written.

// datetimeRE is a stored date, with a time or without: "1996-11-22",
// "1996-11-22 00:00:00.000", "2005-05-25T11:30:37".
// timeOnlyRE is a time of day stored alone, perhaps marked as the next
// day ("+1").
var timeOnlyRE = regexp.MustCompile(`^(\d{2}:\d{2})(?::\d{2})?(?:\+\d)?$`)

var datetimeRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(:\d{2}(\.\d+)?)?)?$`)

// dateAnswer is the rule for a stored date or date and time, nil for other
// text. A person gives the date of a midnight stamp, and the date and the
// hour and minute of others ("2005-05-25 at 11:30"), not the seconds and
// milliseconds as stored.
func dateAnswer(s string) *envpkg.Answer {
	m := datetimeRE.FindStringSubmatch(s)
	if m == nil {
		return nil
	}
	d, err := time.Parse("2006-01-02", m[1])
	if err != nil {
		return nil
	}
	dates := datePatterns(d)
	if m[2] == "" || m[2] == "00:00" && strings.Trim(m[3], ":.0") == "" {
		return &envpkg.Answer{Value: `(?i)` + strings.Join(dates, "|"), Match: "regex"}
	}
	var alts []string
	for _, t := range timePatterns(m[2]) {
		for _, dp := range dates {
			alts = append(alts, dp+`\D+`+t)
		}
	}
	return &envpkg.Answer{Value: `(?i)` + strings.Join(alts, "|"), Match: "regex"}
}

// dayAnswer is the rule for a question about a "date" column whose value
// is stored with its time of day ("payment_date" 2005-05-31 11:25:01): the
// question asks for the date, so "May 31, 2005" answers it; nil for other
// columns and values. (A rule that wants the time too rejected right
// answers; the gates still drop the task where another candidate row has
// the same date.)
func dayAnswer(col, v string) *envpkg.Answer {
	l := strings.ToLower(col)
	if !strings.Contains(l, "date") || strings.Contains(l, "time") {
		return nil
	}
	m := datetimeRE.FindStringSubmatch(v)
	if m == nil || m[2] == "" {
		return nil
	}
	return dateAnswer(m[1])
}

// datePatterns are the ways d is written, the stored form first (so the
// rule's own text matches it).
func datePatterns(d time.Time) []string {
	month := `(?:` + d.Format("January") + `|` + d.Format("Jan") + `\.?)`
	day := `0?` + strconv.Itoa(d.Day()) + `(?:st|nd|rd|th)?`
	year := strconv.Itoa(d.Year())
	// Word boundaries: "1 November" must not be found in "11 November".
	return []string{
		d.Format("2006-01-02"),
		`\b` + month + ` ` + day + `,? ` + year + `\b`,
		`\b` + day + ` (?:of )?` + month + `,? ` + year + `\b`,
		fmt.Sprintf(`\b0?%d/0?%d/%s\b`, int(d.Month()), d.Day(), year),
	}
}

// midnightRE is a date stored with a midnight time.
var midnightRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})[ T]00:00(:00(\.0+)?)?$`)

// midnight is the date of a value stored as a date at midnight
// ("1973-07-01 00:00:00" → "1973-07-01").
func midnight(v any) (string, bool) {
	s, ok := v.(string)
	if !ok {
		return "", false
	}
	m := midnightRE.FindStringSubmatch(s)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// snakeWord is a value written as a code of words ("basic_economy",
// "round_trip").
var snakeWord = regexp.MustCompile(`^[a-z]+(_[a-z]+)+$`)

// timeAnswer is the rule for a question about a time ("the estimated
// arrival time") whose column holds a date and a time: the time alone is
// a right answer ("02:04", "2:04 am"). nil for other columns and values.
func timeAnswer(col, v string) *envpkg.Answer {
	m := datetimeRE.FindStringSubmatch(v)
	if t := timeOnlyRE.FindStringSubmatch(v); m == nil && t != nil {
		// A time of day alone ("09:00:00", "02:00:00+1" the next day):
		// "9:00 AM" answers it as well (judged round 3: the check wanted
		// "09:00:00" as stored).
		m = []string{v, "", t[1]}
	}
	if m == nil || m[2] == "" || !strings.Contains(" "+words(col)+" ", " time ") {
		return nil
	}
	alts := timePatterns(m[2])
	for i, a := range alts {
		alts[i] = `\b` + a + `\b`
	}
	return &envpkg.Answer{Value: `(?i)` + m[2] + `|` + strings.Join(alts, "|"), Match: "regex"}
}

// timePatterns are the ways hh:mm is written: as stored, and on a
// 12-hour clock.
func timePatterns(hm string) []string {
	out := []string{hm}
	h, err := strconv.Atoi(hm[:2])
	if err != nil {
		return out
	}
	suffix := "a"
	if h >= 12 {
		suffix = "p"
	}
	h12 := h % 12
	if h12 == 0 {
		h12 = 12
	}
	return append(out, fmt.Sprintf(`0?%d:%s ?%s\.?m`, h12, hm[3:], suffix))
}

// foldAnswer is the rule for text with accented letters: each matches
// itself or its plain letter ("S[ãa]o Paulo"), case ignored. nil for text
// without them (matched as contained, case ignored).
func foldAnswer(s string) *envpkg.Answer {
	var b strings.Builder
	folded := false
	for _, r := range s {
		base := []rune(norm.NFD.String(string(r)))[0]
		switch {
		case base != r && unicode.IsLetter(r):
			fmt.Fprintf(&b, "[%c%c]", r, base)
			folded = true
		case r == '\'' || r == '’':
			b.WriteString(`['’]?`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	if !folded {
		return nil
	}
	// The stored form first, as written (metacharacters as "."), so the
	// rule's own text matches it.
	lit := regexp.MustCompile(`[\\.+*?()|\[\]{}^$]`).ReplaceAllString(s, ".")
	return &envpkg.Answer{Value: `(?i)` + lit + `|` + b.String(), Match: "regex"}
}

// notWord is a pattern for one word other than w (case ignored by the
// caller's (?i)): shorter, longer, or different in some letter. RE2 has no
// look-behind, so "economy not preceded by basic" is spelled this way.
func notWord(w string) string {
	rs := []rune(strings.ToLower(w))
	n := len(rs)
	alts := []string{fmt.Sprintf(`\pL{%d,}`, n+1)}
	if n > 1 {
		alts = append(alts, fmt.Sprintf(`\pL{1,%d}`, n-1))
	}
	for i, r := range rs {
		alts = append(alts, fmt.Sprintf(`\pL{%d}[^%s%s\PL]\pL{%d}`, i, regexp.QuoteMeta(string(r)), regexp.QuoteMeta(strings.ToUpper(string(r))), n-i-1))
	}
	return "(?:" + strings.Join(alts, "|") + ")"
}

// wholeValue is the rule for v, a value of a closed set in which other
// values hold v as their last word ("economy" beside "basic economy"):
// v as a word not preceded by those values' other words, so "basic
// economy" does not pass for "economy" (judged round 3). nil when another
// value holds v otherwise (before another word), or none does.
func wholeValue(v string, values []string) *envpkg.Answer {
	var before []string
	sp := strings.ReplaceAll(v, "_", " ")
	for _, o := range values {
		o = strings.ReplaceAll(o, "_", " ")
		if strings.EqualFold(o, sp) || !wordIn(sp, o) {
			continue
		}
		head, ok := strings.CutSuffix(strings.ToLower(o), " "+strings.ToLower(sp))
		if !ok || strings.Contains(head, " ") {
			return nil
		}
		before = append(before, head)
	}
	if len(before) == 0 || len(before) > 1 || strings.Contains(sp, " ") {
		return nil
	}
	q := regexp.QuoteMeta(sp)
	return &envpkg.Answer{Value: `(?i)(?:^|[^\pL\pN\s_-]|(?:^|[^\pL\pN_-])` + notWord(before[0]) + `[\s_-]+|^[\s_-]+)` + q + `(?:[^\pL\pN_-]|$)`, Match: "regex"}
}

// containedIn are the values of values other than v that hold v as a word
// ("basic economy" for "economy"): answers a check must tell from v.
func containedIn(v string, values []string) []string {
	var out []string
	sp := strings.ReplaceAll(v, "_", " ")
	for _, o := range values {
		if o != v && wordIn(sp, strings.ReplaceAll(o, "_", " ")) {
			out = append(out, o, strings.ReplaceAll(o, "_", " "))
		}
	}
	return out
}

// alone holds a to the value asked for alone (envpkg.Alone): said is the
// value as stored, what the ground truth answers; the values that compete
// with it are col's other values in t (its allowed values where it has a
// closed set), matched where they hold a letter (a number, a date or a
// phone number competes as the numbers it writes, which every rule
// counts). A number rule is held to it already.
func alone(a *envpkg.Answer, t *dbmodel.Table, col *dbmodel.Column, said string) *envpkg.Answer {
	if a == nil || a.Match == "number" {
		return a
	}
	a.Alone = &envpkg.Alone{Value: said}
	if col == nil || !strings.ContainsFunc(said, unicode.IsLetter) || datetimeRE.MatchString(said) {
		return a
	}
	q := dbmodel.Quote(col.Name)
	a.Alone.Others = fmt.Sprintf(`SELECT DISTINCT %[1]s FROM main.%[2]s WHERE %[1]s IS NOT NULL`, q, dbmodel.Quote(t.Name))
	if len(col.Enum) > 0 {
		lits := make([]string, len(col.Enum))
		for i, v := range col.Enum {
			lits[i] = "(" + emit.Literal(v) + ")"
		}
		a.Alone.Others = "SELECT column1 FROM (VALUES " + strings.Join(lits, ", ") + ")"
	}
	return a
}

// withRecord gives a the values of the record it answers about
// (envpkg.Alone.Record): the row the value asked for is of, or, for a
// count or a sum, the row counted for (cur). A right answer may name the
// record by some of them ("day 18 (record 587, plot 2)"); the runtime
// rejects it restated whole. A number rule gains Alone for it. The values
// go in the table's column order, the asked one left out, booleans and
// what cannot be said (long text, JSON) too, at most
// envpkg.MaxRecordValues.
func withRecord(a *envpkg.Answer, c *chain, cur *entity) *envpkg.Answer {
	if a == nil || a.Match == "json" || a.Match == "contains_all" {
		return a
	}
	row, t, asked := c.answerRow, c.answerOf, c.answerCol
	if row == nil && c.answerOf == nil && cur != nil {
		row, t, asked = cur.row, cur.table, "" // a count or sum of cur's rows
	}
	record := recordValues(row, t, asked, c.said)
	counted := c.counted
	if a.Match != "number" {
		counted = nil
	}
	if len(record) == 0 && len(counted) == 0 {
		return a
	}
	if a.Alone == nil {
		if a.Match != "number" {
			return a
		}
		a.Alone = &envpkg.Alone{Value: a.Value}
	}
	a.Alone.Record, a.Alone.Counted = record, counted
	return a
}

// recordValues are row's sayable values but asked's and the answer's
// own, in t's column order (then the rest by name), each once.
func recordValues(row map[string]any, t *dbmodel.Table, asked, said string) []envpkg.RecordValue {
	var names []string
	if t != nil {
		for _, col := range t.Columns {
			if _, ok := row[col.Name]; ok {
				names = append(names, col.Name)
			}
		}
	}
	var rest []string
	for k := range row {
		if !slices.Contains(names, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	var out []envpkg.RecordValue
	seen := map[string]bool{strings.TrimSpace(said): true}
	for _, k := range append(names, rest...) {
		v := row[k]
		if _, isBool := v.(bool); k == asked || v == nil || isBool || !sayable(v) || len(k) > envpkg.MaxRecordValueLen {
			continue
		}
		switch v.(type) {
		case map[string]any, []any:
			continue
		}
		s := strings.TrimSpace(fmt.Sprint(sqlValue(v)))
		if s == "" || len(s) > envpkg.MaxRecordValueLen || seen[s] {
			continue
		}
		seen[s] = true
		if out = append(out, envpkg.RecordValue{Column: k, Value: s}); len(out) == envpkg.MaxRecordValues {
			break
		}
	}
	return out
}
