package runtime

import (
	"context"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
)

// answerCase is an answer rule tried on a reply.
type answerCase struct {
	rule envpkg.Answer
	got  string
	ok   bool
}

// scoreAnswer scores got for a task of the mini environment (kv: apple,
// banana, cherry) whose only check is the answer rule.
func scoreAnswer(t *testing.T, e *Env, instruction string, rule envpkg.Answer, got string) bool {
	t.Helper()
	c := e.Candidate(envpkg.Task{Instruction: instruction, Answer: &rule})
	defer c.Close()
	ep, err := c.NewEpisode(1)
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	s, err := ep.Score(context.Background(), &got)
	if err != nil {
		t.Fatal(err)
	}
	if last := s.Checks[len(s.Checks)-1]; last.Error != "" {
		t.Fatalf("%s %q on %q: %s", rule.Match, rule.Value, got, last.Error)
	}
	return s.Reward == 1
}

// Issue 34 item 5: the answers that gamed the rules of envs/sakila and
// envs/chinook fail (a spray of numbers, hedging between two, a number
// inside a longer one, two phone numbers, a list of candidate names, a
// tool output pasted whole); the answers people give pass.
func TestAnswersCannotBeGamed(t *testing.T) {
	e := loadEnv(t, "mini")
	num := func(v string) envpkg.Answer { return envpkg.Answer{Value: v, Match: "number"} }
	alone := func(v, others string) envpkg.Answer {
		return envpkg.Answer{Value: v, Match: "contains", Alone: &envpkg.Alone{Value: v, Others: others}}
	}
	names := `SELECT column1 FROM (VALUES ('PARK'), ('PEACOCK'), ('JOHNSON'), ('MARY SMITH'), ('Patricia Johnson'))`
	phone := alone("(503) 555-9831", `SELECT column1 FROM (VALUES ('(503) 555-9831'), ('(503) 555-3199'))`)
	pasted := `{"items":[{"k":"a","v":"apple","n":1},{"k":"b","v":"banana","n":2},{"k":"c","v":"cherry","n":3}],"total":3}`
	cases := []answerCase{
		// gaming
		{num("326"), "1 2 3 4 5 6 7 8 9 10 11 12 326 6.99", false},
		{num("6.99"), "1 2 3 4 5 6 7 8 9 10 11 12 326 6.99", false},
		{num("17"), "Either 17 or 21 films.", false},
		{num("17"), "17,21", false},
		{num("37815"), "The postal code is 378150", false},
		{alone("37815", ""), "The postal code is 378150", false},
		{num("3"), pasted, false},
		{num("17"), "a1 a2 a3 a17", false},
		{phone, "(503) 555-9831 or (503) 555-3199", false},
		{phone, "(503) 555-9831, (503) 555-0000", false},
		{alone("PEACOCK", names), "Park, Peacock or Johnson", false},
		{alone("banana", `SELECT v FROM main.kv`), pasted, false},
		{alone("banana", `SELECT v FROM main.kv`), "banana or cherry", false},
		// right
		{num("17"), "There are 17 films.", true},
		{num("17"), "17", true},
		{num("6.99"), "$6.99", true},
		{num("1234.5"), "total: $1,234.50", true},
		{num("-5"), "It is -5 degrees.", true},
		{num("33000"), "It holds 33,000 people.", true},
		{num("52"), "In the 52nd minute.", true},
		{num("52"), "In the 5th minute.", false},
		{alone("37815", ""), "The postal code is 37815.", true},
		{phone, "Their phone number is (503) 555-9831.", true},
		{alone("PEACOCK", names), "Peacock", true},
		{alone("MARY SMITH", names), "The customer's name is Mary Smith.", true},
		{alone("banana", `SELECT v FROM main.kv`), "The value stored under b is banana.", true},
	}
	for _, c := range cases {
		if got := scoreAnswer(t, e, "How many?", c.rule, c.got); got != c.ok {
			t.Errorf("%s %q on %q: passes %v, want %v", c.rule.Match, c.rule.Value, c.got, got, c.ok)
		}
	}
}

