package taubench_test

// These tests build the wasmenv CLI and the taubench-retail bundle, then
// replay τ-bench's reference episodes (testdata/*_ref.jsonl, computed with
// τ-bench's Python tools) and require the same output for every call and the
// same state diff for every episode.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Built once by TestMain.
var (
	cliPath    string
	bundlePath string
)

func TestMain(m *testing.M) {
	code, err := setup(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "taubench-retail tests:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	root, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "taubench-retail-test")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	cliPath = filepath.Join(tmp, "wasmenv")
	bundlePath = filepath.Join(tmp, "taubench-retail.wasm")
	build := exec.Command("go", "build", "-o", cliPath, "./cmd/wasmenv")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("go build ./cmd/wasmenv: %v\n%s", err, out)
	}
	bundle := exec.Command(cliPath, "build", filepath.Join(root, "envs", "taubench-retail"), "-o", bundlePath)
	if out, err := bundle.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("wasmenv build: %v\n%s", err, out)
	}
	return m.Run(), nil
}

// moduleRoot walks up from the working directory to the directory holding go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the test directory")
		}
		dir = parent
	}
}

type call struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// diff is a state diff: collection → key → record (null when removed).
type diff map[string]map[string]json.RawMessage

// refEpisode is a line of testdata/*_ref.jsonl.
type refEpisode struct {
	ID              string   `json:"id"`
	UserID          string   `json:"user_id"`
	Instruction     string   `json:"instruction"`
	ExpectedOutputs []string `json:"expected_outputs"`
	Calls     []call   `json:"calls"`
	Outputs   []string `json:"outputs"`
	StateDiff diff     `json:"state_diff"`
}

// replayIn and replayOut are the lines of `wasmenv replay`.
type replayIn struct {
	ID     string  `json:"id"`
	Calls  []call  `json:"calls"`
	Task   string  `json:"task,omitempty"`
	Answer *string `json:"answer,omitempty"`
}

type replayOut struct {
	ID        string          `json:"id"`
	Outputs   []string        `json:"outputs"`
	StateDiff diff            `json:"state_diff"`
	StateHash string          `json:"state_hash"`
	Score     json.RawMessage `json:"score"`
	Error     string          `json:"error"`
}

func loadRefs(t *testing.T) []refEpisode {
	t.Helper()
	var eps []refEpisode
	for _, name := range []string{"test_ref.jsonl", "dev_ref.jsonl"} {
		f, err := os.Open(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			var ep refEpisode
			if err := json.Unmarshal(sc.Bytes(), &ep); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			eps = append(eps, ep)
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
	return eps
}

// replay runs episodes through `wasmenv replay` and returns the results by id.
func replay(t *testing.T, in []replayIn) map[string]replayOut {
	t.Helper()
	dir := t.TempDir()
	var buf bytes.Buffer
	for _, ep := range in {
		if ep.Calls == nil {
			ep.Calls = []call{}
		}
		line, err := json.Marshal(ep)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	input, output := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
	if err := os.WriteFile(input, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cliPath, "replay", bundlePath, "--input", input, "--output", output)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wasmenv replay: %v\n%s", err, out)
	}
	data, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]replayOut{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r replayOut
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("replay output line %q: %v", line, err)
		}
		if r.Error != "" {
			t.Errorf("episode %s: replay error: %s", r.ID, r.Error)
		}
		res[r.ID] = r
	}
	if len(res) != len(in) {
		t.Fatalf("replay returned %d results for %d episodes", len(res), len(in))
	}
	return res
}

// jsonEqual compares two tool outputs as JSON values where both parse as
// JSON (key order and number spelling do not matter), else as strings.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil {
		return reflect.DeepEqual(x, y)
	}
	return a == b
}

