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

// A record read through wasmenv.data and encoded unchanged with json.dumps
// is answered with its stored text (the sdk keeps each stored text's parse
// as marshal bytes, issue 39's speed item). These are the cases where a
// shortcut could be wrong: each answer must be exactly what json.dumps
// writes for the record as the tool holds it, and each write must happen
// exactly when the record's json.dumps text changed.
func TestPythonRecordTextIsJSONDumpsExactly(t *testing.T) {
	ep, e := recordEnv(t)
	before, err := ep.StateHash()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ tool, args, want string }{
		// Stored as json.dumps writes it: the stored text itself.
		{"show", `{"id":"a"}`, `{"id": "a", "n": 1, "flag": true, "items": [{"price": 30.5, "tags": ["x"]}]}`},
		// Stored without json.dumps's spaces: json.dumps's text, not the stored one.
		{"show", `{"id":"tight"}`, `{"id": "tight", "n": 2}`},
		{"show", `{"id":"tight"}`, `{"id": "tight", "n": 2}`},
		// Encoded, changed deep inside, encoded again in the same call.
		{"dump_change_dump", `{"id":"a"}`, `Error: ValueError: {"id": "a", "n": 1, "flag": true, "items": [{"price": 30.5, "tags": ["x"]}]}|{"id": "a", "n": 1, "flag": true, "items": [{"price": 30.5, "tags": ["x", "y"]}]}`},
		// Other encodings of the same record are json.dumps's own.
		{"show_sorted", `{"id":"a"}`, "{\n  \"flag\": true,\n  \"id\": \"a\",\n  \"items\": [\n    {\n      \"price\": 30.5,\n      \"tags\": [\n        \"x\"\n      ]\n    }\n  ],\n  \"n\": 1\n}"},
		// A part of the record held elsewhere while it is encoded.
		{"show_holding_part", `{"id":"a"}`, `[30.5, {"id": "a", "n": 1, "flag": true, "items": [{"price": 30.5, "tags": ["x"]}]}]`},
	}
	for _, c := range cases {
		if r := call(t, ep, c.tool, c.args); r.IsError != (c.tool == "dump_change_dump") || r.Content != c.want {
			t.Errorf("%s(%s) = %q, want %q", c.tool, c.args, r.Content, c.want)
		}
	}
	if h, _ := ep.StateHash(); h != before {
		// Old sdk: the record stored in another layout was rewritten by a read.
		t.Fatal("reads and a failed change changed the state")
	}
	// 1 -> 1.0 and true -> 1 are equal in Python but not in JSON: both writes happen.
	for _, c := range []struct{ tool, want string }{
		{"make_float", `{"id": "a", "n": 1.0, "flag": true, "items": [{"price": 30.5, "tags": ["x"]}]}`},
		{"make_int_flag", `{"id": "a", "n": 1.0, "flag": 1, "items": [{"price": 30.5, "tags": ["x"]}]}`},
	} {
		if r := call(t, ep, c.tool, `{"id":"a"}`); r.IsError {
			t.Fatalf("%s: %+v", c.tool, r)
		}
		if r := call(t, ep, "show", `{"id":"a"}`); r.Content != c.want {
			t.Errorf("after %s: %s, want %s", c.tool, r.Content, c.want)
		}
	}
	if h, _ := ep.StateHash(); h == before {
		t.Error("the type changes were not written")
	}
	// Another episode reads the seeded text, not the first one's.
	other := episode(t, e, "")
	if r := call(t, other, "show", `{"id":"a"}`); r.Content != cases[0].want {
		t.Errorf("another episode: %s", r.Content)
	}
}

