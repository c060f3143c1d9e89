package llm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
	replay "github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/runtime"
)

func TestMain(m *testing.M) { testcache.Main(m) }

func newReplayServer(t *testing.T) *replay.Server { return replay.New(t, replayDir) }

func replayConfig(srv *replay.Server, out string) Config {
	return Config{
		Client: &Client{BaseURL: srv.URL + "/v1", Model: "Qwen/Qwen2.5-Coder-32B-Instruct", APIKey: replay.Key,
			Backoff: time.Millisecond, Prices: Prices{Input: 0.20, Output: 0.60}},
		OutDir:           out,
		Seeds:            []string{"public libraries", "healthcare clinics"},
		NumScenarios:     3,
		ScenarioStalls:   3,
		TasksPerScenario: 2,
		ProbeRounds:      1,
		AuthAssumed:      true,
		Jobs:             2,
	}
}

// TestPipelineReplay drives the whole pipeline against recorded model
// responses for two scenarios (and a near-duplicate third), including
// answers that must be repaired: invalid SQL and a host-clock default in
// the schema, an INSERT out of foreign-key order, a forbidden import, a Go
// type error, a tool that fails its own test, a test that is wrong, and a
// verifier that passes on the initial state. Then it runs again over the
// same directory against a server that answers nothing, which must resume
// from the stored artifacts.
func TestPipelineReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	srv := newReplayServer(t)
	out := t.TempDir()
	ctx := context.Background()
	rep, err := Run(ctx, replayConfig(srv, out))
	if err != nil {
		t.Fatal(err)
	}

	// Every recorded response was asked for: each repair path ran.
	st := srv.Stats()
	for _, e := range srv.Index {
		if st.Used[e.File] == 0 {
			t.Errorf("recorded response %s was never requested", e.File)
		}
	}
	// The 429 was retried; json_schema was refused once and JSON mode used after.
	if !st.Got429 {
		t.Error("the rate-limited request was not retried")
	}
	for i, f := range st.Formats {
		if f != "json_object" {
			t.Errorf("request %d used response_format %q after the server refused json_schema", i, f)
		}
	}

	// The first answer has a near-duplicate; the further requests for a
	// third scenario only bring a near-duplicate of the clinic, and after
	// three such requests the stage stops with two.
	if len(rep.Duplicates) != 4 || rep.Duplicates[0].What != "library-loans-desk" || rep.Duplicates[1].What != "clinic-visit-scheduling" ||
		rep.Duplicates[1].Reason != "near-duplicate of clinic-appointments" || rep.Proposed != 6 {
		t.Errorf("proposed %d, duplicates = %+v", rep.Proposed, rep.Duplicates)
	}
	if s := rep.Stages[StageScenarios]; s.Runs != 4 || s.Trials != 4 {
		t.Errorf("scenarios stage %+v: want 4 requests", s)
	}
	if rep.Scenarios != 2 || rep.Kept != 2 {
		t.Fatalf("scenarios %d, kept %d; want 2 and 2: %+v", rep.Scenarios, rep.Kept, rep.Envs)
	}
	envs := map[string]EnvReport{}
	for _, e := range rep.Envs {
		envs[e.Scenario.Name] = e
	}
	lib, clinic := envs["library-lending"], envs["clinic-appointments"]

	// Library: the schema is repaired after a syntax error and a host-clock
	// default; the code after a forbidden import and then a type error.
	wantRepairs(t, lib, "schema attempt 1", "syntax error", "reads the host clock")
	wantRepairs(t, lib, "code attempt 1", `import "os" is not allowed in tool code`)
	wantRepairs(t, lib, "code attempt 2", "cannot use count.Int", "as int value")
	if s := lib.Stages[StageSchema]; s.Trials != 2 || s.Passed != 1 {
		t.Errorf("library schema stage: %+v, want 2 trials and a pass", s)
	}
	if s := lib.Stages[StageCode]; s.Trials != 3 || s.Passed != 1 {
		t.Errorf("library code stage: %+v, want 3 trials and a pass", s)
	}

	// Clinic: the one INSERT out of foreign-key order (1 of 12, under 10%)
	// is dropped and the rest kept; the wrong test is dropped, the wrong
	// code repaired; the verifier passing on the initial state repaired.
	wantDropped(t, clinic, "data statement 11", "FOREIGN KEY constraint failed")
	wantDropped(t, clinic, `tool test find_patient({"phone":"555-0199"})`, "judged a bad test")
	wantRepairs(t, clinic, "code attempt 1", "tool book_appointment fails test 5", "the judge says the code is wrong")
	wantRepairs(t, clinic, "verifiers attempt 1", "task cancel-dermatology-visit fails gate initial", "the initial state already scores 1.0")
	if s := clinic.Stages[StageData]; s.Trials != 1 || s.Passed != 1 {
		t.Errorf("clinic data stage: %+v, want 1 trial and a pass", s)
	}
	if clinic.Tests != 7 {
		t.Errorf("clinic kept %d tool tests, want 7 (one of 8 judged bad)", clinic.Tests)
	}

	for _, e := range []EnvReport{lib, clinic} {
		if e.Tasks != 2 || e.Tools != 4 || e.PassRate != 1 {
			t.Errorf("%s: %d tasks, %d tools, pass rate %.2f; want 2, 4, 1", e.Scenario.Name, e.Tasks, e.Tools, e.PassRate)
		}
		checkKeptEnv(t, e)
	}
	if n := srv.Stats().Answered; n != 29 {
		t.Errorf("a full run took %d answers, want 29", n)
	}
	if rep.TotalTokens == 0 || rep.TotalCost == 0 {
		t.Errorf("no tokens or cost accounted: %d, %f", rep.TotalTokens, rep.TotalCost)
	}
	for _, f := range []string{"report.json", "report.md", "reports/library-lending.json", "reports/clinic-appointments.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, "report.md"))
	t.Logf("report.md:\n%s", md)
	if !strings.Contains(string(md), "| code | 2 | 2 | 100% | 0 | 5 |") {
		t.Errorf("report.md lacks the code stage row (2 runs, none on the first try, 5 trials):\n%s", md)
	}

	// Resume: the same run over the same directory asks the model nothing.
	srv.Refuse()
	rep2, err := Run(ctx, replayConfig(srv, out))
	if err != nil {
		t.Fatalf("resumed run: %v", err)
	}
	if n := srv.Stats().Refused; n != 0 {
		t.Errorf("the resumed run asked the model %d times", n)
	}
	if rep2.Kept != 2 || rep2.Stages[StageCode].Cached != 2 || rep2.Stages[StageCode].Trials != 0 {
		t.Errorf("resumed run: kept %d, code stage %+v; want 2 kept, all cached", rep2.Kept, rep2.Stages[StageCode])
	}
	// A cached stage is taken as its check left it: the code stage's
	// check (a build, the tool tests, the judge) does not run again, and
	// what the checks dropped is reported once, as in the first run.
	if s, ok := rep2.Stages[StageJudge]; ok && s.Runs > 0 {
		t.Errorf("the resumed run ran the judge %d times: the code stage's check ran again", s.Runs)
	}
	for i := range rep.Envs {
		a, b := rep.Envs[i].Dropped, rep2.Envs[i].Dropped
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: dropped\n%v\nthen on resume\n%v", rep.Envs[i].Scenario.Name, a, b)
		}
	}
}

