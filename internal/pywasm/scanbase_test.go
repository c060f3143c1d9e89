package pywasm_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/envpkg"
	"github.com/wasmenv/wasmenv/runtime"
)

// A scan of wasmenv.data (items, values, keys, len) reads a collection's
// rows in the initial state from a base the interpreter keeps parsed across
// episodes, and the episode's own rows from its table (issue 39's scans).
// Nothing a call does to a base record may reach another call or episode,
// the episode's writes, inserts and deletes must show in its scans (and
// only in its own), a record a call holds must be one object however it
// was read, and an episode over another initial state (a task's setup)
// must never see the base of the first.
func TestPythonScanBaseKeepsEpisodesApart(t *testing.T) {
	e := scanEnv(t)
	ep := episode(t, e, "")
	const seeded = `[["a", {"n": 1, "tags": ["x"]}], ["b", {"n": 2, "tags": []}], ["c", {"n": 3, "tags": ["y"]}]]`
	check := func(ep *runtime.Episode, tool, args, want string) {
		t.Helper()
		if r := call(t, ep, tool, args); r.Content != want {
			t.Errorf("%s(%s) = %q, want %q", tool, args, r.Content, want)
		}
	}
	check(ep, "scan", `{}`, seeded)
	// A change through a scan, then a failure: gone, in this episode and the next.
	check(ep, "scan_change_fail", `{"id":"b"}`, "Error: ValueError: failed after the change")
	check(ep, "scan", `{}`, seeded)
	check(episode(t, e, ""), "scan", `{}`, seeded)
	// A change through a scan that succeeds: written to this episode only,
	// 1 -> 1.0 included (equal in Python, not in JSON).
	check(ep, "scan_set", `{"id":"b","n":20}`, "ok")
	check(ep, "scan_float", `{"id":"a"}`, "ok")
	const changed = `[["a", {"n": 1.0, "tags": ["x"]}], ["b", {"n": 20, "tags": []}], ["c", {"n": 3, "tags": ["y"]}]]`
	check(ep, "scan", `{}`, changed)
	check(ep, "values", `{}`, `[{"n": 1.0, "tags": ["x"]}, {"n": 20, "tags": []}, {"n": 3, "tags": ["y"]}]`)
	check(ep, "reversed_values", `{}`, `[{"n": 3, "tags": ["y"]}, {"n": 20, "tags": []}, {"n": 1.0, "tags": ["x"]}]`)
	other := episode(t, e, "")
	check(other, "scan", `{}`, seeded)
	// One object per record in a call, whichever way it was read.
	check(other, "scan_then_point", `{"id":"c"}`, `[77, true]`)
	check(other, "point_then_scan", `{"id":"a"}`, `[55, true]`)
	check(other, "scan", `{}`, `[["a", {"n": 55, "tags": ["x"]}], ["b", {"n": 2, "tags": []}], ["c", {"n": 77, "tags": ["y"]}]]`)
	// Inserts and deletes, in storage order, with this call's own.
	check(ep, "add", `{"id":"d"}`, "ok")
	check(ep, "remove", `{"id":"a"}`, "ok")
	check(ep, "add_then_scan", `{"id":"e"}`, `Error: ValueError: [["b", {"n": 20, "tags": []}], ["c", {"n": 3, "tags": ["y"]}], ["d", {"n": 0, "tags": []}], ["e", {"n": 0, "tags": []}], 4]`)
	check(ep, "keys", `{}`, `["b", "c", "d"]`)
	check(episode(t, e, ""), "keys", `{}`, `["a", "b", "c"]`)
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	check(ep, "scan", `{}`, seeded)
	// Another initial state: a task's setup changed a row; the bundle's
	// episodes keep theirs.
	c := e.Candidate(envpkg.Task{ID: "setup", Instruction: "Look.", Setup: `UPDATE recs SET data = '{"n": 9, "tags": []}' WHERE id = 'c'`})
	defer c.Close()
	sep, err := c.NewEpisode(1)
	if err != nil {
		t.Fatal(err)
	}
	defer sep.Close()
	check(sep, "scan", `{}`, `[["a", {"n": 1, "tags": ["x"]}], ["b", {"n": 2, "tags": []}], ["c", {"n": 9, "tags": []}]]`)
	check(ep, "scan", `{}`, seeded)
}

