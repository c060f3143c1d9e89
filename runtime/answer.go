package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/wasmenv/wasmenv/envpkg"
)

// An answer scores when it is the value asked for, not when it holds it
// (envpkg.Alone): the rule's match gives the spans of the answer that say
// the expected value, and outside them the answer may assert no competing
// value: no number but the user's and some of the answered record's own
// (a number rule always; "1 2 3 … 20 17", "Either 17 or 21 films", a
// tool output pasted whole), and none of the values of the kind asked for
// that Alone.Others lists but those the user named ("Park, Peacock or
// Johnson"). answercontext.go says what context an answer may give.

// span is a byte range [from, to) of an answer.
type span struct{ from, to int }

func inSpans(from, to int, spans []span) bool {
	for _, s := range spans {
		if s.from <= from && to <= s.to {
			return true
		}
	}
	return false
}

// answerPasses applies t's answer rule to got.
func (ep *Episode) answerPasses(ctx context.Context, t *envpkg.Task, got string) (bool, error) {
	a := *t.Answer
	got = strings.TrimSpace(got)
	ok, spans, err := matchAnswer(a, got)
	if !ok || err != nil || a.Match != "number" && a.Alone == nil {
		return ok, err
	}
	c := answerContext{got: got, user: []string{t.Instruction, t.Persona}}
	if a.Alone != nil {
		c.value, c.record, c.counted = a.Alone.Value, a.Alone.Record, a.Alone.Counted
	}
	var others []string
	if a.Alone != nil && a.Alone.Others != "" && wordsOutside(got, spans) {
		err = ep.bundleSQL(ctx, func() (err error) { others, err = ep.queryTexts(a.Alone.Others); return err })
		if err != nil {
			return false, fmt.Errorf("the answer's other values: %w", err)
		}
	}
	return c.alone(spans, others), nil
}

// matchAnswer applies an answer rule, and returns the spans of got that
// match it (the whole answer for rules matched as a whole).
func matchAnswer(a envpkg.Answer, got string) (bool, []span, error) {
	want := strings.TrimSpace(a.Value)
	got = strings.TrimSpace(got)
	whole := []span{{0, len(got)}}
	switch a.Match {
	case "exact":
		return got == want, whole, nil
	case "contains":
		if a.Alone != nil {
			spans := wordSpans(got, want)
			return len(spans) > 0, spans, nil
		}
		return strings.Contains(strings.ToLower(got), strings.ToLower(want)), whole, nil
	case "contains_all": // τ-bench: every output in the answer, case and commas ignored
		var wants []string
		if err := json.Unmarshal([]byte(want), &wants); err != nil {
			return false, nil, fmt.Errorf("expected answer is not a JSON array of strings: %v", err)
		}
		text := strings.ToLower(strings.ReplaceAll(got, ",", ""))
		for _, w := range wants {
			if !strings.Contains(text, strings.ToLower(w)) {
				return false, nil, nil
			}
		}
		return true, whole, nil
	case "regex":
		re, err := regexp.Compile(want)
		if err != nil {
			return false, nil, err
		}
		var spans []span
		for _, m := range re.FindAllStringIndex(got, -1) {
			spans = append(spans, span{m[0], m[1]})
		}
		return len(spans) > 0, spans, nil
	case "number":
		w, err := strconv.ParseFloat(want, 64)
		if err != nil {
			return false, nil, fmt.Errorf("expected answer %q is not a number", want)
		}
		var spans []span
		for _, n := range numbersIn(got) {
			if sameNumber(n.value, w) {
				spans = append(spans, n.span)
			}
		}
		return len(spans) > 0, spans, nil
	case "json":
		var w, g any
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			return false, nil, fmt.Errorf("expected answer is not JSON: %v", err)
		}
		if err := json.Unmarshal([]byte(got), &g); err != nil {
			return false, nil, nil
		}
		return reflect.DeepEqual(w, g), whole, nil
	}
	return false, nil, fmt.Errorf("unknown match rule %q", a.Match)
}

func sameNumber(x, y float64) bool { return math.Abs(x-y) <= 1e-6*math.Max(1, math.Abs(y)) }

// wordSpans are the places got holds want, case ignored, as whole words:
// not inside a longer word or number ("37815" is not in "378150").
func wordSpans(got, want string) []span {
	if want == "" {
		return nil
	}
	re := regexp.MustCompile(`(?i)` + regexp.QuoteMeta(want))
	var spans []span
	for _, m := range re.FindAllStringIndex(got, -1) {
		if wordEdge(got, m[0], m[1]) {
			spans = append(spans, span{m[0], m[1]})
		}
	}
	return spans
}

