package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var bin string // the wasmenv binary under test

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "wasmenv-cli-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("WASMENV_CACHE", filepath.Join(dir, "cache"))
	bin = filepath.Join(dir, "wasmenv")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the binary and returns stdout, stderr and the exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func buildMini(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "mini.wasm")
	stdout, stderr, code := run(t, "", "build", "../../testdata/envs/mini", "-o", out)
	if code != 0 || !strings.Contains(stdout, "6 tools, 3 tasks") {
		t.Fatalf("build: %d %s %s", code, stdout, stderr)
	}
	return out
}

func TestBuildInspectCallTasks(t *testing.T) {
	bundle := buildMini(t)
	stdout, _, code := run(t, "", "inspect", bundle)
	if code != 0 || !strings.Contains(stdout, "put(key, value, n?)") {
		t.Fatalf("inspect: %s", stdout)
	}
	stdout, _, _ = run(t, "", "inspect", bundle, "--json")
	var info struct {
		Manifest struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
			OpenAITools []struct {
				Type string `json:"type"`
			} `json:"openai_tools"`
		} `json:"manifest"`
		Hash  string           `json:"hash"`
		Sizes struct{ DB int } `json:"sizes"`
	}
	if err := json.Unmarshal([]byte(stdout), &info); err != nil || len(info.Manifest.Tools) != 6 ||
		len(info.Manifest.OpenAITools) != 6 || info.Hash == "" || info.Sizes.DB == 0 {
		t.Fatalf("inspect --json: %v %s", err, stdout)
	}

	if stdout, _, code = run(t, "", "call", bundle, "get", `{"key":"b"}`); code != 0 || stdout != "{\"k\":\"b\",\"v\":\"banana\",\"n\":2}\n" {
		t.Fatalf("call: %d %q", code, stdout)
	}
	if stdout, _, code = run(t, "", "call", bundle, "get", `{"key":"zz"}`); code != 1 || !strings.HasPrefix(stdout, "Error: ") {
		t.Fatalf("call error: %d %q", code, stdout)
	}
	r1, _, _ := run(t, "", "call", bundle, "roll", "--seed", "5")
	r2, _, _ := run(t, "", "call", bundle, "roll", "--seed", "5")
	r3, _, _ := run(t, "", "call", bundle, "roll", "--seed", "6")
	if r1 != r2 || r1 == r3 {
		t.Fatalf("seeds: %s %s %s", r1, r2, r3)
	}
	if stdout, _, code = run(t, "", "call", bundle, "get", `{"key":"a"}`, "--task", "delete-a"); !strings.Contains(stdout, "avocado") {
		t.Fatalf("call --task: %d %s", code, stdout)
	}

	stdout, _, _ = run(t, "", "tasks", bundle, "--json")
	var tasks []struct {
		ID     string            `json:"id"`
		Calls  []json.RawMessage `json:"calls"`
		Checks []json.RawMessage `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &tasks); err != nil || len(tasks) != 3 || tasks[1].ID != "delete-a" || len(tasks[1].Calls) != 2 {
		t.Fatalf("tasks --json: %v %s", err, stdout)
	}
}

func TestReplay(t *testing.T) {
	bundle := buildMini(t)
	input := `{"id":"solved","task":"put-d","calls":[{"name":"put","arguments":{"key":"d","value":"date","n":4}}]}
{"id":"empty","task":"put-d","calls":[]}

not json
{"id":"bad-task","task":"nope","calls":[]}
{"id":"free","calls":[{"name":"roll","arguments":{}},{"name":"nope","arguments":{}}],"seed":3}
{"id":"solved-again","task":"put-d","calls":[{"name":"put","arguments":{"key":"d","value":"date","n":4}}]}
`
	out := filepath.Join(t.TempDir(), "results.jsonl")
	_, stderr, code := run(t, input, "replay", bundle, "--input", "-", "--output", out)
	if code != 1 || !strings.Contains(stderr, "2 of 6 input lines failed") {
		t.Fatalf("replay: %d %s", code, stderr)
	}
	f, _ := os.Open(out)
	defer f.Close()
	type line struct {
		ID        string                                `json:"id"`
		Outputs   []string                              `json:"outputs"`
		StateDiff map[string]map[string]json.RawMessage `json:"state_diff"`
		StateHash string                                `json:"state_hash"`
		Score     *struct{ Reward float64 }             `json:"score"`
		Error     string                                `json:"error"`
	}
	var lines []line
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) != 6 {
		t.Fatalf("%d output lines", len(lines))
	}
	solved, empty, badJSON, badTask, free, again := lines[0], lines[1], lines[2], lines[3], lines[4], lines[5]
	if solved.Score.Reward != 1 || string(solved.StateDiff["kv"]["d"]) != `{"k":"d","v":"date","n":4}` || solved.Outputs[0] != "ok" {
		t.Errorf("solved: %+v", solved)
	}
	if empty.Score.Reward >= 1 || len(empty.StateDiff) != 0 {
		t.Errorf("empty: %+v", empty)
	}
	if !strings.Contains(badJSON.Error, "line 4: invalid JSON") || !strings.Contains(badTask.Error, `no task "nope"`) {
		t.Errorf("errors: %q %q", badJSON.Error, badTask.Error)
	}
	if free.Score != nil || len(free.Outputs) != 2 || !strings.HasPrefix(free.Outputs[1], `Error: unknown tool "nope"`) {
		t.Errorf("free: %+v", free)
	}
	if again.StateHash != solved.StateHash {
		t.Errorf("same calls from a fresh reset, different hash: %s vs %s", again.StateHash, solved.StateHash)
	}
}

func TestCorruptBundlesAreRefused(t *testing.T) {
	bundle := buildMini(t)
	data, _ := os.ReadFile(bundle)
	dir := t.TempDir()
	variants := map[string][]byte{
		"truncated":  data[:len(data)/2],
		"flipped":    append(append([]byte{}, data[:len(data)-100]...), append([]byte{data[len(data)-100] ^ 1}, data[len(data)-99:]...)...),
		"wrong-hash": append(append([]byte{}, data[:len(data)-16]...), []byte("0000000000000000")...),
		"empty":      {},
		"not-wasm":   []byte("hello world, not a module"),
	}
	for name, b := range variants {
		p := filepath.Join(dir, name+".wasm")
		os.WriteFile(p, b, 0o644)
		for _, args := range [][]string{{"inspect", p}, {"call", p, "get", `{"key":"a"}`}, {"tasks", p}} {
			stdout, stderr, code := run(t, "", args...)
			if code != 1 || !strings.Contains(stderr, "invalid bundle") || strings.Contains(stderr, "panic") {
				t.Errorf("%s %s: code %d stdout %q stderr %q", name, args[0], code, stdout, stderr)
			}
		}
	}
	if _, stderr, code := run(t, "", "inspect", filepath.Join(dir, "missing.wasm")); code != 1 || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing file: %d %s", code, stderr)
	}
}

func TestBuildErrorsLeaveNoFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.wasm")
	_, stderr, code := run(t, "", "build", "../../testdata/envs/sandbox", "-o", out)
	if code != 1 || !strings.Contains(stderr, `escape.go:5: import "os" is not allowed`) {
		t.Fatalf("build sandbox: %d %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("a failed build left a file")
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 0 {
		t.Fatalf("temp files left: %v", entries)
	}
}
