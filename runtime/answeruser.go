package runtime

import "math"

// What the user said, as the answer rules read it: the values an answer
// may say back (the user's own words are no restatement and no rival
// answer), and the numbers it may say freely.

// userSaidRecord marks the record values the user said: naming the
// record by them is the user's own words, not a restatement.
func (c answerContext) userSaidRecord() map[int]bool {
	user := c.userTokens()
	said := map[int]bool{}
	for i, r := range c.record {
		if userSays(c.user, user, r.Value) {
			said[i] = true
		}
	}
	return said
}

// UserSays: one of texts (what the user said) says v, as the answer
// rules read it: its words in sequence, case, accents and punctuation
// ignored ("basic economy" says basic_economy), a code as written; a
// number as a number ("UAUH1S" says 1, as every rule has read it). The
// gates use it to leave the user's own words out of the answers they try
// as gamed.
func UserSays(texts []string, v string) bool {
	toks := make([][]token, len(texts))
	for i, t := range texts {
		toks[i] = tokensOf(t)
	}
	return userSays(texts, toks, v)
}

func userSays(texts []string, toks [][]token, v string) bool {
	if saysValue(toks, v) {
		return true
	}
	ns := numbersIn(v)
	if hasLetter(v) || len(ns) != 1 {
		return false
	}
	for _, t := range texts {
		for _, n := range numbersIn(t) {
			if sameNumber(ns[0].value, n.value) || sameNumber(ns[0].value, math.Abs(n.value)) {
				return true
			}
		}
	}
	return false
}

// userTokens are the words of each of the user's texts.
func (c answerContext) userTokens() [][]token {
	out := make([][]token, len(c.user))
	for i, u := range c.user {
		out[i] = tokensOf(u)
	}
	return out
}

// saysValue: one of texts says v whole (a code as written).
func saysValue(texts [][]token, v string) bool {
	vt := tokensOf(v)
	if len(vt) == 0 {
		return false
	}
	code := isCode(v)
	for _, toks := range texts {
		for i := range toks {
			if tokensAt(toks, vt, i, code) {
				return true
			}
		}
	}
	return false
}

// freeNumbers are the numbers an answer may say freely: the user's, and
// those of the value as stored (the time of a stamp whose date is
// asked). "-05" in a date is 5 said.
func (c answerContext) freeNumbers() []float64 {
	var out []float64
	for _, s := range append(append([]string{}, c.user...), c.value) {
		for _, n := range numbersIn(s) {
			out = append(out, n.value, math.Abs(n.value))
		}
	}
	return out
}

func hasNumber(vs []float64, x float64) bool {
	for _, v := range vs {
		if sameNumber(x, v) {
			return true
		}
	}
	return false
}
