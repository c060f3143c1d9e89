package runtime

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/wasmenv/wasmenv/envpkg"
)

// What an answer may say beside the value asked for. A right answer is
// often said with context: the user's own words back ("The item of order
// #W1012 is not return requested: its status is ordered."), or some of
// the answered record's other values ("day 18 (record 587, plot 2)",
// "Chile (1962 FIFA Men's World Cup, position 3)"). None of that makes
// the answer pass for another truth, so it is allowed; what stays a
// failure is what would: a number neither the user nor the record says
// (a spray, a hedge "either 17 or 21"), another row's value (a candidate
// list, a list tool's output pasted), the record restated whole (half of
// its values or more: a paste that spares the agent choosing the
// value), or a value of the kind asked for beside the expected one where
// the user named the expected one too ("pending or shipped" after "is it
// pending or shipped?": it would pass for either).
//
// And the value must be said as itself, not inside a longer value of the
// record or of the kind asked for: "Северная Африка" (the sub-region)
// holds "Африка" (the region) and does not say it.

// answerContext is an answer and what it may say beside its match.
type answerContext struct {
	got    string
	user   []string             // the instruction and the persona: the user's words
	value  string               // the expected value as stored (Alone.Value)
	record []envpkg.RecordValue // the answered record's other values (Alone.Record)
	// counted are the keys of the rows a count or a sum is over
	// (Alone.Counted).
	counted []envpkg.RecordValue
}

// occurrence is a place got says a value whole: record[index] for a
// record value.
type occurrence struct {
	span
	index int
}

// alone: got, whose spans say the expected value, asserts no competing
// value (see above); others are the values of the kind asked for.
func (c answerContext) alone(spans []span, others []string) bool {
	toks := tokensOf(c.got)
	at := tokenPlaces(toks)
	recs := c.recordOccurrences(toks, at)
	longer := append([]occurrence{}, recs...)
	for _, o := range others {
		for _, s := range valueOccurrences(toks, at, o) {
			longer = append(longer, occurrence{s, -1})
		}
	}
	if spans = notInsideLonger(spans, longer); len(spans) == 0 {
		return false // said only inside a longer value: "Северная Африка"
	}
	userSaid := c.userSaidRecord()
	mentioned := map[int]bool{}
	for _, r := range recs {
		// A value inside a longer one said ("credit_card" in the id
		// "credit_card_2153610") is that one's part, not a mention.
		if !inSpans(r.from, r.to, spans) && !userSaid[r.index] && !insideLonger(r.span, recs) {
			mentioned[r.index] = true
		}
	}
	free := c.freeNumbers()
	_, err := strconv.ParseFloat(strings.TrimSpace(c.value), 64)
	numeric := err == nil
	for _, n := range numbersIn(c.got) {
		if inSpans(n.from, n.to, spans) || inOccurrences(n.span, recs) || hasNumber(free, n.value) || c.countedRow(n, toks) {
			continue
		}
		i := c.recordNumber(n, toks, numeric)
		if i < 0 {
			return false // a number no one said, or a record's number said as a rival
		}
		if !userSaid[i] {
			mentioned[i] = true
		}
	}
	if Restated(len(mentioned), len(c.record)-len(userSaid), len(c.record)) {
		return false // the record restated, not the value chosen
	}
	return !c.namesOther(toks, at, spans, recs, others)
}

// Restated: an answer that says mentioned of its record's n other values
// (the user's own words not counted; unsaid of the n are values the user
// did not say) restates the record rather than naming it: half of them or
// more, except that two fields name a record of three or more ("4000
// (Programmer, job_id IT_PROG)": round 8's player failed on it while
// either field alone passed) as long as a value the user did not say is
// left out. An answer that says every value the user did not say is the
// record pasted, however few they are (a tool's output of four fields
// whose key the user gave: round 9 found the exception let such pastes
// through, and the gates dropped hundreds of tasks for it). The gates try
// such an answer as gamed (synth/gates).
func Restated(mentioned, unsaid, n int) bool {
	switch {
	case mentioned == 0 || 2*mentioned < n:
		return false
	case mentioned <= 2 && n >= 3 && mentioned < unsaid:
		return false
	}
	return true
}

