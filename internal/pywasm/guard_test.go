package pywasm_test

import (
	"strings"
	"testing"
)

// Tool code that reaches a function's state through functools (whose
// setattr the build's checks cannot see: the attribute names are strings)
// changes nothing another call sees: each such call fails, is undone, and
// the function behaves as it did after import in every later episode.
const aliasTools = `
import functools


def victim(x: int = 1) -> str:
    """Answers with its default and its attributes.

    Args:
        x: A number.
    """
    return f"victim {x} {_attrs(victim)}"


def _attrs(f):
    g = f
    return [k for k in ("note", "extra") if hasattr(g, k)]


def _other(x: int = 99) -> str:
    return f"swapped {x}"


def swap_code() -> str:
    """Gives victim the code of another function."""
    functools.update_wrapper(victim, _other, assigned=("__code__",), updated=())
    return "swapped"


def swap_defaults() -> str:
    """Gives victim another function's defaults."""
    functools.update_wrapper(victim, _other, assigned=("__defaults__",), updated=())
    return "swapped"


def note() -> str:
    """Writes an attribute on victim through an alias."""
    f = victim
    f.note = "kept"
    return "noted"


def swap_dict() -> str:
    """Gives victim another function's attribute dict, then writes into it."""
    functools.update_wrapper(victim, _other, assigned=("__dict__",), updated=())
    f = victim
    f.extra = "kept"
    return "swapped"
`

func TestHostilePythonAliasesCannotKeepFunctionState(t *testing.T) {
	b, err := buildEnv(t, map[string]string{"alias.py": aliasTools})
	if err != nil {
		t.Fatal(err)
	}
	e := load(t, b)
	const want = "victim 1 []"
	for _, tool := range []string{"swap_code", "swap_defaults", "note", "swap_dict"} {
		ep := episode(t, e, "")
		if r := call(t, ep, tool, `{}`); !r.IsError || !strings.Contains(r.Content, "changed the state of") {
			t.Errorf("%s: %+v, want the state guard's error", tool, r)
		}
		for i := 0; i < 3; i++ { // every pooled interpreter
			next := episode(t, e, "")
			if r := call(t, next, "victim", `{}`); r.IsError || r.Content != want {
				t.Errorf("after %s, the next episode's victim answers %+v, want %q", tool, r, want)
			}
		}
	}
}
