package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestCallReadWriteAndToolErrors(t *testing.T) { eachEngine(t, testCallReadWriteAndToolErrors) }

func testCallReadWriteAndToolErrors(t *testing.T, engine string) {
	e := loadEnvWith(t, "mini", engine)
	ep := newEpisode(t, e, "", 1)
	if r := call(t, ep, "get", `{"key":"a"}`); r.IsError || r.Content != `{"k":"a","v":"apple","n":1}` {
		t.Fatalf("get a: %+v", r)
	}
	if r := call(t, ep, "get", `{"key":"zz"}`); !r.IsError || r.Content != `Error: key "zz" not found` {
		t.Fatalf("get zz: %+v", r)
	}
	if r := call(t, ep, "put", `{"key":"d","value":"date","n":4}`); r.IsError || r.Content != "ok" {
		t.Fatalf("put: %+v", r)
	}
	if r := call(t, ep, "list", `{"order":"desc"}`); r.Content != `{"count":4,"keys":["d","c","b","a"],"total":5}` {
		t.Fatalf("list: %+v", r)
	}
	// A tool error rolls back the call's writes: "a" was deleted before "nope" failed.
	if r := call(t, ep, "delete", `{"keys":["a","nope"]}`); !r.IsError {
		t.Fatalf("delete: %+v", r)
	}
	if r := call(t, ep, "get", `{"key":"a"}`); r.IsError {
		t.Fatalf("a lost after a failed call: %+v", r)
	}
}

func TestArgumentValidation(t *testing.T) { eachEngine(t, testArgumentValidation) }

func testArgumentValidation(t *testing.T, engine string) {
	e := loadEnvWith(t, "mini", engine)
	ep := newEpisode(t, e, "", 1)
	// Each failure says what is wrong and where, with its outcome: an
	// agent (and a trainer) can act on the message.
	cases := map[string]struct{ tool, args, want string }{
		"unknown tool":     {"nope", `{}`, `Error: unknown tool "nope"; available tools: abuse, delete, get, list, put, roll`},
		"missing required": {"get", `{}`, "Error: invalid arguments for get: at /: missing property 'key'"},
		"extra property":   {"get", `{"key":"a","x":1}`, "Error: invalid arguments for get: at /: additional properties 'x' not allowed"},
		"wrong type":       {"get", `{"key":5}`, "Error: invalid arguments for get: at /key: got number, want string"},
		"bad enum":         {"list", `{"order":"sideways"}`, "Error: invalid arguments for list: at /order: value must be one of 'asc', 'desc'"},
		"not JSON":         {"get", `{"key":`, "Error: arguments for get are not valid JSON: "},
		"not an object":    {"get", `[1,2]`, "Error: invalid arguments for get: at /: got array, want object"},
		"int not float":    {"put", `{"key":"a","value":"b","n":1.5}`, "Error: invalid arguments for put: at /n: got number, want integer"},
	}
	for name, c := range cases {
		r := call(t, ep, c.tool, c.args)
		want := OutcomeInvalidArgs
		if name == "unknown tool" {
			want = OutcomeUnknownTool
		}
		if !r.IsError || r.Outcome != want || !strings.HasPrefix(r.Content, c.want) {
			t.Errorf("%s: %+v, want %s starting %q", name, r, want, c.want)
		}
	}
	// The episode is unharmed.
	if r := call(t, ep, "get", `{"key":"b"}`); r.IsError {
		t.Fatal(r.Content)
	}
	// Empty and null arguments mean {}.
	for _, a := range []string{"", "null", " "} {
		if r := call(t, ep, "roll", a); r.IsError {
			t.Errorf("roll(%q): %s", a, r.Content)
		}
	}
}

func TestResetRestoresInitialStateAndSeed(t *testing.T) {
	eachEngine(t, testResetRestoresInitialStateAndSeed)
}

func testResetRestoresInitialStateAndSeed(t *testing.T, engine string) {
	e := loadEnvWith(t, "mini", engine)
	ep := newEpisode(t, e, "", 7)
	first := call(t, ep, "roll", `{}`).Content
	call(t, ep, "put", `{"key":"a","value":"avocado"}`)
	call(t, ep, "delete", `{"keys":["b"]}`)
	if d, _ := ep.Diff(); len(d["kv"]) != 2 {
		t.Fatalf("diff before reset: %v", d)
	}
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	if d, _ := ep.Diff(); len(d) != 0 {
		t.Fatalf("diff after reset: %v", d)
	}
	if r := call(t, ep, "get", `{"key":"a"}`); r.Content != `{"k":"a","v":"apple","n":1}` {
		t.Fatalf("after reset: %s", r.Content)
	}
	ep.Reset()
	if again := call(t, ep, "roll", `{}`).Content; again != first {
		t.Fatalf("same seed after reset gave %s, first %s", again, first)
	}
	ep.ResetSeed(8)
	if other := call(t, ep, "roll", `{}`).Content; other == first {
		t.Fatalf("another seed gave the same draws %s", other)
	}
}