// namesOther: got names one of others (as whole words, case and accents
// ignored; a code, a value of at most 4 characters in capitals, as
// written: the department "IT" is not the "It" of "It is Sales.")
// outside spans, outside a longer record value said whole and not made
// of the words of the record's column names, other than the expected
// value itself (however spaced: "Wolski  Zajazd"). A value
// the user named may be said back, unless the user named the expected
// value too: then the answer would pass for either.
func (c answerContext) namesOther(toks []token, at map[string][]int, spans []span, recs []occurrence, others []string) bool {
	if len(toks) == 0 || len(others) == 0 {
		return false
	}
	wt := tokensOf(c.value)
	user := c.userTokens()
	labels := map[string]bool{} // the words of the record's columns
	for _, r := range c.record {
		for _, w := range columnWords(r.Column) {
			labels[w] = true
		}
	}
	expectedSaid := saysValue(user, c.value)
	for _, o := range others {
		ot := tokensOf(o)
		if len(ot) == 0 || len(at[ot[0].text]) == 0 || len(ot) == len(wt) && tokensAt(wt, ot, 0, false) {
			continue
		}
		for _, s := range valueOccurrences(toks, at, o) {
			if inSpans(s.from, s.to, spans) || insideLonger(s, recs) || c.labelledRecord(toks, s, recs) || allLabels(ot, labels) {
				continue
			}
			if !expectedSaid && saysValue(user, o) {
				continue // the user's own words said back
			}
			return true
		}
	}
	return false
}

// labelledRecord: s is where the answer says one of the record's own
// values, beside a word of its column's name ("last_name James"), though
// another row holds the same text in the column asked for: a field of
// the answered record, not a rival. Said bare ("Alexander, James") it
// still counts as naming the other row.
func (c answerContext) labelledRecord(toks []token, s span, recs []occurrence) bool {
	for _, o := range recs {
		if o.from == s.from && o.to == s.to && besideWordOf(toks, s, c.record[o.index].Column) {
			return true
		}
	}
	return false
}

// allLabels: every word of v is a word of a record column's name: said
// as a field's label ("given name Jean-Paul"), not as a value, though the
// column asked for holds it (a family name "Given").
func allLabels(v []token, labels map[string]bool) bool {
	for _, t := range v {
		if !labels[t.text] {
			return false
		}
	}
	return true
}

// tokenPlaces indexes toks by text: a token's places.
func tokenPlaces(toks []token) map[string][]int {
	at := map[string][]int{}
	for i, t := range toks {
		at[t.text] = append(at[t.text], i)
	}
	return at
}

// valueOccurrences are the places toks (indexed by at) say v whole: its
// words in sequence, a code as written.
func valueOccurrences(toks []token, at map[string][]int, v string) []span {
	vt := tokensOf(v)
	if len(vt) == 0 {
		return nil
	}
	code := isCode(v)
	var out []span
	for _, i := range at[vt[0].text] {
		if tokensAt(toks, vt, i, code) {
			out = append(out, span{toks[i].from, toks[i+len(vt)-1].to})
		}
	}
	return out
}

// recordOccurrences are the places got says a record value that holds a
// letter or several numbers (a date, a phone number); a record's single
// number is matched as a number.
func (c answerContext) recordOccurrences(toks []token, at map[string][]int) []occurrence {
	var out []occurrence
	for i, r := range c.record {
		if !hasLetter(r.Value) && len(numbersIn(r.Value)) < 2 {
			continue
		}
		for _, s := range valueOccurrences(toks, at, r.Value) {
			out = append(out, occurrence{s, i})
		}
	}
	return out
}

// notInsideLonger drops the spans that lie inside a longer value said
// whole: the match is part of another value, not the value.
func notInsideLonger(spans []span, longer []occurrence) []span {
	var out []span
	for _, s := range spans {
		if !insideLonger(s, longer) {
			out = append(out, s)
		}
	}
	return out
}

// insideLonger: s lies inside one of occs and is shorter than it.
func insideLonger(s span, occs []occurrence) bool {
	for _, o := range occs {
		if o.from <= s.from && s.to <= o.to && o.to-o.from > s.to-s.from {
			return true
		}
	}
	return false
}

func inOccurrences(s span, occs []occurrence) bool {
	for _, o := range occs {
		if o.from <= s.from && s.to <= o.to {
			return true
		}
	}
	return false
}

