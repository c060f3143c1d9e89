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

import _wasmenv
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
    _wasmenv.tools(tuple(_tools), _run, _scan_once)
    for mod in [wasmenv] + mods + [m for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("tools.")]:
        _guard(mod)
    _arm()
    _events.clear()


def _guard(mod):
    import inspect
    if any(g[0] is mod for g in _guarded):
        return
    _guarded.append(_entry(mod, "module", vars(mod)))
    _modules.append(_guarded[-1])
    for obj in list(vars(mod).values()):
        if inspect.isfunction(obj) and obj.__module__ == mod.__name__:
            attrs = obj.__dict__  # created here if it was not: the object the quick check holds
            _guarded.append((obj, "function", (obj.__defaults__, obj.__kwdefaults__, obj.__code__, attrs, dict(attrs)), 0, (), ()))
            _functions.append((obj, attrs))
        elif inspect.isclass(obj) and obj.__module__ == mod.__name__:
            _guarded.append(_entry(obj, "class", vars(obj)))


def _entry(obj, kind, d):
    return (obj, kind, dict(d), len(d), tuple(d), tuple(d.values()))


# The check after every call is in two parts. The quick one costs about a
# microsecond: CPython raises the audit event object.__setattr__ (or
# __delattr__) when anything sets a function's __code__, __defaults__ or
# __kwdefaults__ or a class's attribute, so the hook (dict.__setitem__, C,
# no Python frame) records whether that happened; what raises no event is
# compared by the C glue (_wasmenv.unchanged, identity comparisons, no
# allocation): each module's namespace and each function's attribute dict,
# the same dict holding the same keys and values in the same order. Only
# when the quick check sees something does the full one below run, find
# what changed and put it back. Measured on a call that does nothing
# (τ-bench retail's tools loaded, p50 of interleaved calls on the 2-core
# VM): 12.5 us with no check, 33 us with this check done in Python
# (building and comparing tuples), 53 us with a field-by-field check.
_modules = []  # the module entries of _guarded
_functions = []  # every guarded function, with its __dict__ as it was after import
_events = {}  # audit events since the last check (event -> its last arguments)


def _arm():
    """Gives the C glue what the quick check compares with."""
    _wasmenv.guard(tuple((mod.__dict__, keys, values) for mod, _kind, _saved, _n, keys, values in _modules),
                   tuple((fn, attrs, tuple(attrs), tuple(attrs.values())) for fn, attrs in _functions))


_unchanged = _wasmenv.unchanged
_data, _open, _handed, _scans, _settle_all = wasmenv.data, wasmenv.data._open, wasmenv._handed, wasmenv._scans, wasmenv._settle_all


def _quick_clean():
    ev = _events
    if ev and ("object.__setattr__" in ev or "object.__delattr__" in ev):
        return False
    return _unchanged()


def _changed():
    """The first guarded object whose state differs from its saved state, put back."""
    try:
        if _quick_clean():
            return None
        return _restore()
    finally:
        _events.clear()


def _restore():
    bad = None
    for obj, kind, saved, n, keys, values in _guarded:
        if kind == "function":
            d, kd, code, attrs, saved_attrs = saved
            if (obj.__defaults__ is d and obj.__kwdefaults__ is kd and obj.__code__ is code and obj.__dict__ is attrs
                    and (not attrs if not saved_attrs else _same(attrs, saved_attrs))):
                continue
            obj.__defaults__, obj.__kwdefaults__, obj.__code__ = d, kd, code
            obj.__dict__ = attrs
            attrs.clear()
            attrs.update(saved_attrs)
            bad = bad or f"function {obj.__qualname__}"
            continue
        current = vars(obj)
        if _same(current, saved):  # by identity: an object claiming to equal anything is a change
            if kind == "module" and tuple(current) != keys:
                current.clear()  # the same names and values in another order: the order back,
                current.update(saved)  # so that the quick check passes again
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