func TestDeterminism(t *testing.T) { eachEngine(t, testDeterminism) }

func testDeterminism(t *testing.T, engine string) {
	e := loadEnvWith(t, "mini", engine)
	run := func() ([]string, string) {
		ep := newEpisode(t, e, "", 42)
		var outs []string
		for _, c := range [][2]string{{"roll", `{}`}, {"put", `{"key":"x","value":"1"}`}, {"roll", `{}`}, {"put", `{"key":"a","value":"2"}`}, {"list", `{}`}} {
			outs = append(outs, call(t, ep, c[0], c[1]).Content)
		}
		h, err := ep.StateHash()
		if err != nil {
			t.Fatal(err)
		}
		return outs, h
	}
	o1, h1 := run()
	o2, h2 := run()
	if fmt.Sprint(o1) != fmt.Sprint(o2) || h1 != h2 {
		t.Fatalf("two runs differ:\n%v %s\n%v %s", o1, h1, o2, h2)
	}
	// A different call sequence gives a different hash.
	ep := newEpisode(t, e, "", 42)
	call(t, ep, "put", `{"key":"x","value":"other"}`)
	if h, _ := ep.StateHash(); h == h1 {
		t.Fatal("different state, same hash")
	}
}

func TestEpisodesAreIsolated(t *testing.T) { eachEngine(t, testEpisodesAreIsolated) }