// What the user said may be said back: the numbers of the instruction
// are no competing answer ("Customer 148 has 17 rentals"), nor are the
// numbers of the value as stored (the time of a stamp whose date was
// asked).
func TestAnswersMaySayWhatTheUserSaid(t *testing.T) {
	e := loadEnv(t, "mini")
	if !scoreAnswer(t, e, "How many rentals does customer 148 have?", envpkg.Answer{Value: "17", Match: "number"}, "Customer 148 has 17 rentals.") {
		t.Error("a number of the instruction said back fails the answer")
	}
	if scoreAnswer(t, e, "How many rentals does customer 148 have?", envpkg.Answer{Value: "17", Match: "number"}, "Customer 148 has 17 or 18 rentals.") {
		t.Error("a number the user did not say passes")
	}
	date := envpkg.Answer{Value: `2005-05-31|\bMay 0?31,? 2005\b`, Match: "regex", Alone: &envpkg.Alone{Value: "2005-05-31 11:25:01"}}
	if !scoreAnswer(t, e, "When did I pay?", date, "On May 31, 2005 at 11:25.") {
		t.Error("the time of the stored stamp fails a date answer")
	}
	if scoreAnswer(t, e, "When did I pay?", date, "On May 31, 2005 or June 2, 2005.") {
		t.Error("a second date passes a date answer")
	}
	// So are the values the user named (the state they expected, the one
	// they asked for): said back beside the right one, they make the
	// answer pass for no other truth. A value they did not name competes.
	status := envpkg.Answer{Value: "shipped", Match: "contains", Alone: &envpkg.Alone{Value: "shipped", Others: `SELECT column1 FROM (VALUES ('pending'), ('shipped'), ('delivered'), ('returned'))`}}
	for got, ok := range map[string]bool{"It has shipped.": true, "It is not pending: it has shipped.": true, "It is shipped or returned.": false, "pending, shipped or returned": false} {
		if scoreAnswer(t, e, "If my order is still pending, cancel it and mark it delivered; if not, tell me its status.", status, got) != ok {
			t.Errorf("%q: passes %v", got, !ok)
		}
	}
}

// A port whose origin gives all or nothing (credit: all, τ-bench) scores
// so by default: stating the answer and doing nothing earns 0, not 0.5;
// partial credit on request (Options.PartialCredit).
func TestCreditAllOrNothing(t *testing.T) {
	ctx := context.Background()
	b := *testBundle(t, "mini", false)
	b.Manifest.Credit = envpkg.CreditAll
	answer := "avocado"
	for _, partial := range []bool{false, true} {
		e, err := LoadBundle(ctx, &b, Options{PartialCredit: partial})
		if err != nil {
			t.Fatal(err)
		}
		ep, err := e.NewEpisode("delete-a", 1) // checks: a gone, a existed; answer avocado
		if err != nil {
			t.Fatal(err)
		}
		s, err := ep.Score(ctx, &answer)
		if err != nil {
			t.Fatal(err)
		}
		want := 0.0
		if partial {
			want = 2.0 / 3 // a existed, the answer; not: a gone
		}
		if s.Reward != want || s.Passed != 2 || s.Total != 3 {
			t.Errorf("partial credit %v: reward %v (%d of %d checks), want %v", partial, s.Reward, s.Passed, s.Total, want)
		}
		call(t, ep, "delete", `{"keys":["a"]}`)
		if s, err = ep.Score(ctx, &answer); err != nil || s.Reward != 1 {
			t.Errorf("partial credit %v: the ground truth scores %v (%v)", partial, s.Reward, err)
		}
		ep.Close()
		e.Close()
	}
}

// A code of other rows competes as written: the department "IT" is not
// the "It" of "It is Sales.", but "IT or Sales" hedges.
func TestCodesCompeteAsWritten(t *testing.T) {
	e := loadEnv(t, "mini")
	sales := envpkg.Answer{Value: "Sales", Match: "contains", Alone: &envpkg.Alone{Value: "Sales", Others: `SELECT column1 FROM (VALUES ('IT'), ('Sales'), ('Shipping'))`}}
	for got, ok := range map[string]bool{"It is Sales.": true, "Sales": true, "IT or Sales": false, "Sales, it or shipping": false} {
		if scoreAnswer(t, e, "Which department?", sales, got) != ok {
			t.Errorf("%q: passes %v", got, !ok)
		}
	}
}
