package taubench_test

// These tests build the wasmenv CLI and the taubench-airline bundle, then
// replay τ-bench's reference episodes (testdata/test_ref.jsonl, computed with
// τ-bench's Python tools) and require byte-identical outputs for every call
// and the same state diff for every episode.

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
		fmt.Fprintln(os.Stderr, "taubench-airline tests:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func setup(m *testing.M) (int, error) {
	root, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", "taubench-airline-test")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	cliPath = filepath.Join(tmp, "wasmenv")
	bundlePath = filepath.Join(tmp, "taubench-airline.wasm")
	build := exec.Command("go", "build", "-o", cliPath, "./cmd/wasmenv")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("go build ./cmd/wasmenv: %v\n%s", err, out)
	}
	bundle := exec.Command(cliPath, "build", filepath.Join(root, "envs", "taubench-airline"), "-o", bundlePath)
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

// refEpisode is a line of testdata/*_ref.jsonl. An output is a string, or
// null where τ-bench's tool returned None.
type refEpisode struct {
	ID              string    `json:"id"`
	Instruction     string    `json:"instruction"`
	ExpectedOutputs []string  `json:"expected_outputs"`
	Calls           []call    `json:"calls"`
	Outputs         []*string `json:"outputs"`
	StateDiff       diff      `json:"state_diff"`
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

func loadRefs(t *testing.T, name string) []refEpisode {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var eps []refEpisode
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var ep refEpisode
		if err := json.Unmarshal(sc.Bytes(), &ep); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		eps = append(eps, ep)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
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

// sameValue compares two JSON texts as values (key order does not matter,
// numbers are compared as written: 5 and 5.0 differ, as in τ-bench's hash).
func sameValue(a, b []byte) bool {
	var x, y any
	dx := json.NewDecoder(bytes.NewReader(a))
	dx.UseNumber()
	dy := json.NewDecoder(bytes.NewReader(b))
	dy.UseNumber()
	if dx.Decode(&x) != nil || dy.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
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
			if g, ok := got[coll][key]; ok && !sameValue(orNull(g), orNull(w)) {
				out = append(out, fmt.Sprintf("%s[%s]: got %s, want %s", coll, key, clip(string(g)), clip(string(w))))
			}
		}
	}
	return out
}

func orNull(b json.RawMessage) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

func clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// checkEpisodes replays reference episodes and requires byte-identical
// outputs (a None output is the content "null") and equal state diffs.
func checkEpisodes(t *testing.T, refs []refEpisode) (calls int) {
	t.Helper()
	in := make([]replayIn, len(refs))
	for i, ep := range refs {
		in[i] = replayIn{ID: ep.ID, Calls: ep.Calls}
	}
	res := replay(t, in)
	badCalls, badDiffs := 0, 0
	for _, ep := range refs {
		got := res[ep.ID]
		if len(got.Outputs) != len(ep.Outputs) {
			t.Errorf("%s: %d outputs, want %d", ep.ID, len(got.Outputs), len(ep.Outputs))
			badCalls++
			continue
		}
		for i, want := range ep.Outputs {
			calls++
			w := "null"
			if want != nil {
				w = *want
			}
			if got.Outputs[i] != w {
				badCalls++
				t.Errorf("%s call %d (%s %s):\n got  %s\n want %s", ep.ID, i, ep.Calls[i].Name,
					ep.Calls[i].Arguments, clip(got.Outputs[i]), clip(w))
			}
		}
		if m := diffMismatches(got.StateDiff, ep.StateDiff); len(m) > 0 {
			badDiffs++
			t.Errorf("%s: state diff differs:\n  %s", ep.ID, strings.Join(m, "\n  "))
		}
	}
	t.Logf("%d/%d call outputs byte-identical, %d/%d state diffs equal", calls-badCalls, calls, len(refs)-badDiffs, len(refs))
	return calls
}

func TestReferenceEpisodes(t *testing.T) {
	refs := loadRefs(t, "test_ref.jsonl")
	if len(refs) != 50 {
		t.Fatalf("expected 50 reference episodes, found %d", len(refs))
	}
	if n := checkEpisodes(t, refs); n != 158 {
		t.Errorf("%d calls, want 158", n)
	}
}

// TestTaskRewards checks the tasks' scoring: the ground truth (with an
// answer holding the expected outputs, where the task has any) scores 1;
// doing nothing scores less for a task whose ground truth changes the state;
// the ground truth without the expected answer scores less.
func TestTaskRewards(t *testing.T) {
	refs := loadRefs(t, "test_ref.jsonl")
	var in []replayIn
	changing := map[string]bool{}
	for _, ep := range refs {
		truth := replayIn{ID: ep.ID + "/truth", Task: ep.ID, Calls: ep.Calls}
		if len(ep.ExpectedOutputs) > 0 {
			// as an agent would write them: with thousands separators
			a := "The answer: " + strings.Join(ep.ExpectedOutputs, ", ")
			a = strings.ReplaceAll(a, "1786", "1,786")
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
	answers := 0
	for _, ep := range refs {
		if r := reward(t, res[ep.ID+"/truth"]); r != 1 {
			t.Errorf("%s: ground truth scores %v, want 1", ep.ID, r)
		}
		if len(ep.ExpectedOutputs) > 0 {
			answers++
			if r := reward(t, res[ep.ID+"/no-answer"]); r >= 1 {
				t.Errorf("%s: the ground truth without the expected answer scores %v, want < 1", ep.ID, r)
			}
		}
		if changing[ep.ID] {
			if r := reward(t, res[ep.ID+"/nothing"]); r >= 1 {
				t.Errorf("%s: an empty episode scores %v, want < 1", ep.ID, r)
			}
		}
	}
	if answers != 4 {
		t.Errorf("%d tasks with expected outputs, want 4", answers)
	}
	t.Logf("%d tasks; %d change the state; %d expect outputs", len(refs), len(changing), answers)
}

// reward reads the score of a replay result.
func reward(t *testing.T, r replayOut) float64 {
	t.Helper()
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
	refs := loadRefs(t, "test_ref.jsonl")
	if len(tasks) != len(refs) {
		t.Fatalf("%d tasks, want %d", len(tasks), len(refs))
	}
	for i, ep := range refs {
		if tasks[i].ID != ep.ID || tasks[i].Instruction != ep.Instruction || len(tasks[i].Calls) != len(ep.Calls) || tasks[i].Reward != "state" {
			t.Errorf("task %d = %s (%d calls, reward %q, instruction %.40q), want %s (%d calls, reward state, τ-bench's instruction)",
				i, tasks[i].ID, len(tasks[i].Calls), tasks[i].Reward, tasks[i].Instruction, ep.ID, len(ep.Calls))
		}
	}
}
