package llm

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"go/format"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wasmenv/wasmenv/envpkg"
	replay "github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/synth/retain"
)

// corpusDir holds the environments a chat model made through the relay
// (internal/relay), every exchange recorded under corpus/recording.
const corpusDir = "corpus"

// corpusRun is one recorded `synth llm` run: the settings it ran with.
type corpusRun struct {
	scenarios string // file of scenarios under corpusDir
	auth      bool   // --auth assumed
	tasks     int    // --tasks
	repairs   int    // --retain-repairs (the first runs were recorded before repairs existed)
	k         int    // --retain-k: 2 until round 6, Agent-World's 4 from round 7
	recording string // directory of its exchanges under corpusDir; empty: "recording"
}

// recordingDir is the directory under corpusDir that holds run's exchanges:
// runs recorded through another relay keep their own recording, replayed
// by a server of its own, so two sets of runs recorded at once never share
// (or renumber) one index.
func (run corpusRun) recordingDir() string {
	if run.recording == "" {
		return "recording"
	}
	return run.recording
}

var corpusRuns = []corpusRun{
	{"scenarios-assumed.jsonl", true, 5, 0, 2, ""}, {"scenarios-tools.jsonl", false, 5, 0, 2, ""},
	// Round 6 (issue 36): ten more domains, ten tasks each.
	{"scenarios-r6-assumed.jsonl", true, 10, 2, 2, ""}, {"scenarios-r6-tools.jsonl", false, 10, 2, 2, ""},
	{"scenarios-r6b-assumed.jsonl", true, 10, 2, 2, ""}, {"scenarios-r6b-tools.jsonl", false, 10, 2, 2, ""},
	// Round 7 (issue 36): twelve tasks each, the gate at k = 4.
	{"scenarios-r7-assumed.jsonl", true, 12, 2, 4, ""}, {"scenarios-r7-tools.jsonl", false, 12, 2, 4, ""},
	{"scenarios-r7b-assumed.jsonl", true, 12, 2, 4, ""}, {"scenarios-r7b-tools.jsonl", false, 12, 2, 4, ""},
	{"scenarios-r7c-assumed.jsonl", true, 12, 2, 4, ""}, {"scenarios-r7c-tools.jsonl", false, 12, 2, 4, ""},
	{"scenarios-r7d-assumed.jsonl", true, 12, 2, 4, ""}, {"scenarios-r7d-tools.jsonl", false, 12, 2, 4, ""},
	// Round 7, recorded beside the runs above through a second relay
	// (charity donations, software licences; university housing, freight
	// bookings; hotel spa, marina berths; driving lessons). Its self storage
	// environment was left out: the run above has one of the same name.
	{"scenarios-r7c2-assumed.jsonl", true, 12, 2, 4, "recording-r7c"}, {"scenarios-r7c2-tools.jsonl", false, 12, 2, 4, "recording-r7c"},
	{"scenarios-r7c2b-assumed.jsonl", true, 12, 2, 4, "recording-r7c"}, {"scenarios-r7c2b-tools.jsonl", false, 12, 2, 4, "recording-r7c"},
	{"scenarios-r7c2c-assumed.jsonl", true, 12, 2, 4, "recording-r7c"}, {"scenarios-r7c2c-tools.jsonl", false, 12, 2, 4, "recording-r7c"},
	{"scenarios-r7c2d-assumed.jsonl", true, 12, 2, 4, "recording-r7c"},
	// Round 8 (issue 36), recorded through a second relay beside round 8's
	// others, tasks of several steps each: ski passes, camping sites; moving
	// company, passport renewal.
	{"scenarios-r8b-assumed.jsonl", true, 12, 2, 4, "recording-r8b"}, {"scenarios-r8b-tools.jsonl", false, 12, 2, 4, "recording-r8b"},
	// Then bookstore orders, language tutoring; wedding venues, crowdfunding
	// pledges.
	{"scenarios-r8b2-assumed.jsonl", true, 12, 2, 4, "recording-r8b"}, {"scenarios-r8b2-tools.jsonl", false, 12, 2, 4, "recording-r8b"},
	// Then laundry service; recycling pickups.
	{"scenarios-r8b3-assumed.jsonl", true, 12, 2, 4, "recording-r8b"}, {"scenarios-r8b3-tools.jsonl", false, 12, 2, 4, "recording-r8b"},
	// Round 8 (issue 36): tasks of several steps (a lookup, a rule, two or
	// more rows), recorded through their own relay (dental appointments,
	// child care; restaurant reservations, home cleaning).
	{"scenarios-r8-assumed.jsonl", true, 12, 2, 4, "recording-r8"}, {"scenarios-r8-tools.jsonl", false, 12, 2, 4, "recording-r8"},
	// (golf tee times, dog boarding; travel vaccinations, event catering)
	{"scenarios-r8c-assumed.jsonl", true, 12, 2, 4, "recording-r8"}, {"scenarios-r8c-tools.jsonl", false, 12, 2, 4, "recording-r8"},
	// (swimming lessons, escape rooms; bike repair, print shop)
	{"scenarios-r8d-assumed.jsonl", true, 12, 2, 4, "recording-r8"}, {"scenarios-r8d-tools.jsonl", false, 12, 2, 4, "recording-r8"},
	// (tennis courts, florist orders; car wash memberships, kayak rentals)
	{"scenarios-r8e-assumed.jsonl", true, 12, 2, 4, "recording-r8"}, {"scenarios-r8e-tools.jsonl", false, 12, 2, 4, "recording-r8"},
	// Round 9 (issue 36): --task-steps 4 and --retain-max-turns 16
	// (recordingOptions), through their own relay (cinema tickets, tool
	// and equipment hire; farmers' market stalls, boiler servicing).
	{"scenarios-r9-assumed.jsonl", true, 12, 2, 4, "recording-r9"}, {"scenarios-r9-tools.jsonl", false, 12, 2, 4, "recording-r9"},
	// Then opticians; allotment plots.
	{"scenarios-r9c-assumed.jsonl", true, 12, 2, 4, "recording-r9"}, {"scenarios-r9c-tools.jsonl", false, 12, 2, 4, "recording-r9"},
	// Round 9 (issue 36), a second relay beside round 9's others, with
	// --task-steps 4 --retain-max-turns 16 (recordingOptions): bus passes,
	// library room booking; train seat reservations, warranty repairs.
	{"scenarios-r9b-assumed.jsonl", true, 12, 2, 4, "recording-r9b"}, {"scenarios-r9b-tools.jsonl", false, 12, 2, 4, "recording-r9b"},
	// Then gym memberships, music festival tickets; utility billing disputes.
	{"scenarios-r9b2-assumed.jsonl", true, 12, 2, 4, "recording-r9b"}, {"scenarios-r9b2-tools.jsonl", false, 12, 2, 4, "recording-r9b"},
}

