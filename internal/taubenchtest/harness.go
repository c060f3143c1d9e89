// Package taubenchtest is the test harness the τ-bench ports
// (envs/taubench-retail, envs/taubench-airline) share: it builds the wasmenv
// CLI and the port's bundle once, replays episodes through `wasmenv replay`,
// and compares the outputs and state diffs with τ-bench's reference
// episodes (testdata/*_ref.jsonl, computed with τ-bench's Python tools).
package taubenchtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/bench/taubench"
)

// Call and Diff are bench/taubench's, the one home of the reference-episode
// types (a Diff is collection → key → record, null when removed).
type (
	Call = taubench.Call
	Diff = taubench.StateDiff
)

// ReplayIn and ReplayOut are the lines of `wasmenv replay`.
type ReplayIn struct {
	ID     string  `json:"id"`
	Calls  []Call  `json:"calls"`
	Task   string  `json:"task,omitempty"`
	Answer *string `json:"answer,omitempty"`
}

type ReplayOut struct {
	ID        string          `json:"id"`
	Outputs   []string        `json:"outputs"`
	StateDiff Diff            `json:"state_diff"`
	StateHash string          `json:"state_hash"`
	Score     json.RawMessage `json:"score"`
	Error     string          `json:"error"`
}

// Harness holds the CLI and the bundle built for a port's tests.
type Harness struct {
	CLI    string
	Bundle string
}

// Main builds the CLI and the bundle of envs/<env>, runs the tests and
// returns their exit code (for os.Exit in TestMain).
func (h *Harness) Main(m *testing.M, env string) int {
	code, err := h.setup(m, env)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s tests: %v\n", env, err)
		return 1
	}
	return code
}

func (h *Harness) setup(m *testing.M, env string) (int, error) {
	root, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	tmp, err := os.MkdirTemp("", env+"-test")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	h.CLI = filepath.Join(tmp, "wasmenv")
	h.Bundle = filepath.Join(tmp, env+".wasm")
	build := exec.Command("go", "build", "-o", h.CLI, "./cmd/wasmenv")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("go build ./cmd/wasmenv: %v\n%s", err, out)
	}
	bundle := exec.Command(h.CLI, "build", filepath.Join(root, "envs", env), "-o", h.Bundle)
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