func wantRepairs(t *testing.T, e EnvReport, prefix string, parts ...string) {
	t.Helper()
	for _, r := range e.Repairs {
		if !strings.HasPrefix(r, prefix) {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(r, p)
		}
		if ok {
			return
		}
	}
	t.Errorf("%s: no repair %q with %q; repairs:\n%s", e.Scenario.Name, prefix, parts, strings.Join(e.Repairs, "\n"))
}

func wantDropped(t *testing.T, e EnvReport, what, reason string) {
	t.Helper()
	for _, d := range e.Dropped {
		if strings.Contains(d.What, what) && strings.Contains(d.What+" "+d.Reason, reason) {
			return
		}
	}
	t.Errorf("%s: nothing dropped like %q (%q): %+v", e.Scenario.Name, what, reason, e.Dropped)
}

// checkKeptEnv loads a kept bundle as a user would and checks the gates
// again from the outside: every task's ground truth scores 1.0 and its
// initial state less; the source has no forbidden import.
func checkKeptEnv(t *testing.T, e EnvReport) {
	t.Helper()
	ctx := context.Background()
	env, err := runtime.Load(ctx, e.Bundle, runtime.Options{})
	if err != nil {
		t.Fatalf("%s: %v", e.Scenario.Name, err)
	}
	defer env.Close()
	if len(env.Bundle.Tasks) != e.Tasks {
		t.Errorf("%s: bundle has %d tasks, report says %d", e.Scenario.Name, len(env.Bundle.Tasks), e.Tasks)
	}
	failing, err := gateTasks(ctx, env, append([]envpkg.Task(nil), env.Bundle.Tasks...))
	if err != nil || len(failing) > 0 {
		t.Errorf("%s: tasks fail synth's gates: %v %v", e.Scenario.Name, err, failing)
	}
	files, _ := filepath.Glob(filepath.Join(e.Dir, "tools", "*.go"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), `"os"`) {
			t.Errorf("%s imports os", f)
		}
	}
}

