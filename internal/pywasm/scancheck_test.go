package pywasm_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmenv/wasmenv/compiler"
	"github.com/wasmenv/wasmenv/runtime"
)

// A record the sdk keeps across calls and episodes (a scan's base record,
// a point read's kept record) is handed to the tool itself, and when the
// call ends it is compared with a saved copy (issue 39: in C, where one
// marshal.dumps per record was most of a scan). Whatever the tool changes,
// deep or shallow, a value or only its type (1 -> True, 1 -> 1.0, a list
// -> a tuple) or only the order of a dict's keys: a call that fails leaves
// the record as stored, one that succeeds writes its change to its own
// episode only, and every other episode, and this one after a reset, sees
// the original, through a scan and through a read by id alike. A check by
// == would miss the type changes and the order, one that looked only at
// the top level would miss the deep ones.
func TestPythonRecordChecksCatchEveryChange(t *testing.T) {
	e := checkEnv(t)
	const original = `{"n": 1, "tags": ["x"], "meta": {"k": "v", "deep": [1, {"z": 0}]}}`
	const types = `["int", "list", "dict"]`
	// text: the record stored after the change succeeds; types: its
	// values' types in the call that changed it; after: read back.
	changes := map[string]struct{ text, types, after string }{
		"nested_dict": {`{"n": 1, "tags": ["x"], "meta": {"k": "w", "deep": [1, {"z": 0}]}}`, types, types},
		"deep":        {`{"n": 1, "tags": ["x"], "meta": {"k": "v", "deep": [1, {"z": 1}]}}`, types, types},
		"list_append": {`{"n": 1, "tags": ["x", "y"], "meta": {"k": "v", "deep": [1, {"z": 0}]}}`, types, types},
		"list_item":   {`{"n": 1, "tags": ["x"], "meta": {"k": "v", "deep": [true, {"z": 0}]}}`, types, types},
		"bool":        {`{"n": true, "tags": ["x"], "meta": {"k": "v", "deep": [1, {"z": 0}]}}`, `["bool", "list", "dict"]`, `["bool", "list", "dict"]`},
		"float":       {`{"n": 1.0, "tags": ["x"], "meta": {"k": "v", "deep": [1, {"z": 0}]}}`, `["float", "list", "dict"]`, `["float", "list", "dict"]`},
		"order":       {`{"tags": ["x"], "meta": {"k": "v", "deep": [1, {"z": 0}]}, "n": 1}`, types, types},
		"clear":       {`{}`, `["none", "none", "none"]`, `["none", "none", "none"]`},
		// Changes the JSON text cannot show: the same text, nothing to
		// write, but the record kept must be the original's types again.
		"tuple":     {original, `["int", "tuple", "dict"]`, types},
		"equal_str": {original, types, types},
		// Not changes at all, though the objects or the dict's layout are.
		"readd_last": {original, types, types},
		"list_copy":  {original, types, types},
	}
	for _, how := range []string{"scan", "values", "point"} {
		for name, c := range changes {
			ep := episode(t, e, "")
			args := `{"how":"` + how + `","id":"b","change":"` + name + `","fail":`
			if r := call(t, ep, "mutate", args+`true}`); r.Content != "Error: ValueError: "+c.types {
				t.Errorf("%s %s: mutate then fail = %q", how, name, r.Content)
			}
			show := func(ep *runtime.Episode, text, types string) {
				t.Helper()
				for _, via := range []string{"scan", "point"} {
					if r := call(t, ep, "show", `{"how":"`+via+`","id":"b"}`); r.Content != `[`+text+`, `+types+`]` {
						t.Errorf("%s %s: show by %s = %s, want [%s, %s]", how, name, via, r.Content, text, types)
					}
				}
			}
			show(ep, original, types)
			show(episode(t, e, ""), original, types)
			if r := call(t, ep, "mutate", args+`false}`); r.Content != c.types {
				t.Errorf("%s %s: mutate = %q", how, name, r.Content)
			}
			show(ep, c.text, c.after)
			show(episode(t, e, ""), original, types)
			if err := ep.Reset(); err != nil {
				t.Fatal(err)
			}
			show(ep, original, types)
		}
	}
}