func testEpisodesAreIsolated(t *testing.T, engine string) {
	e := loadEnvWith(t, "mini", engine)
	a := newEpisode(t, e, "", 1)
	b := newEpisode(t, e, "", 1)
	call(t, a, "put", `{"key":"a","value":"changed"}`)
	if r := call(t, b, "get", `{"key":"a"}`); !strings.Contains(r.Content, "apple") {
		t.Fatalf("episode b sees a's write: %s", r.Content)
	}
	// Many episodes in parallel, each writing its own value, see only their own.
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ep, err := e.NewEpisode("", int64(i))
			if err != nil {
				errs <- err
				return
			}
			defer ep.Close()
			ctx := context.Background()
			v := fmt.Sprintf("v%d", i)
			for j := 0; j < 20; j++ {
				ep.Call(ctx, "put", []byte(`{"key":"a","value":"`+v+`"}`))
				r, _ := ep.Call(ctx, "get", []byte(`{"key":"a"}`))
				if !strings.Contains(r.Content, `"`+v+`"`) {
					errs <- fmt.Errorf("episode %d read %s", i, r.Content)
					return
				}
				if j%5 == 4 {
					ep.Reset()
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestDiffShapes(t *testing.T) {
	e := loadEnv(t, "mini")
	ep := newEpisode(t, e, "", 1)
	call(t, ep, "put", `{"key":"a","value":"avocado","n":9}`) // update
	call(t, ep, "put", `{"key":"z","value":"zucchini"}`)      // insert
	call(t, ep, "delete", `{"keys":["b"]}`)                   // delete
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(d["kv"])
	want := `{"a":{"k":"a","v":"avocado","n":9},"b":null,"z":{"k":"z","v":"zucchini","n":0}}`
	if string(got) != want {
		t.Fatalf("kv diff\n got %s\nwant %s", got, want)
	}
	if len(d["log"]) != 2 {
		t.Fatalf("log diff: %s", d["log"])
	}
	// Writing a row back to its initial value removes it from the diff.
	call(t, ep, "put", `{"key":"a","value":"apple","n":1}`)
	d, _ = ep.Diff()
	if _, ok := d["kv"]["a"]; ok {
		t.Fatalf("restored row still in diff: %s", d["kv"]["a"])
	}
}

func TestScore(t *testing.T) {
	e := loadEnv(t, "mini")
	ctx := context.Background()
	ep := newEpisode(t, e, "put-d", 1)
	s, err := ep.Score(ctx, nil)
	if err != nil || s.Reward != 0.5 || s.AllPassed {
		t.Fatalf("empty episode: %+v %v", s, err)
	}
	call(t, ep, "put", `{"key":"d","value":"date","n":4}`)
	if s, _ = ep.Score(ctx, nil); s.Reward != 1 || !s.AllPassed || s.Passed != 2 {
		t.Fatalf("solved: %+v", s)
	}
	call(t, ep, "put", `{"key":"a","value":"oops"}`)
	if s, _ = ep.Score(ctx, nil); s.Reward != 0.5 {
		t.Fatalf("collateral change not caught: %+v", s)
	}

	// Setup overlay + answer check: init holds the overlay, main starts from it.
	ep2 := newEpisode(t, e, "delete-a", 1)
	if r := call(t, ep2, "get", `{"key":"a"}`); !strings.Contains(r.Content, "avocado") {
		t.Fatalf("setup not applied: %s", r.Content)
	}
	call(t, ep2, "delete", `{"keys":["a"]}`)
	ans := "It was avocado."
	if s, _ = ep2.Score(ctx, &ans); !s.AllPassed || s.Total != 3 {
		t.Fatalf("delete-a: %+v", s)
	}
	if s, _ = ep2.Score(ctx, nil); s.AllPassed {
		t.Fatalf("missing answer passed: %+v", s)
	}
	// A plain episode does not see the task's overlay.
	plain := newEpisode(t, e, "", 1)
	if r := call(t, plain, "get", `{"key":"a"}`); !strings.Contains(r.Content, "apple") {
		t.Fatalf("overlay leaked: %s", r.Content)
	}

	// reward: state compares with the ground-truth replay.
	ep3 := newEpisode(t, e, "state-b", 1)
	if s, _ = ep3.Score(ctx, nil); s.Reward != 0 {
		t.Fatalf("state-b unsolved: %+v", s)
	}
	call(t, ep3, "put", `{"key":"b","value":"blueberry"}`)
	if s, _ = ep3.Score(ctx, nil); s.Reward != 1 {
		t.Fatalf("state-b solved: %+v", s)
	}
	call(t, ep3, "put", `{"key":"c","value":"x"}`)
	if s, _ = ep3.Score(ctx, nil); s.Reward != 0 {
		t.Fatalf("state-b extra write: %+v", s)
	}
	if _, err := newEpisode(t, e, "", 1).Score(ctx, nil); err == nil {
		t.Fatal("scoring an episode without a task succeeded")
	}
	if _, err := e.NewEpisode("no-such-task", 1); err == nil {
		t.Fatal("unknown task accepted")
	}
}

func TestAnswerMatching(t *testing.T) {
	cases := []struct {
		match, want, got string
		ok               bool
	}{
		{"exact", "42", " 42 ", true}, {"exact", "42", "42.0", false},
		{"contains", "Paris", "the answer is paris.", true}, {"contains", "Paris", "Lyon", false},
		{"regex", `^W\d+$`, "W123", true}, {"regex", `^W\d+$`, "X1", false},
		{"number", "1234.5", "total: $1,234.50", true}, {"number", "3", "2.99", false},
		{"json", `{"a":[1,2]}`, `{"a": [1, 2]}`, true}, {"json", `{"a":1}`, `not json`, false},
		{"contains_all", `["327", "1000", "1786"]`, "You have $327, $1,000 and $1,786.", true},
		{"contains_all", `["Camera", "481.5"]`, "the camera costs 481.50", true},
		{"contains_all", `["327", "1786"]`, "only 327", false},
	}
	for _, c := range cases {
		ok, _, err := matchAnswer(envpkgAnswer(c.want, c.match), c.got)
		if ok != c.ok || err != nil {
			t.Errorf("%s %q vs %q: %v %v", c.match, c.want, c.got, ok, err)
		}
	}
}

// A custom export view whose record text changes but whose JSON value does
// not (key order) reports no change.
func TestDiffComparesValuesNotText(t *testing.T) {
	e := loadEnv(t, "mini")
	e.views = []view{{name: "kv", query: `SELECT k, CASE WHEN v = 'swapped' THEN json_object('n', n, 'v', 'apple') ELSE json_object('v', v, 'n', n) END FROM {schema}.kv`, tables: []string{"kv"}}}
	ep := newEpisode(t, e, "", 1)
	call(t, ep, "put", `{"key":"a","value":"swapped","n":1}`)
	d, err := ep.Diff()
	if err != nil {
		t.Fatal(err)
	}
	if len(d) != 0 {
		t.Fatalf("same value reported as a change: %s", d["kv"])
	}
	call(t, ep, "put", `{"key":"b","value":"blueberry"}`)
	if d, _ = ep.Diff(); len(d["kv"]) != 1 {
		t.Fatalf("diff: %v", d)
	}
}

// The fast interruption path is really in use for modules the compiler
// builds: instrumentLoops understands every instruction they contain, and
// refuses instructions it does not know (then wazero's slower mechanism is
// used instead).
func TestInstrumentLoops(t *testing.T) {
	b := testBundle(t, "mini", false)
	out, err := instrumentLoops(b.Module)
	if err != nil {
		t.Fatalf("instrumentLoops on a compiler-built module: %v", err)
	}
	if len(out) <= len(b.Module) {
		t.Fatal("no loop checks inserted")
	}
	// What the inserted checks do is tested on a module small enough to
	// read: TestInstrumentedLoopStopsAndYields.
	// A module with a SIMD instruction (0xFD prefix) in a function body.
	simd := []byte{0, 'a', 's', 'm', 1, 0, 0, 0,
		1, 4, 1, 0x60, 0, 0, // type: () -> ()
		3, 2, 1, 0, // func 0: type 0
		6, 1, 0, // no globals
		7, 1, 0, // no exports
		10, 7, 1, 5, 0, 0xFD, 0x0C, 0x00, 0x0B, // body with a SIMD op
	}
	if _, err := instrumentLoops(simd); err == nil {
		t.Fatal("unknown instruction accepted")
	}
}
