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
// tally and the second refusal are solved (pass rate 1); in the first
// refusal the agent made the right change but padded its count with other
// rows' figures, and the examiner found it the agent's fault, so that task
// is kept and marked hard (pass rate 0). The bundle's difficulty and
// tasks.jsonl agree with retention.json.
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
	if !strings.Contains(stdout, "retention gate: 3 of 3 tasks kept (k = 1, 67% of attempts solved)") ||
		!strings.Contains(stdout, "hard synth-0001-refuse-some-action-order: agent fault") {
		t.Errorf("stdout:\n%s", stdout)
	}
	var rep retain.Report
	if b, err := os.ReadFile(filepath.Join(out, "retention.json")); err != nil || json.Unmarshal(b, &rep) != nil {
		t.Fatalf("retention.json: %v", err)
	}
	// The recorded fates: the one hard task, the others solved.
	hard := "synth-0001-refuse-some-action-order"
	rates := map[string]float64{}
	for _, r := range rep.Tasks {
		rates[r.ID] = r.PassRate
		want := r.Fate == retain.Kept && r.Solved == 1 && r.PassRate == 1 && r.Fault == ""
		if r.ID == hard {
			want = r.Fate == retain.Hard && r.Solved == 0 && r.PassRate == 0 && r.Fault == retain.AgentFault && r.Reason != ""
		}
		if r.Attempts != 1 || !want {
			t.Errorf("%+v", r)
		}
	}
	if len(rep.Tasks) != 3 {
		t.Fatalf("retention.json: %d tasks", len(rep.Tasks))
	}
	if _, ok := rates[hard]; !ok {
		t.Errorf("retention.json: no %s", hard)
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
		if d == nil || d.PassRate == nil || !ok || d.Attempts != 1 || d.Hard != (task.ID == hard) || *d.PassRate != rate {
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
