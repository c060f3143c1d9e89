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

// A module name rebound (through an alias) to an object that claims to
// equal anything is still a change: the guard compares by identity, so the
// call fails and the name is put back, and the object, with the value it
// carries, never reaches another episode. (The check in Python compared
// tuples of the namespace's values with ==, which such an object passes.)
const lookalikeTools = `
import wasmenv


class _Lookalike:
    def __init__(self, inner, carried):
        self.inner = inner
        self.carried = carried

    def __eq__(self, other):
        return True

    def __call__(self, *args):
        return self.inner(*args)


def plant(value: str) -> str:
    """Rebinds wasmenv.log to a lookalike carrying a value.

    Args:
        value: The value to carry.
    """
    sdk = wasmenv
    sdk.log = _Lookalike(sdk.log, value)
    return "planted"


def harvest() -> str:
    """What a lookalike planted in an earlier call carries, if one survived."""
    sdk = wasmenv
    return sdk.log.carried if isinstance(sdk.log, _Lookalike) else "nothing"
`

func TestHostilePythonLookalikeValueDoesNotSurvive(t *testing.T) {
	b, err := buildEnv(t, map[string]string{"lookalike.py": lookalikeTools})
	if err != nil {
		t.Fatal(err)
	}
	e := load(t, b)
	ep := episode(t, e, "")
	if r := call(t, ep, "plant", `{"value":"secret"}`); !r.IsError || !strings.Contains(r.Content, "changed the state of module wasmenv") {
		t.Errorf("plant: %+v, want the state guard's error", r)
	}
	for i := 0; i < 3; i++ { // every pooled interpreter
		next := episode(t, e, "")
		if r := call(t, next, "harvest", `{}`); r.IsError || r.Content != "nothing" {
			t.Errorf("the next episode harvests %+v", r)
		}
	}
}