// recordNumber is the index of the record value that writes n (a
// number value first, then one that holds it: 1962 of "WC-1962"), -1 for
// none. Where the answer is a number (labelled), a number of the record
// must stand beside a word of its column ("plot 2", "record_id: 587"):
// "18 or 2" says 2 as a rival answer, not as the record's plot.
func (c answerContext) recordNumber(n number, toks []token, labelled bool) int {
	held := -1
	for i, r := range c.record {
		ns := numbersIn(r.Value)
		for _, m := range ns {
			if !sameNumber(n.value, m.value) && !sameNumber(n.value, math.Abs(m.value)) {
				continue
			}
			if labelled && !besideWordOf(toks, n.span, r.Column) {
				continue
			}
			if len(ns) == 1 && !hasLetter(r.Value) {
				return i
			}
			if held < 0 {
				held = i
			}
		}
	}
	return held
}

// besideWordOf: the word just before s in toks, or just after, is a word
// of column's name ("plot" of plot_id, "rep" of SupportRepId).
func besideWordOf(toks []token, s span, column string) bool {
	words := columnWords(column)
	for i, t := range toks {
		if t.to <= s.from && (i+1 == len(toks) || toks[i+1].from >= s.from) && slices.Contains(words, t.text) {
			return true
		}
		if t.from >= s.to && (i == 0 || toks[i-1].to <= s.to) {
			return slices.Contains(words, t.text)
		}
	}
	return false
}

// columnWords are the words of a column's name, folded: "plot_id" →
// plot, id; "SupportRepId" → supportrepid, support, rep, id.
func columnWords(column string) []string {
	var out []string
	for _, t := range tokensOf(column) {
		out = append(out, t.text)
		from := 0
		rs := []rune(t.raw)
		for i := 1; i <= len(rs); i++ {
			if i == len(rs) || unicode.IsUpper(rs[i]) && unicode.IsLower(rs[i-1]) {
				out = append(out, foldText(string(rs[from:i])))
				from = i
			}
		}
	}
	return out
}

func hasLetter(s string) bool { return strings.ContainsFunc(s, unicode.IsLetter) }

// countedRow: n is the key of a row the count or sum is over, said after
// a word of its column ("orders 10, 11 and 12", "order #11"): the words
// between are other counted keys and "and". Said bare it is no row's
// name but a rival figure.
func (c answerContext) countedRow(n number, toks []token) bool {
	isKey := func(v float64) (string, bool) {
		for _, r := range c.counted {
			if m := numbersIn(r.Value); len(m) == 1 && !hasLetter(r.Value) && sameNumber(v, m[0].value) {
				return r.Column, true
			}
		}
		return "", false
	}
	col, ok := isKey(n.value)
	if !ok {
		return false
	}
	if c.namesEveryCounted(n, toks, isKey) {
		return true
	}
	i := len(toks) - 1
	for i >= 0 && toks[i].from >= n.from {
		i--
	}
	for ; i >= 0; i-- {
		t := toks[i]
		if v, err := strconv.ParseFloat(t.text, 64); err == nil {
			if _, ok := isKey(v); ok {
				continue
			}
			return false
		}
		if t.text == "and" {
			continue
		}
		w := t.text
		for _, cw := range columnWords(col) {
			if w == cw || w == cw+"s" || w == cw+"es" {
				return true
			}
		}
		return false
	}
	return false
}

// namesEveryCounted: n stands in a run of counted keys (only keys and
// "and" between them) that says every row counted: "7 lines (10475 and
// 10885)" names the rows without their table's word (round 8's player:
// it failed after "by shipped date"). A run that leaves one out, or a key
// said apart ("3 or 11"), is no naming of the rows but a rival figure.
func (c answerContext) namesEveryCounted(n number, toks []token, isKey func(float64) (string, bool)) bool {
	at := -1
	for i, t := range toks {
		if t.from <= n.from && n.from < t.to {
			at = i
			break
		}
	}
	if at < 0 {
		return false
	}
	said := map[float64]bool{}
	inRun := func(t token) bool {
		if t.text == "and" {
			return true
		}
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return false
		}
		if _, ok := isKey(v); !ok {
			return false
		}
		said[v] = true
		return true
	}
	for i := at; i >= 0 && inRun(toks[i]); i-- {
	}
	for i := at + 1; i < len(toks) && inRun(toks[i]); i++ {
	}
	for _, r := range c.counted {
		m := numbersIn(r.Value)
		if len(m) != 1 || hasLetter(r.Value) || !said[m[0].value] {
			return false
		}
	}
	return len(said) >= 2
}
