package llm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	replay "github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/synth/retain"
)

// repairRecording holds the exchanges of the chat model (through the
// relay) that repaired the corpus's course-enrolment gate: the verifiers
// stage asked again with the examiner's reason, the agent's new attempts,
// the examiner again. The stages and the first gate are the corpus's own
// recording.
const repairRecording = "testdata/retain-repair"

// mergedRecording is a recording directory holding the corpus's exchanges
// and those of dirs, each file under a name of its own.
func mergedRecording(t *testing.T, dirs ...string) string {
	t.Helper()
	out := t.TempDir()
	var index []replay.Entry
	for i, dir := range append([]string{filepath.Join(corpusDir, "recording")}, dirs...) {
		var entries []replay.Entry
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "index.json"))), &entries); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.File
			if i > 0 {
				name = filepath.Base(dir) + "-" + e.File
			}
			if err := os.WriteFile(filepath.Join(out, name), []byte(readFile(t, filepath.Join(dir, e.File))), 0o644); err != nil {
				t.Fatal(err)
			}
			e.File = name
			index = append(index, e)
		}
	}
	b, _ := json.Marshal(index)
	if err := os.WriteFile(filepath.Join(out, "index.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// courseEnrolment is the corpus run of the course-enrolment scenario with
// repairs: the recorded gate dropped count-fall-credits at the
// environment's fault (the agent said "6 credits" and the courses'
// credits; the answer rule allows no other number).
func courseEnrolment(t *testing.T, url, out string, repairs int) Config {
	run := corpusRuns[0]
	var sc []Scenario
	for _, s := range readCorpusScenarios(t, run.scenarios) {
		if s.Name == "course_enrolment" {
			sc = append(sc, s)
		}
	}
	cfg := corpusConfig(url, out, run, sc)
	cfg.RetainRepairs = repairs
	return cfg
}

// The retention gate's examination, on a real chat model's recorded
// answers: a task no attempt solved, found at the environment's fault, goes
// back to the verifiers stage with the examiner's reason. Round 1's repair
// (a regex answer rule) fails the replay gate and that failure is the next
// round's problem; round 2's (contains "6 credits") passes the gates, is
// played again k = 2 times, fails again, and the examiner again finds the
// environment at fault. With 2 repairs allowed the task is dropped with the
// last reason; with 1, after the first repair's gate failure. The other
// tasks are kept as they were, and a resumed run asks nothing.
func TestRelayedRetentionRepairIsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	recording := mergedRecording(t, repairRecording)
	used := map[string]int{}
	var index []replay.Entry
	for _, tc := range []struct {
		repairs int
		reason  string // in the dropped task's reason
		trials  int
	}{
		{2, "the contains rule fails them", 2},
		{1, "repair 1 fails the gates: task count-fall-credits fails gate replay", 1},
	} {
		srv := replay.New(t, recording)
		index = srv.Index
		out := t.TempDir()
		rep, err := Run(context.Background(), courseEnrolment(t, srv.URL, out, tc.repairs))
		if err != nil {
			t.Fatal(err)
		}
		env := rep.Envs[0]
		if !env.Kept || env.Retention == nil {
			t.Fatalf("repairs %d: %+v", tc.repairs, env)
		}
		var fault *retain.TaskResult
		for i, res := range env.Retention.Tasks {
			if res.ID == "count-fall-credits" {
				fault = &env.Retention.Tasks[i]
			} else if res.Fate != retain.Kept || res.Repairs != 0 {
				t.Errorf("repairs %d: %s: %+v", tc.repairs, res.ID, res)
			}
		}
		if fault == nil || fault.Fate != retain.Dropped || fault.Fault != retain.EnvFault || fault.Repairs != tc.repairs ||
			!strings.Contains(fault.Reason, tc.reason) {
			t.Fatalf("repairs %d: the task at the environment's fault: %+v", tc.repairs, fault)
		}
		if st := env.Stages[StageRetentionRepair]; st.Runs != 1 || st.Trials != tc.trials || st.Passed != 0 {
			t.Errorf("repairs %d: the repair stage: %+v", tc.repairs, st)
		}
		found := false
		for _, d := range env.Dropped {
			found = found || d.What == "task count-fall-credits" && strings.Contains(d.Reason, "repairs of its verifier")
		}
		if !found || env.Tasks != 4 || strings.Contains(readFile(t, filepath.Join(out, "course-enrolment", "tasks.jsonl")), "count-fall-credits") {
			t.Errorf("repairs %d: dropped %+v, %d tasks kept", tc.repairs, env.Dropped, env.Tasks)
		}

		for f, n := range srv.Stats().Used {
			used[f] += n
		}

		// Resumed: the repairs are read back, not asked again.
		refusing := replay.New(t, recording)
		refusing.Refuse()
		again, err := Run(context.Background(), courseEnrolment(t, refusing.URL, out, tc.repairs))
		if err != nil {
			t.Fatal(err)
		}
		if got := again.Envs[0].Retention; refusing.Stats().Refused != 0 || got == nil || len(got.Tasks) != len(env.Retention.Tasks) || got.Tasks[0] != env.Retention.Tasks[0] {
			t.Errorf("repairs %d: resumed gate %+v (%d requests refused), want %+v", tc.repairs, got, refusing.Stats().Refused, env.Retention)
		}
	}
	for _, e := range index {
		if strings.HasPrefix(e.File, "retain-repair-") && used[e.File] == 0 {
			t.Errorf("recorded repair exchange %s was not asked for", e.File)
		}
	}
}

// userRecording holds the exchanges of the chat model playing both the
// simulated user (rl/openai.User) and the agent in staff-leave's gate, at
// k = 1, through the relay.
const userRecording = "testdata/retain-user"

// The retention gate with a simulated user (--retain-user), on a real chat
// model's recorded answers: each attempt opens with the user's first message
// (not the instruction), the agent asks for what it needs, the user answers
// from its request, and the attempt ends on the user's stop token. Every
// recorded user and agent turn is asked for: the user played every attempt.
func TestRelayedRetentionWithSimulatedUser(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	srv := replay.New(t, mergedRecording(t, userRecording))
	run := corpusRuns[1]
	var sc []Scenario
	for _, s := range readCorpusScenarios(t, run.scenarios) {
		if s.Name == "staff_leave" {
			sc = append(sc, s)
		}
	}
	cfg := corpusConfig(srv.URL, t.TempDir(), run, sc)
	cfg.RetainK, cfg.RetainUser = 1, true
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	env := rep.Envs[0]
	if !env.Kept || env.Retention == nil || env.Retention.K != 1 || len(env.Retention.Tasks) != 4 {
		t.Fatalf("%+v", env)
	}
	for _, res := range env.Retention.Tasks {
		if res.Fate != retain.Kept || res.Solved != 1 {
			t.Errorf("%s: %+v", res.ID, res)
		}
	}
	st := srv.Stats()
	for _, e := range srv.Index {
		if strings.HasPrefix(e.File, "retain-user-") && st.Used[e.File] == 0 {
			t.Errorf("recorded exchange %s (user or agent) was not asked for", e.File)
		}
	}
}