// runOptions are the settings a recording's runs used beyond corpusRun's
// (zero: the defaults of the runs before them).
type runOptions struct {
	taskSteps int // --task-steps (0: off)
	maxTurns  int // --retain-max-turns (0: 12)
}

// recordingOptions holds them by recording directory, so that the entries
// above keep their form.
var recordingOptions = map[string]runOptions{
	"recording-r9":  {taskSteps: 4, maxTurns: 16},
	"recording-r9b": {taskSteps: 4, maxTurns: 16},
}

// corpusConfig is the command line the recorded runs used:
// --tasks N --probe-rounds 1 --retain-k K --retain-max-turns 12
// --retain-repairs R (and, by recording, recordingOptions).
func corpusConfig(url, out string, run corpusRun, scenarios []Scenario) Config {
	opts := recordingOptions[run.recordingDir()]
	maxTurns := 12
	if opts.maxTurns != 0 {
		maxTurns = opts.maxTurns
	}
	return Config{
		Client:           &Client{BaseURL: url + "/v1", Model: "claude (via relay)", APIKey: replay.Key, Backoff: time.Millisecond},
		OutDir:           out,
		Scenarios:        scenarios,
		TasksPerScenario: run.tasks,
		ProbeRounds:      1,
		AuthAssumed:      run.auth,
		RetainK:          run.k,
		RetainMaxTurns:   maxTurns,
		RetainRepairs:    run.repairs,
		TaskSteps:        opts.taskSteps,
		Jobs:             2,
	}
}

func readCorpusScenarios(t *testing.T, name string) []Scenario {
	t.Helper()
	f, err := os.Open(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Scenario
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s Scenario
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, s)
	}
	return out
}

// TestRelayedCorpusReplays runs `synth llm` end to end, with the retention
// gate, on the recorded answers of a chat model (served by a real HTTP
// server, no model), and finds the environments of corpus/ exactly: each
// stage's answer executed and gated again, each task played again by the
// recorded agent. With -update it writes them (the corpus's one command:
// go test ./synth/llm -run TestRelayedCorpusReplays -update).
func TestRelayedCorpusReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	servers := map[string]*replay.Server{} // one per recording directory
	for _, run := range corpusRuns {
		if servers[run.recordingDir()] == nil {
			servers[run.recordingDir()] = replay.New(t, filepath.Join(corpusDir, run.recordingDir()))
		}
	}
	dropped, ran := 0, 0
	for _, run := range corpusRuns {
		// One subtest per recorded run: -run 'TestRelayedCorpusReplays/r7'
		// replays only round 7's.
		t.Run(strings.TrimSuffix(run.scenarios, ".jsonl"), func(t *testing.T) {
			ran++
			dropped += replayCorpusRun(t, servers[run.recordingDir()].URL, run)
		})
	}
	if ran < len(corpusRuns) {
		return // a subset ran: the checks below are about the whole recording
	}
	// The recorded gate found right answers that answer rules rejected
	// (docs/SYNTHESIS.md, "Retention"): those tasks are gone.
	if dropped == 0 {
		t.Error("the recorded retention gate dropped no task")
	}
	// Every recorded answer was asked for again.
	for dir, srv := range servers {
		st := srv.Stats()
		for _, e := range srv.Index {
			if st.Used[e.File] == 0 {
				t.Errorf("recorded answer %s/%s was not asked for", dir, e.File)
			}
		}
	}
}

