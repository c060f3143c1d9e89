package envtest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/envtest"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/runtime"
)

func TestMain(m *testing.M) { testcache.Main(m) }

var (
	miniOnce sync.Once
	mini     *envpkg.Bundle
	miniErr  error
)

// miniBundle builds testdata/envs/mini once and returns a copy whose tasks
// a test may change.
func miniBundle(t *testing.T) *envpkg.Bundle {
	t.Helper()
	miniOnce.Do(func() {
		mini, miniErr = compiler.Build(context.Background(), "../testdata/envs/mini", compiler.Options{})
	})
	if miniErr != nil {
		t.Fatal(miniErr)
	}
	b := *mini
	b.Tasks = nil
	for _, task := range mini.Tasks {
		task.Calls = append([]envpkg.Call(nil), task.Calls...)
		task.Checks = append([]envpkg.Check(nil), task.Checks...)
		b.Tasks = append(b.Tasks, task)
	}
	return &b
}

func run(t *testing.T, b *envpkg.Bundle) *envtest.Report {
	t.Helper()
	env, err := runtime.LoadBundle(context.Background(), b, runtime.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	r, err := envtest.Run(context.Background(), env, envtest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func task(t *testing.T, r *envtest.Report, id string) envtest.TaskResult {
	t.Helper()
	for _, tr := range r.Tasks {
		if tr.ID == id {
			return tr
		}
	}
	t.Fatalf("no task %s in report", id)
	return envtest.TaskResult{}
}

func wantProblem(t *testing.T, tr envtest.TaskResult, substr string) {
	t.Helper()
	for _, p := range tr.Problems {
		if strings.Contains(p.Msg, substr) {
			return
		}
	}
	t.Errorf("task %s: want a problem containing %q, got %q", tr.ID, substr, tr.Problems)
}

func TestGoodBundlePasses(t *testing.T) {
	r := run(t, miniBundle(t))
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	put := task(t, r, "put-d")
	if put.GroundTruth != 1 || put.Empty >= 1 || !put.ChangesState || put.Calls != 1 {
		t.Errorf("put-d: %+v", put)
	}
	var out bytes.Buffer
	if err := r.WriteTable(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"TASK", "GROUND TRUTH", "put-d", "1.00", "ok mini: 3 tasks"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestStaticFindsBadArguments(t *testing.T) {
	b := miniBundle(t)
	b.Tasks[0].Calls[0].Arguments = json.RawMessage(`{"key": "d", "value": "date", "n": "four"}`)
	b.Tasks[1].Calls = append(b.Tasks[1].Calls, envpkg.Call{Name: "get_membr", Arguments: json.RawMessage(`{}`)})
	b.Tasks[2].Calls[0].Arguments = json.RawMessage(`{"value": "blueberry"}`)
	r := envtest.Static(b)
	wantProblem(t, r.Tasks[0], "call 1 (put): arguments do not match the tool's schema: at /n:")
	wantProblem(t, r.Tasks[1], `call 3: unknown tool "get_membr"`)
	wantProblem(t, r.Tasks[2], "missing property 'key'")
	if r.Failed() != 3 || r.Err() == nil {
		t.Errorf("failed = %d, err = %v", r.Failed(), r.Err())
	}
	// A null for an optional argument is absent, as for an agent.
	b = miniBundle(t)
	b.Tasks[0].Calls[0].Arguments = json.RawMessage(`{"key": "d", "value": "date", "n": null}`)
	if err := envtest.Static(b).Err(); err != nil {
		t.Error(err)
	}
}

func TestGroundTruthMustReachOne(t *testing.T) {
	b := miniBundle(t)
	b.Tasks[0].Calls[0].Arguments = json.RawMessage(`{"key": "d", "value": "dates", "n": 4}`)
	tr := task(t, run(t, b), "put-d")
	wantProblem(t, tr, `check "d stored" fails after the ground truth (reward 0.50, must be 1.00)`)
}

func TestEmptyEpisodeMustScoreBelowOne(t *testing.T) {
	b := miniBundle(t)
	// Only the "nothing else changed" check: doing nothing passes it.
	b.Tasks[0].Checks = b.Tasks[0].Checks[1:]
	tr := task(t, run(t, b), "put-d")
	wantProblem(t, tr, "the empty episode already scores 1.00")
	if !tr.ChangesState {
		t.Error("put-d should change state")
	}
}

func TestChecksMustBeReadOnly(t *testing.T) {
	b := miniBundle(t)
	b.Tasks[0].Checks = append(b.Tasks[0].Checks, envpkg.Check{Name: "cleanup", SQL: "DELETE FROM kv"})
	tr := task(t, run(t, b), "put-d")
	wantProblem(t, tr, `check "cleanup" errs on the empty episode: a check must be read-only`)
}

func TestGroundTruthToolError(t *testing.T) {
	b := miniBundle(t)
	b.Tasks[1].Calls[0].Arguments = json.RawMessage(`{"key": "zzz"}`)
	tr := task(t, run(t, b), "delete-a")
	want := `call 1 (get) of the ground truth returned an error: Error: key "zzz" not found`
	if len(tr.Notes) == 0 || tr.Notes[0] != want || !tr.OK() {
		t.Errorf("notes %q, problems %q; want the note %q and no problem", tr.Notes, tr.Problems, want)
	}
}

func TestGroundTruthEnvironmentFailure(t *testing.T) {
	b := miniBundle(t)
	b.Tasks[1].Calls[0] = envpkg.Call{Name: "abuse", Arguments: json.RawMessage(`{"mode":"panic"}`)}
	tr := task(t, run(t, b), "delete-a")
	wantProblem(t, tr, "call 1 (abuse) of the ground truth failed (trap): Error:")
}

// A tool reading a misspelled column fails its ground-truth call in
// wasmenv test with the column named (issue 14, point 5).
func TestMisspelledColumnSurfaces(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"env.yaml":   "name: typo\n",
		"schema.sql": "CREATE TABLE kv (k TEXT PRIMARY KEY, status TEXT);\nINSERT INTO kv VALUES ('a', 'new');\n",
		"tools/kv.go": `package tools

import "github.com/wasmenv/wasmenv/sdk"

// Close closes a key.
func Close(args CloseArgs) (string, error) {
	row, err := sdk.QueryRow("SELECT k, status FROM kv WHERE k = ?", args.Key)
	if err != nil {
		return "", err
	}
	if row.String("stauts") == "closed" {
		return "already closed", nil
	}
	_, err = sdk.Exec("UPDATE kv SET status = 'closed' WHERE k = ?", args.Key)
	return "closed", err
}

// CloseArgs names a key.
type CloseArgs struct {
	// The key.
	Key string ` + "`json:\"key\"`" + `
}
`,
		"tasks.yaml": "- id: close-a\n  instruction: Close a.\n  calls: [{name: close, arguments: {key: a}}]\n  checks: [{sql: \"SELECT status = 'closed' FROM main.kv WHERE k = 'a'\"}]\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := compiler.Build(context.Background(), dir, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tr := run(t, b).Tasks[0]
	wantProblem(t, tr, `call 1 (close) of the ground truth failed (trap)`)
	wantProblem(t, tr, `has no column "stauts" (columns: k, status)`)
}
