package pywasm_test

// End to end: Python environments built by the compiler and run by the
// runtime, like a Go environment (envs/pylibrary), and hostile Python,
// each case a clear error or a refused build.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/internal/testcache"
	"github.com/wasmenv/wasmenv/runtime"
)

func TestMain(m *testing.M) { testcache.Main(m) }

var libraryDir = filepath.Join("..", "..", "envs", "pylibrary")

// buildEnv builds dir, or a copy of pylibrary whose tools are replaced by
// tools (file name -> source) when tools is not nil.
func buildEnv(t testing.TB, tools map[string]string) (*envpkg.Bundle, error) {
	t.Helper()
	dir := libraryDir
	if tools != nil {
		dir = t.TempDir()
		for _, f := range []string{"env.yaml", "schema.sql", "seed.sql"} {
			b, err := os.ReadFile(filepath.Join(libraryDir, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		os.Mkdir(filepath.Join(dir, "tools"), 0o755)
		for name, src := range tools {
			if err := os.WriteFile(filepath.Join(dir, "tools", name), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return compiler.Build(context.Background(), dir, compiler.Options{})
}

func load(t testing.TB, b *envpkg.Bundle) *runtime.Env {
	t.Helper()
	e, err := runtime.LoadBundle(context.Background(), b, runtime.Options{PoolSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

var (
	libraryOnce   sync.Once
	libraryBundle *envpkg.Bundle
	libraryErr    error
)

func library(t testing.TB) *runtime.Env {
	libraryOnce.Do(func() { libraryBundle, libraryErr = buildEnv(t, nil) })
	if libraryErr != nil {
		t.Fatal(libraryErr)
	}
	return load(t, libraryBundle)
}

func episode(t testing.TB, e *runtime.Env, task string) *runtime.Episode {
	t.Helper()
	ep, err := e.NewEpisode(task, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ep.Close() })
	return ep
}

func call(t testing.TB, ep *runtime.Episode, tool, args string) runtime.Result {
	t.Helper()
	r, err := ep.Call(context.Background(), tool, []byte(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", tool, args, err)
	}
	return r
}

// The bundle is one file holding the Python sources, not the interpreter,
// and its schemas are those of transformers' get_json_schema.
func TestPythonBundleCarriesSourcesAndSchemas(t *testing.T) {
	library(t)
	b := libraryBundle
	if len(b.Module) > 64<<10 {
		t.Errorf("module section is %d bytes: the interpreter should not be in the bundle", len(b.Module))
	}
	if b.Manifest.Toolchain == "" || !strings.HasPrefix(b.Manifest.Toolchain, "cpython-3.13.5") {
		t.Errorf("toolchain %q", b.Manifest.Toolchain)
	}
	var names []string
	for _, tool := range b.Manifest.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, ","); got != "search_books,borrow_book,return_book,find_member,list_loans" {
		t.Errorf("tools in order %s", got)
	}
	var list struct {
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	json.Unmarshal(b.Manifest.Tools[4].InputSchema, &list)
	if list.Properties["include_returned"]["type"] != "boolean" || len(list.Required) != 1 || list.Required[0] != "member_id" ||
		list.Properties["member_id"]["description"] != "The member's id, such as 'm1'." {
		t.Errorf("list_loans schema %s", b.Manifest.Tools[4].InputSchema)
	}
}

// Every task's ground truth earns 1 on the Python environment, with state,
// clock and errors through the same host ABI as Go tools.
func TestPythonEnvironmentRunsItsTasks(t *testing.T) {
	e := library(t)
	for _, task := range libraryBundle.Tasks {
		ep := episode(t, e, task.ID)
		for _, c := range task.Calls {
			if r := call(t, ep, c.Name, string(c.Arguments)); r.IsError {
				t.Fatalf("%s: %s: %s", task.ID, c.Name, r.Content)
			}
		}
		s, err := ep.Score(context.Background(), nil)
		if err != nil || s.Reward != 1 {
			t.Errorf("%s: reward %v, %v: %+v", task.ID, s.Reward, err, s.Checks)
		}
	}
}

func TestPythonToolsUseTheEpisodeClockAndDatabase(t *testing.T) {
	e := library(t)
	ep := episode(t, e, "")
	r := call(t, ep, "borrow_book", `{"member_id":"m1","book_id":"b1"}`)
	if r.IsError || !strings.Contains(r.Content, `"due": "2024-06-17T09:00`) {
		t.Fatalf("borrow: %+v", r)
	}
	other := episode(t, e, "")
	if r := call(t, other, "search_books", `{"text":"structure"}`); !strings.Contains(r.Content, `"copies": 2`) {
		t.Errorf("another episode sees the loan: %s", r.Content)
	}
	if r := call(t, ep, "search_books", `{"text":"structure"}`); !strings.Contains(r.Content, `"copies": 1`) {
		t.Errorf("the episode does not see its loan: %s", r.Content)
	}
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	if r := call(t, ep, "search_books", `{"text":"structure"}`); !strings.Contains(r.Content, `"copies": 2`) {
		t.Errorf("after reset: %s", r.Content)
	}
	r = call(t, ep, "find_member", `{"email":"nobody@example.org"}`)
	if !r.IsError || r.Content != "Error: no member with email nobody@example.org" {
		t.Errorf("tool error: %+v", r)
	}
	r = call(t, ep, "borrow_book", `{"member_id":"m1","book_id":"b3"}`)
	if !r.IsError || !strings.Contains(r.Content, "no copy of 'Gödel, Escher, Bach'") {
		t.Errorf("tool error with non-ASCII text: %+v", r)
	}
}

// Hostile Python: each case ends in a refused build with its reason.
func TestHostilePythonRefusedAtBuild(t *testing.T) {
	cases := map[string]struct{ src, want string }{
		"socket": {"import socket\n", "import of 'socket' is not allowed"},
		"os.system": {"import os\n\ndef f() -> str:\n    \"\"\"F.\"\"\"\n    return os.system('ls')\n",
			"import of 'os' is not allowed"},
		"module state": {"SEEN = []\n", "module-level state"},
		"global": {"N = 0\n\ndef f() -> int:\n    \"\"\"F.\"\"\"\n    global N\n    N += 1\n    return N\n",
			"global statement"},
		"mutable default": {"def f(acc: list = []) -> int:\n    \"\"\"F.\n\n    Args:\n        acc: a.\n    \"\"\"\n    acc.append(1)\n    return len(acc)\n",
			"default argument value must be a constant"},
		"dunder escape": {"def f() -> str:\n    \"\"\"F.\"\"\"\n    return str(f.__globals__)\n", "dunder attribute '__globals__'"},
		"eval":          {"def f(s: str) -> str:\n    \"\"\"F.\n\n    Args:\n        s: code.\n    \"\"\"\n    return eval(s)\n", "eval is not available"},
		"no docstring":  {"def f(x: int) -> int:\n    return x\n", "f has no docstring"},
		"no type hint":  {"def f(x) -> int:\n    \"\"\"F.\n\n    Args:\n        x: x.\n    \"\"\"\n    return x\n", "argument x is missing a type hint"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := buildEnv(t, map[string]string{"bad.py": c.src})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), filepath.Join("tools", "bad.py")) {
				t.Fatalf("build error %v, want one naming tools/bad.py with %q", err, c.want)
			}
		})
	}
}

// hostileTools passes the build's checks; the runtime stops each abuse.
const hostileTools = `
import wasmenv
from wasmenv import execute, query_one


class Counter:
    n = 0


def spin() -> str:
    """Loops forever."""
    while True:
        pass


def hog(megabytes: int) -> int:
    """Allocates memory.

    Args:
        megabytes: How much.
    """
    return len(bytearray(megabytes << 20))


def recurse(depth: int) -> int:
    """Recurses.

    Args:
        depth: How deep.
    """
    return depth if depth == 0 else 1 + recurse(depth - 1)


def remember(value: str) -> str:
    """Tries to keep a value in the interpreter for the next episode.

    Args:
        value: The value.
    """
    sdk = wasmenv
    sdk.remembered = value
    c = Counter
    c.n = c.n + 1
    return "kept"


def recall() -> dict:
    """Reads what remember kept, if anything survived."""
    sdk = wasmenv
    return {"module": hasattr(sdk, "remembered"), "class": Counter.n}


def badsql() -> int:
    """Reads a column that does not exist."""
    return query_one("SELECT nope FROM books")["nope"]


def drop() -> int:
    """Drops a table."""
    return execute("DROP TABLE books")


def count() -> int:
    """Counts the books (the episode still works)."""
    return query_one("SELECT COUNT(*) AS n FROM books")["n"]
`

func hostile(t *testing.T) (*runtime.Env, *runtime.Episode) {
	b, err := buildEnv(t, map[string]string{"hostile.py": hostileTools})
	if err != nil {
		t.Fatal(err)
	}
	e := load(t, b)
	return e, episode(t, e, "")
}

func TestHostilePythonStoppedAtRun(t *testing.T) {
	e, ep := hostile(t)
	cases := []struct{ tool, args, want string }{
		{"spin", `{}`, "ran past"},
		{"hog", `{"megabytes":1024}`, "MemoryError"},
		{"recurse", `{"depth":100000}`, "RecursionError"},
		{"badsql", `{}`, "no such column: nope"},
		{"drop", `{}`, "authorization denied"},
	}
	for _, c := range cases {
		r := call(t, ep, c.tool, c.args)
		t.Logf("%s: %s", c.tool, r.Content)
		if !r.IsError || !strings.Contains(r.Content, c.want) {
			t.Errorf("%s: %+v, want an error with %q", c.tool, r, c.want)
		}
		if r := call(t, ep, "count", `{}`); r.IsError || r.Content != "4" {
			t.Errorf("after %s: %+v", c.tool, r)
		}
	}
	other := episode(t, e, "")
	if r := call(t, other, "count", `{}`); r.Content != "4" {
		t.Errorf("another episode: %+v", r)
	}
}

// Module state written in one episode is not there in the next: the call
// that writes it fails and the write is undone.
func TestHostilePythonModuleStateDoesNotSurvive(t *testing.T) {
	e, ep := hostile(t)
	r := call(t, ep, "remember", `{"value":"secret"}`)
	if !r.IsError || !strings.Contains(r.Content, "changed the state of") {
		t.Errorf("remember: %+v", r)
	}
	for i := 0; i < 3; i++ { // every pooled interpreter
		next := episode(t, e, "")
		if r := call(t, next, "recall", `{}`); r.IsError || r.Content != `{"module": false, "class": 0}` {
			t.Errorf("next episode sees %+v", r)
		}
	}
}
