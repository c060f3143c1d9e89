package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyEnv copies testdata/envs/NAME into a temporary directory.
func copyEnv(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join("..", "..", "testdata", "envs", name)
	dst := filepath.Join(t.TempDir(), name)
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestTestCommand(t *testing.T) {
	// A good environment passes, from its directory and from its bundle.
	bundle := buildMini(t)
	for _, target := range []string{"../../testdata/envs/mini", bundle} {
		stdout, stderr, code := run(t, "", "test", target)
		if code != 0 || !strings.Contains(stdout, "ok mini: 3 tasks") || !strings.Contains(stdout, "put-d") {
			t.Fatalf("test %s: %d\n%s\n%s", target, code, stdout, stderr)
		}
	}

	stdout, _, code := run(t, "", "test", bundle, "--json")
	var rep struct {
		Env   string
		Tasks []struct {
			ID          string
			GroundTruth float64 `json:"ground_truth"`
			Problems    []any
		}
	}
	if err := json.Unmarshal([]byte(stdout), &rep); code != 0 || err != nil || rep.Env != "mini" || len(rep.Tasks) != 3 || rep.Tasks[0].GroundTruth != 1 {
		t.Errorf("--json: %d %v %s", code, err, stdout)
	}

	// A ground truth that does not reach 1.0 fails wasmenv test, with the check named.
	dir := copyEnv(t, "mini")
	editFile(t, filepath.Join(dir, "tasks.yaml"), "arguments: {key: d, value: date, n: 4}", "arguments: {key: d, value: dates, n: 4}")
	stdout, _, code = run(t, "", "test", dir)
	if code != 1 || !strings.Contains(stdout, `FAIL put-d: check "d stored" fails after the ground truth`) ||
		!strings.Contains(stdout, "FAIL mini: 1 of 3 tasks fail") {
		t.Errorf("test of a wrong ground truth: %d\n%s", code, stdout)
	}
}

func TestBuildChecksGroundTruthArguments(t *testing.T) {
	dir := copyEnv(t, "mini")
	editFile(t, filepath.Join(dir, "tasks.yaml"), "arguments: {key: d, value: date, n: 4}", "arguments: {key: d, value: date, n: four}")
	out := filepath.Join(t.TempDir(), "m.wasm")
	_, stderr, code := run(t, "", "build", dir, "-o", out)
	if code == 0 || !strings.Contains(stderr, "tasks.yaml:4: task put-d: call 1 (put): arguments do not match the tool's schema: at /n:") {
		t.Fatalf("build: %d %s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed build wrote %s", out)
	}
	if _, stderr, code := run(t, "", "build", dir, "-o", out, "--no-test"); code != 0 {
		t.Errorf("--no-test: %d %s", code, stderr)
	}
}

func TestBuildRefusesWritingChecks(t *testing.T) {
	dir := copyEnv(t, "mini")
	editFile(t, filepath.Join(dir, "tasks.yaml"), "sql: SELECT v = 'date' AND n = 4 FROM main.kv WHERE k = 'd'", "sql: DELETE FROM kv")
	_, stderr, code := run(t, "", "build", dir, "-o", filepath.Join(t.TempDir(), "m.wasm"))
	if code == 0 || !strings.Contains(stderr, "check 1 (d stored): a check must be read-only") {
		t.Fatalf("build: %d %s", code, stderr)
	}
}

func TestEveryCommandIsRegistered(t *testing.T) {
	stdout, _, code := run(t, "", "--help")
	if code != 0 {
		t.Fatal(code)
	}
	for _, name := range []string{"build", "inspect", "call", "tasks", "test", "replay", "demo", "serve", "bench"} {
		if !strings.Contains(stdout, "\n  "+name+" ") {
			t.Errorf("help lists no %s command:\n%s", name, stdout)
		}
	}
}

// A file that is not a bundle is named once, by every command.
func TestNotABundleNamedOnce(t *testing.T) {
	for _, args := range [][]string{{"serve", "../../README.md"}, {"test", "../../README.md"}, {"call", "../../README.md", "x"}, {"inspect", "../../README.md"}} {
		_, stderr, code := run(t, "", args...)
		if code == 0 || strings.Count(stderr, "README.md") != 1 || !strings.Contains(stderr, "not a WebAssembly module") {
			t.Errorf("%v: %d %q", args, code, stderr)
		}
	}
}

// The demo shows a guard gating the reward: the do-nothing agent earns
// 0.00 on the store's first task, not 0.25 (issue 14, point 6).
func TestDemoShowsGuards(t *testing.T) {
	stdout, stderr, code := run(t, "", "demo")
	if code != 0 || !strings.Contains(stdout, "reward 1.00 (4/4 checks)") || !strings.Contains(stdout, "no calls: reward 0.00 (1/4 checks)") ||
		!strings.Contains(stdout, `guard "other orders untouched" passes, but a guard gates the reward`) {
		t.Fatalf("demo: %d\n%s\n%s", code, stdout, stderr)
	}
}