// diffMismatches lists how two state diffs differ (empty collections ignored).
func diffMismatches(got, want diff) []string {
	var out []string
	extra := func(a, b diff, what string) {
		for coll, recs := range a {
			for key := range recs {
				if _, ok := b[coll][key]; !ok {
					out = append(out, fmt.Sprintf("%s record %s[%s]", what, coll, key))
				}
			}
		}
	}
	extra(got, want, "unexpected")
	extra(want, got, "missing")
	for coll, recs := range want {
		for key, w := range recs {
			if g, ok := got[coll][key]; ok && !jsonEqual(string(g), string(w)) {
				out = append(out, fmt.Sprintf("%s[%s]: got %s, want %s", coll, key, clip(string(g)), clip(string(w))))
			}
		}
	}
	return out
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

func TestReferenceEpisodes(t *testing.T) {
	refs := loadRefs(t)
	if len(refs) != 135 {
		t.Fatalf("expected 135 reference episodes, found %d", len(refs))
	}
	in := make([]replayIn, len(refs))
	for i, ep := range refs {
		in[i] = replayIn{ID: ep.ID, Calls: ep.Calls}
	}
	res := replay(t, in)
	calls, badCalls, badDiffs := 0, 0, 0
	for _, ep := range refs {
		got := res[ep.ID]
		if len(got.Outputs) != len(ep.Outputs) {
			t.Errorf("%s: %d outputs, want %d", ep.ID, len(got.Outputs), len(ep.Outputs))
			badCalls++
			continue
		}
		for i, want := range ep.Outputs {
			calls++
			if !jsonEqual(got.Outputs[i], want) {
				badCalls++
				t.Errorf("%s call %d (%s %s):\n got  %s\n want %s", ep.ID, i, ep.Calls[i].Name,
					ep.Calls[i].Arguments, clip(got.Outputs[i]), clip(want))
			}
		}
		if m := diffMismatches(got.StateDiff, ep.StateDiff); len(m) > 0 {
			badDiffs++
			t.Errorf("%s: state diff differs:\n  %s", ep.ID, strings.Join(m, "\n  "))
		}
	}
	t.Logf("%d/%d call outputs and %d/%d state diffs match τ-bench",
		calls-badCalls, calls, len(refs)-badDiffs, len(refs))
}

// TestTaskRewards checks reward: state and τ-bench's output check:
// replaying a task's ground truth (with its expected outputs as the answer,
// where it has any) scores 1; doing nothing scores less when the ground truth
// changes the state; the ground truth without the answer scores less.
func TestTaskRewards(t *testing.T) {
	refs := loadRefs(t)
	var in []replayIn
	changing := map[string]bool{}
	answers := 0
	for _, ep := range refs {
		truth := replayIn{ID: ep.ID + "/truth", Task: ep.ID, Calls: ep.Calls}
		if len(ep.ExpectedOutputs) > 0 {
			answers++
			a := "Here you go: " + strings.Join(ep.ExpectedOutputs, " and ")
			truth.Answer = &a
			in = append(in, replayIn{ID: ep.ID + "/no-answer", Task: ep.ID, Calls: ep.Calls})
		}
		in = append(in, truth)
		for _, recs := range ep.StateDiff {
			if len(recs) > 0 {
				changing[ep.ID] = true
			}
		}
		if changing[ep.ID] {
			in = append(in, replayIn{ID: ep.ID + "/nothing", Task: ep.ID})
		}
	}
	res := replay(t, in)
	for _, ep := range refs {
		if r := reward(t, res[ep.ID+"/truth"]); r != 1 {
			t.Errorf("%s: ground truth scores %v, want 1", ep.ID, r)
		}
		if changing[ep.ID] {
			if r := reward(t, res[ep.ID+"/nothing"]); r >= 1 {
				t.Errorf("%s: an empty episode scores %v, want < 1", ep.ID, r)
			}
		}
		if len(ep.ExpectedOutputs) > 0 {
			if r := reward(t, res[ep.ID+"/no-answer"]); r >= 1 {
				t.Errorf("%s: the ground truth without the expected answer scores %v, want < 1", ep.ID, r)
			}
		}
	}
	if answers != 37 {
		t.Errorf("%d tasks expect outputs, want 37", answers)
	}
	t.Logf("%d tasks; %d change the state; %d expect outputs", len(refs), len(changing), answers)
}

// reward reads the score of a replay result (a number or {"reward": n}).
func reward(t *testing.T, r replayOut) float64 {
	t.Helper()
	var n float64
	if json.Unmarshal(r.Score, &n) == nil {
		return n
	}
	var s struct {
		Reward *float64 `json:"reward"`
	}
	if json.Unmarshal(r.Score, &s) != nil || s.Reward == nil {
		t.Fatalf("%s: no reward in score %s", r.ID, r.Score)
	}
	return *s.Reward
}

func TestTasksListed(t *testing.T) {
	out, err := exec.Command(cliPath, "tasks", bundlePath, "--json").Output()
	if err != nil {
		t.Fatalf("wasmenv tasks: %v", err)
	}
	var tasks []struct {
		ID          string `json:"id"`
		Instruction string `json:"instruction"`
		Calls       []call `json:"calls"`
		Reward      string `json:"reward"`
	}
	if err := json.Unmarshal(out, &tasks); err != nil {
		t.Fatal(err)
	}
	refs := loadRefs(t)
	if len(tasks) != len(refs) {
		t.Fatalf("%d tasks, want %d", len(tasks), len(refs))
	}
	for i, ep := range refs {
		if tasks[i].Instruction != ep.Instruction || ep.Instruction == "" {
			t.Errorf("task %s: instruction %.60q, want τ-bench's %.60q", tasks[i].ID, tasks[i].Instruction, ep.Instruction)
		}
		if tasks[i].ID != ep.ID || len(tasks[i].Calls) != len(ep.Calls) || tasks[i].Reward != "state" {
			t.Errorf("task %d = %s (%d calls, reward %q), want %s (%d calls, reward state)",
				i, tasks[i].ID, len(tasks[i].Calls), tasks[i].Reward, ep.ID, len(ep.Calls))
		}
	}
}