// LoadRefs reads reference episodes from testdata files, in order, with
// taubench.LoadRefs.
func LoadRefs(t *testing.T, names ...string) []taubench.RefEpisode {
	t.Helper()
	paths := make([]string, len(names))
	for i, name := range names {
		paths[i] = filepath.Join("testdata", name)
	}
	eps, err := taubench.LoadRefs(paths...)
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

// Replay runs episodes through `wasmenv replay` and returns the results by id.
func (h *Harness) Replay(t *testing.T, in []ReplayIn) map[string]ReplayOut {
	t.Helper()
	dir := t.TempDir()
	var buf bytes.Buffer
	for _, ep := range in {
		if ep.Calls == nil {
			ep.Calls = []Call{}
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
	cmd := exec.Command(h.CLI, "replay", h.Bundle, "--input", input, "--output", output)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("wasmenv replay: %v\n%s", err, out)
	}
	data, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	res := map[string]ReplayOut{}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r ReplayOut
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

// CheckEpisodes replays reference episodes and requires byte-identical
// outputs (a None output is the content "null") and equal state diffs. It
// returns the number of calls.
func (h *Harness) CheckEpisodes(t *testing.T, refs []taubench.RefEpisode) (calls int) {
	t.Helper()
	in := make([]ReplayIn, len(refs))
	for i, ep := range refs {
		in[i] = ReplayIn{ID: ep.ID, Calls: ep.Calls}
	}
	res := h.Replay(t, in)
	badCalls, badDiffs := 0, 0
	for _, ep := range refs {
		got := res[ep.ID]
		if len(got.Outputs) != len(ep.Outputs) {
			t.Errorf("%s: %d outputs, want %d", ep.ID, len(got.Outputs), len(ep.Outputs))
			badCalls++
			continue
		}
		for i := range ep.Outputs {
			calls++
			w := ep.Output(i)
			if got.Outputs[i] != w {
				badCalls++
				t.Errorf("%s call %d (%s %s):\n got  %s\n want %s", ep.ID, i, ep.Calls[i].Name,
					ep.Calls[i].Arguments, Clip(got.Outputs[i]), Clip(w))
			}
		}
		if m := DiffMismatches(got.StateDiff, ep.StateDiff); len(m) > 0 {
			badDiffs++
			t.Errorf("%s: state diff differs:\n  %s", ep.ID, strings.Join(m, "\n  "))
		}
	}
	t.Logf("%d/%d call outputs byte-identical, %d/%d state diffs equal", calls-badCalls, calls, len(refs)-badDiffs, len(refs))
	return calls
}

// CheckTasksListed requires `wasmenv tasks` to list one task per reference
// episode, in order, with its id, τ-bench's instruction, its calls and
// reward "state".
func (h *Harness) CheckTasksListed(t *testing.T, refs []taubench.RefEpisode) {
	t.Helper()
	out, err := exec.Command(h.CLI, "tasks", h.Bundle, "--json").Output()
	if err != nil {
		t.Fatalf("wasmenv tasks: %v", err)
	}
	var tasks []struct {
		ID          string `json:"id"`
		Instruction string `json:"instruction"`
		Calls       []Call `json:"calls"`
		Reward      string `json:"reward"`
	}
	if err := json.Unmarshal(out, &tasks); err != nil {
		t.Fatal(err)
	}
	if len(tasks) != len(refs) {
		t.Fatalf("%d tasks, want %d", len(tasks), len(refs))
	}
	for i, ep := range refs {
		if tasks[i].ID != ep.ID || ep.Instruction == "" || tasks[i].Instruction != ep.Instruction || len(tasks[i].Calls) != len(ep.Calls) || tasks[i].Reward != "state" {
			t.Errorf("task %d = %s (%d calls, reward %q, instruction %.40q), want %s (%d calls, reward state, τ-bench's instruction)",
				i, tasks[i].ID, len(tasks[i].Calls), tasks[i].Reward, tasks[i].Instruction, ep.ID, len(ep.Calls))
		}
	}
}

// Reward reads the score of a replay result (a number or {"reward": n}).
func Reward(t *testing.T, r ReplayOut) float64 {
	t.Helper()
	var n float64
	if json.Unmarshal(r.Score, &n) == nil {
		return n
	}
	var s struct {
		Reward    *float64 `json:"reward"`
		StateHash string   `json:"state_hash"`
	}
	if json.Unmarshal(r.Score, &s) != nil || s.Reward == nil {
		t.Fatalf("%s: no reward in score %s", r.ID, r.Score)
	}
	// The score's hash streams, the result's comes from the materialised
	// diff (runtime.Episode.StateHash, DiffAndHash): they must agree.
	if s.StateHash != "" && r.StateHash != "" && s.StateHash != r.StateHash {
		t.Errorf("%s: the score's state hash %s differs from the diff's %s", r.ID, s.StateHash, r.StateHash)
	}
	return *s.Reward
}

// SameValue compares two JSON texts as values (key order does not matter,
// numbers are compared as written: 5 and 5.0 differ, as in τ-bench's hash).
func SameValue(a, b []byte) bool {
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

// DiffMismatches lists how two state diffs differ (empty collections ignored).
func DiffMismatches(got, want Diff) []string {
	var out []string
	extra := func(a, b Diff, what string) {
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
			if g, ok := got[coll][key]; ok && !SameValue(orNull(g), orNull(w)) {
				out = append(out, fmt.Sprintf("%s[%s]: got %s, want %s", coll, key, Clip(string(g)), Clip(string(w))))
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

// Clip shortens a text for a failure message.
func Clip(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