// The C glue decodes and checks a call's arguments itself in the common
// case; everything else takes the bootstrap's path, with its answers:
// unknown argument names (the runtime lets them through, a Python tool's
// schema has no additionalProperties), escapes and spacing json's scanner
// reads, several arguments in any order, defaults, a null for an optional
// one (the runtime drops it).
func TestPythonArgumentsOnEveryPath(t *testing.T) {
	e := checkEnv(t)
	ep := episode(t, e, "")
	cases := []struct{ tool, args, want string }{
		{"echo", `{"a":"x"}`, `["x", 2]`},
		{"echo", `{"b":5,"a":"y"}`, `["y", 5]`},
		{"echo", " {\n \"a\" : \"\\u00e9\\n\" , \"b\" : -1 }\t", `["\u00e9\n", -1]`},
		{"echo", `{"a":"x","c":1}`, `Error: unknown arguments ['c']`},
		{"echo", `{"a":"x","b":null}`, `["x", 2]`},
		{"show", `{"id":"b","how":"point","extra":[1]}`, `Error: unknown arguments ['extra']`},
	}
	for _, c := range cases {
		if r := call(t, ep, c.tool, c.args); r.Content != c.want {
			t.Errorf("%s(%s) = %q, want %q", c.tool, c.args, r.Content, c.want)
		}
	}
	r, err := ep.Call(context.Background(), "echo", []byte(`{"b":1}`))
	if err != nil || !r.IsError || !strings.Contains(r.Content, "missing") {
		t.Errorf("echo without a = %+v, %v; want the missing argument's error", r, err)
	}
}

func checkEnv(t *testing.T) *runtime.Env {
	dir := t.TempDir()
	files := map[string]string{
		"env.yaml":   "name: pycheck\nversion: 1.0.0\ndescription: changes to kept records\n",
		"schema.sql": "CREATE TABLE recs (id TEXT PRIMARY KEY, data TEXT NOT NULL);\n",
		"seed.sql": `INSERT INTO recs VALUES ('a', '{"n": 0}'),
  ('b', '{"n": 1, "tags": ["x"], "meta": {"k": "v", "deep": [1, {"z": 0}]}}'), ('c', '{"n": 2}');` + "\n",
		"tools/checks.py": `
import json

from wasmenv import data


def _find(how, id):
    if how == "point":
        return data["recs"][id]
    if how == "values":
        return [v for v in data["recs"].values() if v.get("n") == 1][0]
    return next(v for k, v in data["recs"].items() if k == id)


def _type(v):
    for t, name in ((bool, "bool"), (int, "int"), (float, "float"), (list, "list"), (tuple, "tuple"), (dict, "dict")):
        if type(v) is t:
            return name
    return "other"


def _types(r):
    return json.dumps([_type(r[key]) if key in r else "none" for key in ("n", "tags", "meta")])


def mutate(how: str, id: str, change: str, fail: bool) -> str:
    """Changes a record read by a scan or by id, then fails or not.

    Args:
        how: How to read it: scan, values or point.
        id: The record's id.
        change: Which change to make.
        fail: Whether to fail after the change.
    """
    r = _find(how, id)
    if change == "nested_dict":
        r["meta"]["k"] = "w"
    elif change == "deep":
        r["meta"]["deep"][1]["z"] = 1
    elif change == "list_append":
        r["tags"].append("y")
    elif change == "list_item":
        r["meta"]["deep"][0] = True
    elif change == "bool":
        r["n"] = True
    elif change == "float":
        r["n"] = float(r["n"])
    elif change == "order":
        r["n"] = r.pop("n")
    elif change == "clear":
        r.clear()
    elif change == "tuple":
        r["tags"] = tuple(r["tags"])
    elif change == "equal_str":
        r["meta"]["k"] = "".join(["v"])
    elif change == "readd_last":
        r["meta"] = r.pop("meta")
    elif change == "list_copy":
        r["tags"] = list(r["tags"])
    if fail:
        raise ValueError(_types(r))
    return _types(r)


def show(how: str, id: str) -> str:
    """Shows a record read by a scan or by id, and its values' types.

    Args:
        how: How to read it: scan or point.
        id: The record's id.
    """
    r = _find(how, id)
    return "[" + json.dumps(r) + ", " + _types(r) + "]"


def echo(a: str, b: int = 2) -> str:
    """Answers its arguments.

    Args:
        a: A text.
        b: A number.
    """
    return json.dumps([a, b])
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