// wordEdge: got[from:to] does not continue a word or number on either
// side (an end that is itself punctuation may touch anything).
func wordEdge(got string, from, to int) bool {
	if from > 0 && from < to && wordRune(firstRune(got[from:])) && wordRune(lastRune(got[:from])) {
		return false
	}
	return to >= len(got) || to == from || !wordRune(lastRune(got[:to])) || !wordRune(firstRune(got[to:]))
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }

func lastRune(s string) rune { r, _ := utf8.DecodeLastRuneInString(s); return r }

// number is a number written in an answer.
type number struct {
	span
	value float64
}

// numbersIn lists the numbers got writes: every run of digits, with its
// decimals, thousands groups ("1,786") and sign, wherever it stands
// (glued to letters too: "a17" asserts 17 as much as "17" does).
func numbersIn(got string) []number {
	var out []number
	for i := 0; i < len(got); {
		if !isDigit(got[i]) {
			i++
			continue
		}
		from, j := i, i
		for j < len(got) && isDigit(got[j]) {
			j++
		}
		if from > 0 && unicode.IsLetter(lastRune(got[:from])) {
			i = j // digits inside a name ("M49", "alpha3", "#W1012"): a label, not a number
			continue
		}
		// Thousands groups: "1,786", not "17,21" (two numbers).
		if j-from <= 3 {
			for j < len(got) && got[j] == ',' && digits(got, j+1) == 3 {
				j += 4
			}
		}
		if j+1 < len(got) && got[j] == '.' && isDigit(got[j+1]) {
			j++
			for j < len(got) && isDigit(got[j]) {
				j++
			}
		}
		if from > 0 && got[from-1] == '-' && (from == 1 || !wordRune(lastRune(got[:from-1]))) {
			from-- // a sign, not a dash between numbers ("2005-05-31", "2-3")
		}
		if v, err := strconv.ParseFloat(strings.ReplaceAll(got[from:j], ",", ""), 64); err == nil {
			out = append(out, number{span{from, j}, v})
		}
		i = j
	}
	return out
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// digits counts the digits at got[i:].
func digits(got string, i int) int {
	n := 0
	for i+n < len(got) && isDigit(got[i+n]) {
		n++
	}
	return n
}

// token is a word or number of a text, folded (case and accents
// ignored), with its place and its text as written.
type token struct {
	span
	text, raw string
}

// tokensOf splits s into its words and numbers.
func tokensOf(s string) []token {
	var out []token
	from := -1
	for i, r := range s + " " {
		switch {
		case i < len(s) && wordRune(r):
			if from < 0 {
				from = i
			}
		case from >= 0:
			out = append(out, token{span{from, i}, foldText(s[from:i]), s[from:i]})
			from = -1
		}
	}
	return out
}

// wordsOutside: got has a word or number outside spans.
func wordsOutside(got string, spans []span) bool {
	for _, t := range tokensOf(got) {
		if !inSpans(t.from, t.to, spans) {
			return true
		}
	}
	return false
}

// tokensAt: toks holds seq at i (as written, for a code).
func tokensAt(toks, seq []token, i int, code bool) bool {
	if i+len(seq) > len(toks) {
		return false
	}
	for j := range seq {
		if toks[i+j].text != seq[j].text || code && toks[i+j].raw != seq[j].raw {
			return false
		}
	}
	return true
}

// isCode: v is a code, at most 4 characters with a letter and no
// lower-case one ("IT", "PG", "MCO").
func isCode(v string) bool {
	v = strings.TrimSpace(v)
	return utf8.RuneCountInString(v) <= 4 && strings.ContainsFunc(v, unicode.IsLetter) && !strings.ContainsFunc(v, unicode.IsLower)
}

// foldText is s in lower case without accents ("São" → "sao").
func foldText(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// queryTexts runs a read-only query and returns its first column as text
// (NULLs left out).
func (ep *Episode) queryTexts(sql string) ([]string, error) {
	gs, err := ep.prepareGuest(sql)
	if err != nil {
		return nil, err
	}
	stmt := gs.stmt
	defer stmt.Reset()
	if !stmt.ReadOnly() {
		return nil, fmt.Errorf("the query must be read-only")
	}
	var out []string
	for stmt.Step() {
		if s := stmt.ColumnText(0); s != "" {
			out = append(out, s)
		}
	}
	return out, stmt.Err()
}
