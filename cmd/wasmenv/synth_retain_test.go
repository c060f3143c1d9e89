package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/llmreplay"
	"github.com/wasmenv/wasmenv/synth/retain"
)

// TestSynthFromDBRetentionGate runs synth from-db with the retention gate
// against a chat model's recorded answers (the agent, served by a real
// HTTP server, keyed by the whole request): all three tasks are kept. The
// agent solved all three (the two action-all tasks and the tally, each at
// pass rate 1), so the examiner was never asked and no task is marked hard.
// The bundle's difficulty and tasks.jsonl agree with retention.json.
// The recording is made again (cmd/llmrelay) whenever the synthesizer's
// tasks or rules change, since the request holds both.
func TestSynthFromDBRetentionGate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds guest modules")
	}
	srv := llmreplay.New(t, "../../synth/retain/testdata/fromdb-store")
	t.Setenv("SYNTH_TEST_KEY", llmreplay.Key)
	dir := t.TempDir()
	out, bundle := filepath.Join(dir, "store"), filepath.Join(dir, "store.wasm")
	stdout, stderr, code := run(t, "", "synth", "from-db", "../../envs/store", "-o", out, "--bundle", bundle,
		"--tasks", "3", "--seed", "1", "--retain-k", "1", "--retain-model", "claude (via relay)",
		"--retain-base-url", srv.URL+"/v1", "--retain-api-key-env", "SYNTH_TEST_KEY", "--retain-max-turns", "10")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "retention gate: 3 of 3 tasks kept (k = 1, 100% of attempts solved)") ||
		strings.Count(stdout, "hard synth-") != 0 {
		t.Errorf("stdout:\n%s", stdout)
	}
	var rep retain.Report
	if b, err := os.ReadFile(filepath.Join(out, "retention.json")); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("retention.json: %v", err)
	}
	// The recorded fates: all three tasks solved and kept, none hard.
	fates := map[string]retain.Fate{
		"synth-0001-action-all-count-order": retain.Kept,
		"synth-0002-tally-count-order":      retain.Kept,
		"synth-0003-action-all-order":       retain.Kept,
	}
	rates := map[string]float64{}
	for _, r := range rep.Tasks {
		rates[r.ID] = r.PassRate
		fate, ok := fates[r.ID]
		if !ok || r.Fate != fate || r.Attempts != 1 {
			t.Errorf("%+v", r)
			continue
		}
		if fate == retain.Kept && (r.Solved != 1 || r.PassRate != 1 || r.Fault != "") ||
			fate == retain.Hard && (r.Solved != 0 || r.PassRate != 0 || r.Fault != retain.AgentFault || r.Reason == "") {
			t.Errorf("%+v", r)
		}
	}
	if len(rep.Tasks) != 3 {
		t.Fatalf("retention.json: %d tasks", len(rep.Tasks))
	}
	for id := range fates {
		if _, ok := rates[id]; !ok {
			t.Errorf("retention.json: no %s", id)
		}
	}
	b, err := envpkg.Read(bundle)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(readText(t, filepath.Join(out, "tasks.jsonl"))), "\n")
	if len(b.Tasks) != 3 || len(lines) != 3 {
		t.Fatalf("bundle %d tasks, tasks.jsonl %d", len(b.Tasks), len(lines))
	}
	for _, task := range b.Tasks {
		d := task.Difficulty
		rate, ok := rates[task.ID]
		if d == nil || d.PassRate == nil || !ok || d.Attempts != 1 || d.Hard != (fates[task.ID] == retain.Hard) || *d.PassRate != rate {
			t.Errorf("%s: %+v", task.ID, d)
		}
	}
	if st := srv.Stats(); st.Answered != len(srv.Index) {
		t.Errorf("%d answers for %d recorded", st.Answered, len(srv.Index))
	}
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestRetainFlagsNeedAModel(t *testing.T) {
	_, stderr, code := run(t, "", "synth", "from-db", "../../envs/store", "-o", t.TempDir(), "--retain-k", "2")
	if code != 1 || !strings.Contains(stderr, "--retain-model") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