// The sdk hands a tool the record it keeps per stored text (no copy per
// read): a change a call makes to it must stay in that call. A failed
// call's change is gone, a successful call's is written to its episode
// only, a change after json.dumps does not alter the answer, and two ids
// with the same stored text are two records.
func TestPythonKeptRecordsDoNotCarryChanges(t *testing.T) {
	ep, e := recordEnv(t)
	stored := `{"id": "a", "n": 1, "flag": true, "items": [{"price": 30.5, "tags": ["x"]}]}`
	show := func(ep *runtime.Episode, id, want string) {
		t.Helper()
		if r := call(t, ep, "show", `{"id":"`+id+`"}`); r.IsError || r.Content != want {
			t.Errorf("show(%s) = %+v, want %s", id, r, want)
		}
	}
	if r := call(t, ep, "change_then_fail", `{"id":"a"}`); !r.IsError {
		t.Fatalf("change_then_fail: %+v", r)
	}
	show(ep, "a", stored)
	if r := call(t, ep, "dump_then_change", `{"id":"a"}`); r.IsError || r.Content != stored {
		t.Errorf("dump_then_change = %+v, want the text before the change", r)
	}
	show(ep, "a", strings.Replace(stored, `"n": 1`, `"n": 42`, 1))
	// The text written back is the record as the call left it, not as it was encoded.
	if r := call(t, ep, "change_dump_change", `{"id":"a"}`); r.IsError || r.Content != strings.Replace(stored, `"n": 1`, `"n": 2`, 1) {
		t.Errorf("change_dump_change = %+v", r)
	}
	show(ep, "a", strings.Replace(stored, `"n": 1`, `"n": 3`, 1))
	if r := call(t, ep, "change_first_show_second", `{"first":"t1","second":"t2"}`); r.IsError || r.Content != `[{"n": 5}, false]` {
		t.Errorf("change_first_show_second = %+v", r)
	}
	show(ep, "t1", `{"n": 7}`)
	show(ep, "t2", `{"n": 5}`)
	other := episode(t, e, "")
	show(other, "a", stored)
	show(other, "t1", `{"n": 5}`)
	if err := ep.Reset(); err != nil {
		t.Fatal(err)
	}
	show(ep, "a", stored)
	show(ep, "t1", `{"n": 5}`)
}

func recordEnv(t *testing.T) (*runtime.Episode, *runtime.Env) {
	dir := t.TempDir()
	files := map[string]string{
		"env.yaml":   "name: pyrecords\nversion: 1.0.0\ndescription: record texts\n",
		"schema.sql": "CREATE TABLE recs (id TEXT PRIMARY KEY, data TEXT NOT NULL);\n",
		"seed.sql": `INSERT INTO recs VALUES ('a', '{"id": "a", "n": 1, "flag": true, "items": [{"price": 30.5, "tags": ["x"]}]}'),
  ('tight', '{"id":"tight","n":2}'), ('t1', '{"n": 5}'), ('t2', '{"n": 5}');` + "\n",
		"tools/recs.py": `
import json

from wasmenv import data


def show(id: str) -> str:
    """Shows a record.

    Args:
        id: The record's id.
    """
    return json.dumps(data["recs"][id])


def show_sorted(id: str) -> str:
    """Shows a record, indented, keys sorted.

    Args:
        id: The record's id.
    """
    return json.dumps(data["recs"][id], indent=2, sort_keys=True)


def dump_change_dump(id: str) -> str:
    """Shows a record before and after a change, then fails.

    Args:
        id: The record's id.
    """
    rec = data["recs"][id]
    first = json.dumps(rec)
    rec["items"][0]["tags"].append("y")
    second = json.dumps(rec)
    raise ValueError(first + "|" + second)


def show_holding_part(id: str) -> str:
    """Shows a record while holding one of its parts.

    Args:
        id: The record's id.
    """
    rec = data["recs"][id]
    item = rec["items"][0]
    return json.dumps([item["price"], rec])


def make_float(id: str) -> str:
    """Makes n a float of the same value.

    Args:
        id: The record's id.
    """
    rec = data["recs"][id]
    rec["n"] = float(rec["n"])
    return "ok"


def change_then_fail(id: str) -> str:
    """Changes a record deep inside, then fails.

    Args:
        id: The record's id.
    """
    rec = data["recs"][id]
    rec["n"] = 99
    rec["items"][0]["tags"].append("z")
    raise ValueError("failed after the change")


def dump_then_change(id: str) -> str:
    """Encodes a record, then changes it.

    Args:
        id: The record's id.
    """
    rec = data["recs"][id]
    text = json.dumps(rec)
    rec["n"] = 42
    return text


def change_dump_change(id: str) -> str:
    """Changes a record, encodes it, changes it again.

    Args:
        id: The record's id.
    """
    rec = data["recs"][id]
    rec["n"] = 2
    text = json.dumps(rec)
    rec["n"] = 3
    return text


def change_first_show_second(first: str, second: str) -> str:
    """Changes one record, then shows another and whether they are one object.

    Args:
        first: A record's id.
        second: Another record's id.
    """
    a = data["recs"][first]
    b = data["recs"][second]
    a["n"] = 7
    return json.dumps([b, a is b])


def make_int_flag(id: str) -> str:
    """Makes flag an int of the same value.

    Args:
        id: The record's id.
    """
    rec = data["recs"][id]
    rec["flag"] = int(rec["flag"])
    return "ok"
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
	e := load(t, b)
	return episode(t, e, ""), e
}