# A call's arguments are a JSON object (the runtime checked them against
# the tool's schema), so the C scanner json.loads ends in parses them
# directly: json.loads of bytes first runs four Python functions and two
# regular expressions (encoding detection, whitespace), 8 of a no-op call's
# 16 us under wazero. Anything else (not UTF-8, not an object, text after
# it) goes through json.loads, for its exact result or error.
_scan_once = json.decoder.JSONDecoder().scan_once


def _arguments(args):
    if not args:
        return {}
    if args[:1] == b"{":
        try:
            text = args.decode()
            value, end = _scan_once(text, 0)
            if end == len(text):
                return value
        except (ValueError, StopIteration):
            pass
    return json.loads(args)


# A call's common case never comes here: the C glue decodes its arguments
# (a JSON object json's C scanner reads whole), checks their names against
# the tool's parameters and calls _run itself (_wasmenv.tools, registered by
# _load; 3.8 of a no-op call's 9 us were this in Python). dispatch answers
# the rest: the build's DESCRIBE, the first call before the tools are
# loaded, arguments that are not such an object or name unknown or missing
# parameters (its error messages), a tool number out of range.
def dispatch(tool, args):
    try:
        fn, params, required = _tools[tool]
    except IndexError:
        return _dispatch_other(tool, args)
    try:
        kwargs = _arguments(args)
    except ValueError as e:
        return CALL_INVALID_ARGS + f"arguments are not JSON: {e}".encode()
    if not isinstance(kwargs, dict):
        return CALL_INVALID_ARGS + b"arguments must be a JSON object"
    keys = kwargs.keys()
    if keys != params and not (keys <= params and keys >= required):
        unknown = [k for k in kwargs if k not in params]
        missing = [k for k in required if k not in kwargs]
        return CALL_INVALID_ARGS + (f"unknown arguments {sorted(unknown)}" if unknown else f"missing arguments {sorted(missing)}").encode()
    return _run(fn, kwargs)


# _run runs on every call, and CPython under wazero pays for each bytecode
# (a call that does nothing was 9.3 us at p10 on the 2-core VM, 1.5 us of it
# the host and the C glue): so it is written inline, with as few steps as
# it takes.
def _run(fn, kwargs):
    try:
        result = fn(**kwargs)
        out = CALL_OK + (result if isinstance(result, str) else json.dumps(result)).encode()
        if _open:
            _data._flush()  # the records the call changed, written back
    except wasmenv.ToolError as e:
        out = CALL_ERROR + str(e).encode()
    except RecursionError:
        out = CALL_ERROR + b"RecursionError: maximum recursion depth exceeded"
    except MemoryError:
        out = CALL_ERROR + b"MemoryError: the tool call ran out of memory"
    except Exception as e:
        out = CALL_ERROR + f"{type(e).__name__}: {e}".encode()
    # Nothing of this call's records reaches the next.
    if _open:
        _open.clear()
    if _handed or _scans:
        _settle_all()
    # The state guard's quick check (_changed, inline: a call with audit
    # events, of which only two matter, takes the longer way).
    if not _events:
        if _unchanged():
            return out
        what = _restore()
    else:
        what = _changed()
    if what is not None:
        out = CALL_ERROR + (f"tool code changed the state of {what}, which is shared by every episode; "
                            "the change was undone (keep state in the database)").encode()
    return out


def _dispatch_other(tool, args):
    """A tool number that is not a loaded tool: the build's DESCRIBE, the
    first call before the tools were loaded, or a number out of range."""
    if tool == DESCRIBE:
        return _describe()
    if not _tools:
        _load()
        return dispatch(tool, args)
    return CALL_ERROR + f"no tool number {tool}".encode()


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


sys.addaudithook(_events.__setitem__)  # once per interpreter; hooks cannot be removed

# At run time (the runtime wrote the manifest's tool names) the tool modules
# are imported now, inside _initialize, so that a call does not pay for it
# and a broken file fails the load, not a call.
if os.path.exists(NAMES_FILE):
    _load()