// replayCorpusRun replays one recorded run, compares (or, with -update,
// writes) its environments and returns how many tasks its gate dropped.
func replayCorpusRun(t *testing.T, url string, run corpusRun) (dropped int) {
	scenarios := readCorpusScenarios(t, run.scenarios)
	out := t.TempDir()
	rep, err := Run(context.Background(), corpusConfig(url, out, run, scenarios))
	if err != nil {
		t.Fatal(err)
	}
	for _, env := range rep.Envs {
		if !env.Kept {
			t.Errorf("%s: dropped: %s", env.Scenario.Name, env.Reason)
			continue
		}
		if env.Retention == nil || env.Retention.K != run.k {
			t.Errorf("%s: the retention gate did not run at k = %d: %+v", env.Scenario.Name, run.k, env.Retention)
			continue
		}
		dropped += checkRetention(t, env, filepath.Join(out, env.Scenario.Name), run.k)
		compareCorpusEnv(t, filepath.Join(out, env.Scenario.Name), filepath.Join(corpusDir, env.Scenario.Name))
		if *update {
			b, _ := json.MarshalIndent(env, "", "  ")
			b = bytes.ReplaceAll(b, []byte(out+string(filepath.Separator)), nil)
			if err := os.WriteFile(filepath.Join(corpusDir, env.Scenario.Name, "report.json"), append(b, '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dropped
}

// compareCorpusEnv compares (or, with -update, copies) an environment's
// source files.
func compareCorpusEnv(t *testing.T, got, want string) {
	t.Helper()
	var files []string
	filepath.WalkDir(got, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(got, p)
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(got, rel))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(rel, ".go") {
			// A repository's gofmt check passes on a written environment.
			if f, err := format.Source(b); err != nil || !bytes.Equal(f, b) {
				t.Errorf("%s is not gofmt-formatted (err %v)", rel, err)
			}
		}
		dst := filepath.Join(want, rel)
		if *update {
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.WriteFile(dst, b, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if w, err := os.ReadFile(dst); err != nil || !bytes.Equal(w, b) {
			t.Errorf("%s differs from the replayed run (regenerate: go test ./synth/llm -run TestRelayedCorpusReplays -update)", dst)
		}
	}
}

// checkRetention checks what the gate decided on a replayed run and
// returns how many tasks it dropped: tasks the agent solved carry their
// measured pass rate (of k attempts) in their difficulty; a task no attempt
// solved was examined and, at the environment's fault, dropped with the
// reason, and is not written.
func checkRetention(t *testing.T, env EnvReport, dir string, k int) (dropped int) {
	t.Helper()
	name := env.Scenario.Name
	kept := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, filepath.Join(dir, "tasks.jsonl"))), "\n") {
		var task envpkg.Task
		if err := json.Unmarshal([]byte(line), &task); err != nil {
			t.Fatal(err)
		}
		kept[task.ID] = true
		if d := task.Difficulty; d == nil || d.PassRate == nil || d.Attempts != k {
			t.Errorf("%s/%s: no measured pass rate: %+v", name, task.ID, d)
		}
	}
	for _, res := range env.Retention.Tasks {
		switch res.Fate {
		case retain.Dropped:
			if kept[res.ID] || res.Fault != retain.EnvFault || res.Reason == "" || res.Solved != 0 {
				t.Errorf("%s/%s: dropped, yet written, solved, or without an environment fault and reason: %+v", name, res.ID, res)
			}
		case retain.Kept:
			if !kept[res.ID] || res.Solved == 0 || res.PassRate != float64(res.Solved)/float64(res.Attempts) {
				t.Errorf("%s/%s: %+v", name, res.ID, res)
			}
		}
	}
	if len(kept) == 0 || env.Tasks != len(kept) || len(kept)+len(env.Retention.Dropped()) != len(env.Retention.Tasks) {
		t.Errorf("%s: %d tasks written, the report says %d kept, the gate %d dropped of %d",
			name, len(kept), env.Tasks, len(env.Retention.Dropped()), len(env.Retention.Tasks))
	}
	return len(env.Retention.Dropped())
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
