"""wasmenv's Python bootstrap, imported once when an interpreter starts.

The C glue (tools/python-wasm/glue.c) calls dispatch(tool, args) for every
wasmenv_call: tool is the tool's index in the manifest, args its JSON
arguments; the answer is a status byte (sdk/wire's Call* constants) and the
result or error text. Index DESCRIBE asks, at build time, for the checks and
schemas of the tool files under /env/tools.

Between episodes: tool modules may hold only constants (the build refuses
anything else), and after every call the state guard compares what the
modules, their functions and classes hold with what they held after import;
a call that changed any of it is answered with an error and the state is put
back, so nothing a call does reaches the next call or episode through them.
"""

import json
import os
import sys

import wasmenv

DESCRIBE = 0xFFFFFFFF
TOOLS_DIR = "/env/tools"
NAMES_FILE = "/env/wasmenv_tools.json"  # the manifest's tool names, written by the runtime

CALL_OK, CALL_ERROR, CALL_INVALID_ARGS = b"\x00", b"\x01", b"\x02"

_tools = []     # index -> (function, parameter names, required names)
_guarded = []   # (object, kind, saved state)


def _tool_modules():
    import importlib
    mods = []
    for name in sorted(os.listdir(TOOLS_DIR)):
        if name.endswith(".py") and not name.startswith("_"):
            mods.append(importlib.import_module("tools." + name[:-3]))
    return mods


def _public_functions(mod):
    import inspect
    for name, obj in list(vars(mod).items()):
        if inspect.isfunction(obj) and obj.__module__ == mod.__name__ and not name.startswith("_"):
            yield name, obj


def _load():
    import inspect
    with open(NAMES_FILE) as f:
        names = json.load(f)
    found = {}
    mods = _tool_modules()
    for mod in mods:
        for name, fn in _public_functions(mod):
            found[name] = fn
    for name in names:
        fn = found.get(name)
        if fn is None:
            raise RuntimeError(f"tool {name!r} is in the manifest but not in the tool files")
        sig = inspect.signature(fn)
        params = frozenset(sig.parameters)
        required = frozenset(n for n, p in sig.parameters.items() if p.default is inspect.Parameter.empty)
        _tools.append((fn, params, required))
    for mod in [wasmenv] + mods + [m for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("tools.")]:
        _guard(mod)


def _guard(mod):
    import inspect
    if any(g[0] is mod for g in _guarded):
        return
    _guarded.append(_entry(mod, "module", vars(mod)))
    for obj in list(vars(mod).values()):
        if inspect.isfunction(obj) and obj.__module__ == mod.__name__:
            _guarded.append((obj, "function", (obj.__defaults__, obj.__kwdefaults__, dict(obj.__dict__)), 0, (), ()))
        elif inspect.isclass(obj) and obj.__module__ == mod.__name__:
            _guarded.append(_entry(obj, "class", vars(obj)))


def _entry(obj, kind, d):
    # The keys and values in order: the check after each call compares them
    # as tuples, in C (identity first), a few microseconds for all modules.
    return (obj, kind, dict(d), len(d), tuple(d), tuple(d.values()))


def _changed():
    """The first guarded object whose state differs from its saved state, put back."""
    bad = None
    for obj, kind, saved, n, keys, values in _guarded:
        if kind == "function":
            d, kd, attrs = saved
            fattrs = obj.__dict__
            if obj.__defaults__ is d and obj.__kwdefaults__ is kd and (not fattrs if not attrs else _same(fattrs, attrs)):
                continue
            obj.__defaults__, obj.__kwdefaults__ = d, kd
            fattrs.clear()
            fattrs.update(attrs)
            bad = bad or f"function {obj.__qualname__}"
            continue
        current = vars(obj)
        if len(current) == n and tuple(current.values()) == values and tuple(current) == keys:
            continue
        if _same(current, saved):
            continue
        bad = bad or f"{kind} {obj.__name__}"
        if kind == "module":
            current.clear()
            current.update(saved)
        else:
            for k in [k for k in current if k not in saved]:
                delattr(obj, k)
            for k, v in saved.items():
                if k not in ("__dict__", "__weakref__") and current.get(k) is not v:
                    setattr(obj, k, v)
    return bad