// The sdk's state lies on private attributes (the bases, this call's
// scans, the records it checks when a call ends): tool code that reaches
// for them, directly or by name, is refused at build.
func TestHostilePythonCannotReachTheSdkState(t *testing.T) {
	head := "import operator\nimport string\nimport wasmenv\nfrom wasmenv import data\n\n\ndef f() -> str:\n    \"\"\"F.\"\"\"\n"
	cases := map[string]struct{ body, want string }{
		"module":      {"    return str(len(wasmenv._bases))\n", "private attribute '_bases'"},
		"view":        {"    return str(data['recs'].items()._scan)\n", "private attribute '_scan'"},
		"attrgetter":  {"    return str(operator.attrgetter('_scan')(data['recs'].items()))\n", "attrgetter is not available"},
		"get_field":   {"    return str(string.Formatter().get_field('0._scan', [data['recs'].items()], {}))\n", "get_field is not available"},
		"from import": {"    from operator import methodcaller\n    return str(methodcaller('_view'))\n", "methodcaller is not available"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := buildEnv(t, map[string]string{"bad.py": head + c.body})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("build error %v, want one with %q", err, c.want)
			}
		})
	}
}

func scanEnv(t *testing.T) *runtime.Env {
	dir := t.TempDir()
	files := map[string]string{
		"env.yaml":   "name: pyscan\nversion: 1.0.0\ndescription: scans of document state\n",
		"schema.sql": "CREATE TABLE recs (id TEXT PRIMARY KEY, data TEXT NOT NULL);\n",
		"seed.sql": `INSERT INTO recs VALUES ('a', '{"n": 1, "tags": ["x"]}'), ('b', '{"n": 2, "tags": []}'),
  ('c', '{"n": 3, "tags": ["y"]}');` + "\n",
		"tools/scans.py": `
import json

from wasmenv import data


def scan() -> str:
    """Lists every record with its id."""
    return json.dumps([[k, v] for k, v in data["recs"].items()])


def values() -> str:
    """Lists every record."""
    return json.dumps(list(data["recs"].values()))


def reversed_values() -> str:
    """Lists every record, last first."""
    return json.dumps(list(reversed(data["recs"].values())))


def keys() -> str:
    """Lists the ids."""
    return json.dumps(list(data["recs"].keys()))


def scan_change_fail(id: str) -> str:
    """Changes a record found by a scan, deep inside, then fails.

    Args:
        id: The record's id.
    """
    for k, v in data["recs"].items():
        if k == id:
            v["n"] = 99
            v["tags"].append("z")
    raise ValueError("failed after the change")


def scan_set(id: str, n: int) -> str:
    """Sets a record's n through a scan.

    Args:
        id: The record's id.
        n: The new n.
    """
    for k, v in data["recs"].items():
        if k == id:
            v["n"] = n
    return "ok"


def scan_float(id: str) -> str:
    """Makes a record's n a float of the same value through values().

    Args:
        id: The record's id.
    """
    for v in data["recs"].values():
        if v["n"] == 1:
            v["n"] = float(v["n"])
    return "ok"


def scan_then_point(id: str) -> str:
    """Finds a record by a scan, changes it through a read by id.

    Args:
        id: The record's id.
    """
    for k, v in data["recs"].items():
        if k == id:
            data["recs"][id]["n"] = 77
            return json.dumps([v["n"], v is data["recs"][id]])
    return "none"


def point_then_scan(id: str) -> str:
    """Reads a record by id, then finds it by a scan and changes it.

    Args:
        id: The record's id.
    """
    first = data["recs"][id]
    for k, v in data["recs"].items():
        if k == id:
            v["n"] = 55
            return json.dumps([first["n"], v is first])
    return "none"


def add(id: str) -> str:
    """Adds a record.

    Args:
        id: The new record's id.
    """
    data["recs"][id] = {"n": 0, "tags": []}
    return "ok"


def remove(id: str) -> str:
    """Deletes a record.

    Args:
        id: The record's id.
    """
    del data["recs"][id]
    return "ok"


def add_then_scan(id: str) -> str:
    """Adds a record, lists every record, then fails (the add is undone).

    Args:
        id: The new record's id.
    """
    data["recs"][id] = {"n": 0, "tags": []}
    out = json.dumps([[k, v] for k, v in data["recs"].items()] + [len(data["recs"])])
    raise ValueError(out)
`,
	}
	os.Mkdir(filepath.Join(dir, "tools"), 0o755)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := compiler.Build(context.Background(), dir, compiler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return load(t, b)
}
