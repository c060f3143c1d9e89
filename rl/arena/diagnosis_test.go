package arena

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/internal/chatapi"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/rl"
	"github.com/wasmenv/wasmenv/rl/internal/rltest"
	"github.com/wasmenv/wasmenv/runtime"
)

// arenaReport evaluates a failing policy on store and the oracle on
// calendar: store is the weak environment by construction.
func arenaReport(t *testing.T) (*Report, []Record, *runtime.Env) {
	t.Helper()
	store, cal := rltest.Load(t, "store"), rltest.Load(t, "calendar")
	recs := records(t, store, faulty{fault: CauseMissingLookup}, rl.Config{Group: 2, MaxTurns: 40})
	recs = append(recs, records(t, cal, rl.Oracle{}, rl.Config{Group: 2, MaxTurns: 40})...)
	rep, err := BuildReport(context.Background(), map[string]*runtime.Env{store.Name(): store, cal.Name(): cal}, nil, recs)
	if err != nil {
		t.Fatal(err)
	}
	return rep, recs, store
}

// The procedural diagnosis names the failing environment alone as weak,
// with the tools its failed chains needed, and the targeted pick covers
// those tools more than an untargeted pick of the same size.
func TestProceduralDiagnosisAndTarget(t *testing.T) {
	rep, _, store := arenaReport(t)
	d, err := Procedural{}.Diagnose(context.Background(), rep)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(rep); err != nil {
		t.Fatal(err)
	}
	if len(d.Weak) != 1 || d.Weak[0].Env != "store" || d.Weak[0].Rank != 1 {
		t.Fatalf("weak %+v", d.Weak)
	}
	g := d.Weak[0].Guidelines
	if len(g.Tools) == 0 || len(g.Causes) == 0 || g.Causes[0] != CauseMissingLookup || len(d.RootCauses) == 0 {
		t.Fatalf("guidelines %+v, root causes %+v", g, d.RootCauses)
	}
	n := len(store.Bundle.Tasks) / 3
	targeted := Target(store.Bundle.Tasks, g, n)
	control := Untargeted(store.Bundle.Tasks, n, 1)
	if len(targeted) != n || len(control) != n {
		t.Fatalf("picked %d and %d, want %d", len(targeted), len(control), n)
	}
	top := g.Tools[:1]
	if a, b := tasksUsing(targeted, top), tasksUsing(control, top); a < b || a == 0 {
		t.Errorf("targeted tasks using %v: %d, untargeted %d", top, a, b)
	}
	again := Target(store.Bundle.Tasks, g, n)
	for i := range again {
		if again[i].ID != targeted[i].ID {
			t.Fatal("Target is not a function of its inputs")
		}
	}
}

// A diagnosis that names what the report does not have is refused.
func TestValidateRefusesWhatTheReportLacks(t *testing.T) {
	rep, _, _ := arenaReport(t)
	bad := []Diagnosis{
		{Weak: []WeakEnv{{Env: "nowhere", Rank: 1}}},
		{Weak: []WeakEnv{{Env: "store", Rank: 2}}},
		{Weak: []WeakEnv{{Env: "store", Rank: 1, Guidelines: Guidelines{Tools: []string{"rm_rf"}}}}},
		{RootCauses: []RootCause{{Cause: "laziness"}}},
		{Weak: []WeakEnv{{Env: "store", Rank: 1, Guidelines: Guidelines{ChainLengths: []int{1000}}}}},
	}
	for i, d := range bad {
		if err := d.Validate(rep); err == nil {
			t.Errorf("diagnosis %d validated: %+v", i, d)
		}
	}
}

// The LLM diagnosis on recorded responses through a real HTTP server: a
// fenced, valid answer is kept; an unknown environment, prose and a cause
// outside the taxonomy are errors that say why.
func TestLLMDiagnosisOnRecordedResponses(t *testing.T) {
	rep, recs, _ := arenaReport(t)
	srv := llmreplay.New(t, "testdata/diagnose")
	client := chatapi.New(srv.URL+"/v1", llmreplay.Key, 2)
	diag := func(c string) (*Diagnosis, error) {
		l := &LLM{Client: client, Model: "gpt-4.1", Records: recs, Prompt: "CASE " + c + "\n" + defaultPrompt}
		return l.Diagnose(context.Background(), rep)
	}
	d, err := diag("valid")
	if err != nil {
		t.Fatal(err)
	}
	if d.By != "llm:gpt-4.1" || len(d.Weak) != 1 || d.Weak[0].Env != "store" ||
		!slices.Contains(d.Weak[0].Guidelines.Tools, "list_orders") {
		t.Fatalf("diagnosis %+v", d)
	}
	for c, want := range map[string]string{
		"unknown-env": `"airline" is not in the report`,
		"prose":       "not a diagnosis object",
		"bad-cause":   `"laziness" is not in the taxonomy`,
	} {
		if _, err := diag(c); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", c, err, want)
		}
	}
}