def _same(current, saved):
    if len(current) != len(saved):
        return False
    for k, v in saved.items():
        if current.get(k, _same) is not v:
            return False
    return True


def dispatch(tool, args):
    if tool == DESCRIBE:
        return _describe()
    if not _tools:
        _load()
    if tool >= len(_tools):
        return CALL_ERROR + f"no tool number {tool}".encode()
    fn, params, required = _tools[tool]
    try:
        kwargs = json.loads(args) if args else {}
    except ValueError as e:
        return CALL_INVALID_ARGS + f"arguments are not JSON: {e}".encode()
    if not isinstance(kwargs, dict):
        return CALL_INVALID_ARGS + b"arguments must be a JSON object"
    if not (params >= kwargs.keys() >= required):
        unknown = [k for k in kwargs if k not in params]
        missing = [k for k in required if k not in kwargs]
        return CALL_INVALID_ARGS + (f"unknown arguments {sorted(unknown)}" if unknown else f"missing arguments {sorted(missing)}").encode()
    try:
        result = fn(**kwargs)
        out = CALL_OK + (result if isinstance(result, str) else json.dumps(result)).encode()
        wasmenv.data._flush()  # the records the call changed, written back
    except wasmenv.ToolError as e:
        out = CALL_ERROR + str(e).encode()
    except RecursionError:
        out = CALL_ERROR + b"RecursionError: maximum recursion depth exceeded"
    except MemoryError:
        out = CALL_ERROR + b"MemoryError: the tool call ran out of memory"
    except Exception as e:
        out = CALL_ERROR + f"{type(e).__name__}: {e}".encode()
    wasmenv.data._discard()  # nothing of this call's records reaches the next
    what = _changed()
    if what is not None:
        out = CALL_ERROR + (f"tool code changed the state of {what}, which is shared by every episode; "
                            "the change was undone (keep state in the database)").encode()
    return out


def _describe():
    """Build time: checks, then schemas, as JSON {"errors": [...]} or {"tools": [...]}."""
    import _wasmenv_check as check
    errors = []
    files = sorted(n for n in os.listdir(TOOLS_DIR) if n.endswith(".py"))
    for name in files:
        with open(f"{TOOLS_DIR}/{name}", encoding="utf-8") as f:
            errors += check.check_source(f"tools/{name}", f.read())
    if errors:
        return CALL_OK + json.dumps({"errors": errors}).encode()
    tools, seen = [], {}
    try:
        mods = _tool_modules()
    except Exception as e:
        return CALL_OK + json.dumps({"errors": [f"tools: importing the tool files failed: {type(e).__name__}: {e}"]}).encode()
    for mod in mods:
        for name, fn in _public_functions(mod):
            where = f"tools/{mod.__name__.split('.', 1)[1]}.py:{fn.__code__.co_firstlineno}"
            if name in seen:
                errors.append(f"{where}: tool {name} is also defined in {seen[name]}")
                continue
            seen[name] = where
            try:
                tools.append(check.function_schema(fn))
            except (check.Problem, NameError, TypeError) as e:
                errors.append(f"{where}: {e}")
    if not tools and not errors:
        errors.append("tools: no tool functions (public functions with type hints and a docstring)")
    if errors:
        return CALL_OK + json.dumps({"errors": errors}).encode()
    return CALL_OK + json.dumps({"tools": tools}, separators=(",", ":")).encode()


# At run time (the runtime wrote the manifest's tool names) the tool modules
# are imported now, inside _initialize, so that a call does not pay for it
# and a broken file fails the load, not a call.
if os.path.exists(NAMES_FILE):
    _load()