// TestPipelineDropsWhatItCannotRepair runs the same recorded answers with
// no retries: the library's first schema has failing statements and the
// clinic's first code fails a tool test, so both are dropped with the
// stage and the problem as the reason, and nothing is written for them.
func TestPipelineDropsWhatItCannotRepair(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	srv := newReplayServer(t)
	out := t.TempDir()
	cfg := replayConfig(srv, out)
	cfg.MaxAttempts = 1
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != 0 {
		t.Fatalf("kept %d environments, want 0", rep.Kept)
	}
	reasons := map[string]string{}
	for _, e := range rep.Envs {
		reasons[e.Scenario.Name] = e.Reason
		if _, err := os.Stat(filepath.Join(out, e.Scenario.Name+".wasm")); err == nil {
			t.Errorf("%s: a bundle was written for a dropped environment", e.Scenario.Name)
		}
	}
	if r := reasons["library-lending"]; !strings.HasPrefix(r, "schema: 1 attempts") || !strings.Contains(r, "syntax error") {
		t.Errorf("library reason = %q", r)
	}
	if r := reasons["clinic-appointments"]; !strings.HasPrefix(r, "code: 1 attempts") || !strings.Contains(r, "book_appointment fails test") {
		t.Errorf("clinic reason = %q", r)
	}
	if s := rep.Stages[StageSchema]; s.Runs != 2 || s.Passed != 1 {
		t.Errorf("schema stage %+v: want 2 runs, 1 passed", s)
	}
}

// TestPipelineResumesAfterInterrupt cancels a run (as Ctrl-C does) after
// 15 answers, then runs again: the second run asks only for what the first
// did not finish, and ends with the same environments.
func TestPipelineResumesAfterInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	srv := newReplayServer(t)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	srv.OnAnswer(func(n int) {
		if n == 15 {
			cancel()
		}
	})
	if _, err := Run(ctx, replayConfig(srv, out)); !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted run: %v, want context.Canceled", err)
	}
	first := srv.Stats().Answered
	srv.OnAnswer(nil)
	rep, err := Run(context.Background(), replayConfig(srv, out))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Kept != 2 {
		t.Fatalf("kept %d after resuming, want 2", rep.Kept)
	}
	// A full run takes 29 answers (see TestPipelineReplay); the second run
	// must not ask again for what the first stored.
	second := srv.Stats().Answered - first
	if second >= 29 || first+second < 29 {
		t.Errorf("first run %d answers, second %d: want the second to ask only for the rest of 29", first, second)
	}
	cached := 0
	for _, s := range rep.Stages {
		cached += s.Cached
	}
	if cached == 0 {
		t.Error("the resumed run used no stored stage")
	}
}

// TestUnrepairedTaskIsDroppedNotTheEnvironment: with no attempt left to
// repair it, the task whose checks pass on the initial state is dropped
// with the gate's reason, and the other task is kept.
func TestUnrepairedTaskIsDroppedNotTheEnvironment(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a guest module")
	}
	srv := newReplayServer(t)
	out := t.TempDir()
	cfg := replayConfig(srv, out)
	cfg.defaults()
	prompts, err := LoadPrompts("")
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeline{cfg: cfg, prompts: prompts, store: store{dir: filepath.Join(out, ".synth-cache")}}
	r := &envRun{p: p, sc: Scenario{Name: "clinic-appointments", Title: "Clinic appointment booking"}, ledger: newLedger(),
		rep: &EnvReport{}, workDir: filepath.Join(out, ".work", "clinic")}
	ctx := context.Background()
	for _, s := range pipelineStages {
		if s.name == StageVerifiers {
			break
		}
		if s.run != nil {
			if err := s.run(r, ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	p.cfg.MaxAttempts = 1
	if err := r.runVerifiers(ctx); err != nil {
		t.Fatal(err)
	}
	tasks := r.final
	if len(tasks) != 1 || tasks[0].ID != "book-cardiology-followup" {
		t.Errorf("kept tasks %+v, want book-cardiology-followup only", tasks)
	}
	wantDropped(t, *r.rep, "task cancel-dermatology-visit", "fails gate initial")

	// One build per state: the final state built again (the probe stage
	// after the verifiers') is the same bundle, not a second compile.
	env1, b1, probs, err := r.build(ctx, r.code, r.final)
	if err != nil || len(probs) > 0 {
		t.Fatal(err, probs)
	}
	env1.Close()
	env2, b2, _, err := r.build(ctx, r.code, r.final)
	if err != nil {
		t.Fatal(err)
	}
	env2.Close()
	if b1 != b2 {
		t.Error("the same state was compiled twice")
	}
}
