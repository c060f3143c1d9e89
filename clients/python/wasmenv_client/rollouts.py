"""Read `wasmenv rollout` files in their full view (standard library only).

    from wasmenv_client.rollouts import read_rollouts

    for r in read_rollouts("rollouts.jsonl"):      # or .jsonl.gz
        r["messages"], r["tools"], r["advantage"]    # every line whole again

The compact JSONL (the default) writes each toolset, the tools and system
prompt its rollouts share, once as a record line
`{"record": "toolset2", "toolset": ID, "tools": [...], "system": "..."}`
before the first rollout line that names it with `"toolset": ID`. Such a
line's `messages` start after the system message, and it leaves out what
the reader derives exactly: a call's `"type": "function"`, a call
id `call_<k>_<i>` (the i-th call of the line's k-th assistant message), a
tool message's `tool_call_id` when it answers the call at its position, an
empty `content`, the toolset's `env_hash`, the `group`
`"<env>/<task>/<seed - index>"`, and the base reward components the line's
checks and counts give. read_rollouts puts it all back, so each rollout is
exactly what the whole-line format (`--inline-tools`, and files written
before toolsets) holds; every kind of line is read, including those of
`"record": "toolset"` records (the first format: lines leave out only the
tools and the system message). docs/ROLLOUT.md is the schema.
"""

import decimal
import gzip
import json
import math
import re
import zlib

__all__ = ["RolloutFileError", "read_rollouts", "iter_rollouts", "DEFAULT_LIMITS"]


class RolloutFileError(ValueError):
    """The file is not a rollout file: names the record at fault."""


# What one file may make the reader hold or hand on (rl.ReadLimits, with the
# same defaults): a line's bytes (refused once that much of it was read), a
# toolset record's, how deep a line's JSON nests, and the lines restored to
# their full view (each line's bytes plus its toolset record's) in all: at
# most max_expanded_bytes plus max_expansion times the bytes read so far.
DEFAULT_LIMITS = {
    "max_record_bytes": 64 << 20,
    "max_toolset_bytes": 4 << 20,
    "max_expanded_bytes": 1 << 30,
    "max_expansion": 4096,
    "max_depth": 128,
}


def read_rollouts(path, **limits):
    """Yield each rollout of the file at path (gzip when it ends in .gz) as
    a dict in its full view. Keyword arguments override DEFAULT_LIMITS."""
    lim = _limits(limits)
    opener = gzip.open if str(path).endswith(".gz") else open
    cap = lim["max_record_bytes"]

    def lines(f):
        while True:
            # a line is read at most one byte past the limit: a longer one
            # is refused before the rest of it is held
            line = f.readline(cap + 2)
            if not line:
                return
            yield line

    try:
        with opener(path, "rb") as f:
            yield from iter_rollouts(lines(f), name=str(path), **lim)
    except (EOFError, gzip.BadGzipFile, zlib.error) as e:  # a broken .gz is a content fault too
        raise RolloutFileError("%s: %s" % (path, e)) from None


def _limits(given):
    unknown = set(given) - set(DEFAULT_LIMITS)
    if unknown:
        raise TypeError("unknown limits: %s" % ", ".join(sorted(unknown)))
    lim = dict(DEFAULT_LIMITS)
    lim.update({k: v for k, v in given.items() if v})
    return lim


def iter_rollouts(lines, name="<lines>", **limits):
    """Yield the rollouts of an iterable of JSONL lines (bytes or str) in
    their full view. Keyword arguments override DEFAULT_LIMITS."""
    lim = _limits(limits)
    toolsets, sizes = {}, {}
    read = expanded = 0
    for n, line in enumerate(lines, 1):
        if isinstance(line, str):
            line = line.encode("utf-8", "surrogatepass")
        read += len(line)
        body = line[:-1] if line.endswith(b"\n") else line
        if len(body) > lim["max_record_bytes"]:
            raise RolloutFileError("%s:%d: a line longer than %d bytes (the record limit)" % (name, n, lim["max_record_bytes"]))
        if not body.strip(b" \t\r\n"):
            continue
        text = body.decode("utf-8", "replace")  # as Go reads invalid UTF-8
        if _depth_over(text, lim["max_depth"]):
            raise RolloutFileError("%s:%d: JSON nested deeper than %d levels" % (name, n, lim["max_depth"]))
        rec = _parse(text, name, n)
        if not isinstance(rec, dict):
            raise RolloutFileError("%s:%d: not a JSON object" % (name, n))
        head = _check(rec, _HEAD, name, n)
        kind = head.get("record")
        if kind in TOOLSET_RECORDS:
            if len(body) > lim["max_toolset_bytes"]:
                raise RolloutFileError("%s:%d: a toolset of %d bytes, over the limit of %d" % (name, n, len(body), lim["max_toolset_bytes"]))
            ts = _check(rec, _TOOLSET, name, n)  # its fields, as Go reads them
            tid = ts.get("toolset")
            if not tid:
                raise RolloutFileError("%s:%d: a toolset without an id" % (name, n))
            toolsets[tid], sizes[tid] = ts, len(body)
            continue
        if isinstance(kind, str) and kind.startswith("toolset"):
            raise RolloutFileError("%s:%d: a %r record is of a newer format than this reader's (%r): update wasmenv_client"
                                   % (name, n, kind, TOOLSET_RECORDS[-1]))
        if kind:
            raise RolloutFileError("%s:%d: unknown record %r" % (name, n, kind))
        expanded += len(body)
        ref = head.get("toolset")
        rec.pop("toolset", None)
        ts = None
        if ref is not None:
            ts = toolsets.get(ref)
            if ts is None:
                raise RolloutFileError("%s:%d: toolset %r is not defined before it" % (name, n, ref))
            expanded += sizes[ref]
        # a line of a compact toolset is read as Go reads a compactLine
        # (no tools), any other as a whole rollout
        _check(rec, _COMPACT if ts is not None and ts.get("record") == "toolset2" else _ROLLOUT, name, n)
        bound = lim["max_expanded_bytes"] + lim["max_expansion"] * read
        if expanded > bound:
            raise RolloutFileError("%s:%d: the lines so far expand to %d bytes with their toolsets, over the limit of %d"
                                   % (name, n, expanded, bound))
        if ref is not None:
            rec = restore(rec, ts)
        yield rec


def _parse(text, name, n):
    """One line's JSON, as Go's encoding/json reads it: NaN and Infinity
    are not JSON, and an integer of any length is (Python's int() refuses
    past 4300 digits: such a number is kept as a Decimal)."""
    try:
        try:
            return json.loads(text, parse_constant=_not_json, object_pairs_hook=_object)
        except ValueError as e:
            if "digits" not in str(e):
                raise
            return json.loads(text, parse_constant=_not_json, object_pairs_hook=_object, parse_int=_big_int)
    except (ValueError, RecursionError) as e:
        raise RolloutFileError("%s:%d: not JSON: %s" % (name, n, e)) from None


def _not_json(word):
    raise ValueError("%s is not JSON" % word)


def _big_int(digits):
    return int(digits) if len(digits) < 4000 else decimal.Decimal(digits)


class _Pairs(dict):
    """An object whose keys repeat: Go decodes each of its values (and
    refuses a file when any is of the wrong type), a dict keeps the last."""

    pairs = ()


def _object(pairs):
    d = dict(pairs)
    if len(d) != len(pairs):
        d = _Pairs(d)
        d.pairs = pairs
    return d


# The types of a line's fields, as rl.Rollout, rl's compactLine and
# rl.Toolset declare them; a file is read when Go's encoding/json decodes
# every line into them. Go accepts null for any field, matches keys without
# regard to ASCII case (and K/ſ), decodes every value of a repeated key,
# and ignores unknown keys; an integer field takes only an integer literal
# in 64 bits, a number field a finite float64.
_STR, _INT, _FLOAT, _BOOL, _ANY = "string", "integer", "number", "boolean", "any"


def _list(t):
    return ("list", t)


def _map(t):
    return ("map", t)


def _obj(**fields):
    exact = {k: (k, t) for k, t in fields.items()}
    return ("object", exact, {_fold(k): f for k, f in exact.items()})


def _field(schema, key):
    """The (name, type) of the field a key sets, as Go matches keys: the
    exact name first, then any key equal to it but for case."""
    f = schema[1].get(key)
    return f if f is not None else schema[2].get(_fold(key))


def _fold(key):
    """Go's key folding (encoding/json foldName) for ASCII field names."""
    if key.isascii():
        return key.upper()
    return "".join("K" if c == "\u212a" else "S" if c == "\u017f" else c.upper() if "a" <= c <= "z" else c
                   for c in key)


_FUNCTION = _obj(name=_STR, arguments=_STR)
_MESSAGE = _obj(role=_STR, content=_STR, tool_calls=_list(_obj(id=_STR, type=_STR, function=_FUNCTION)),
                tool_call_id=_STR, name=_STR, reasoning_content=_STR)
_TOOL = _obj(type=_STR, function=_obj(name=_STR, description=_STR, parameters=_ANY))
_FIELDS = dict(env=_STR, env_hash=_STR, task=_STR, group=_STR, index=_INT, seed=_INT, messages=_list(_MESSAGE),
               reward=_FLOAT, reward_components=_map(_FLOAT), advantage=_FLOAT, turns=_INT, tool_calls=_INT,
               format_error=_BOOL, format_errors=_INT, env_error=_BOOL, policy_error=_STR, finish=_STR,
               answer=_STR, checks=_list(_obj(name=_STR, passed=_BOOL, guard=_BOOL, error=_STR)),
               state_hash=_STR,
               turn_tokens=_list(_obj(message=_INT, prompt_token_ids=_list(_INT), completion_token_ids=_list(_INT),
                                      logprobs=_list(_FLOAT), tokens=_list(_STR), finish_reason=_STR)),
               usage=_obj(prompt_tokens=_INT, completion_tokens=_INT), window=_obj(turn=_INT, size=_INT))
_ROLLOUT = _obj(tools=_list(_TOOL), **_FIELDS)
_COMPACT = _obj(toolset=_STR, **_FIELDS)
_TOOLSET = _obj(record=_STR, toolset=_STR, env=_STR, env_hash=_STR, tools=_list(_TOOL), system=_STR)
_HEAD = _obj(record=_STR, toolset=_STR)


def _check(rec, schema, name, n):
    """rec's fields as Go reads them into schema ({field: value}: the last
    non-null value of the keys that match it), or RolloutFileError naming
    the first that Go refuses."""
    got = {}
    for key, v in _items(rec):
        f = _field(schema, key)
        if f is None:
            continue
        where = _fault(v, f[1], key)
        if where:
            raise RolloutFileError("%s:%d: %s" % (name, n, where))
        if v is not None:
            got[f[0]] = v
    return got


def _items(obj):
    return obj.pairs if isinstance(obj, _Pairs) else obj.items()


def _fault(v, t, path):
    """Where v is not of type t (a message naming it), or None."""
    if v is None or t == _ANY or t == _STR and type(v) is str:
        return None
    if t == _STR:
        ok = isinstance(v, str)
    elif t == _BOOL:
        ok = type(v) is bool
    elif t == _INT:
        ok = type(v) is int and -(1 << 63) <= v < (1 << 63)
    elif t == _FLOAT:
        ok = type(v) in (int, float)
        if ok:
            try:
                ok = math.isfinite(float(v))
            except OverflowError:
                ok = False
    elif t[0] == "list":
        if not isinstance(v, list):
            return "%s: %s is not a list" % (path, _short(v))
        for i, e in enumerate(v):
            where = _fault(e, t[1], "%s[%d]" % (path, i))
            if where:
                return where
        return None
    elif t[0] == "map":
        if not isinstance(v, dict):
            return "%s: %s is not an object" % (path, _short(v))
        for k, e in _items(v):
            where = _fault(e, t[1], "%s.%s" % (path, k))
            if where:
                return where
        return None
    else:  # an object
        if not isinstance(v, dict):
            return "%s: %s is not an object" % (path, _short(v))
        for k, e in _items(v):
            f = _field(t, k)
            if f is not None:
                where = _fault(e, f[1], "%s.%s" % (path, k))
                if where:
                    return where
        return None
    return None if ok else "%s: %s is not a JSON %s%s" % (
        path, _short(v), t, " in 64 bits" if t == _INT else " (a finite float64)" if t == _FLOAT else "")


def _short(v):
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


# JSON strings, and runs of anything but brackets and quotes: removed,
# they leave a line's brackets outside strings.
_NOT_BRACKETS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[^\[\]{}"]+', re.S)


def _depth_over(text, limit):
    """Whether text's JSON nests deeper than limit (strings skipped; as
    rl's depthOver)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for c in _NOT_BRACKETS.sub("", text):
        if c == "[" or c == "{":
            depth += 1
            if depth > limit:
                return True
        elif c != '"':  # an unterminated string's quote (not JSON anyway)
            depth -= 1
    return False


# The keys of a whole line, in its order (rl.Rollout).
WHOLE_KEYS = ["env", "env_hash", "task", "group", "index", "seed", "messages", "tools",
              "reward", "reward_components", "advantage", "turns", "tool_calls",
              "format_error", "format_errors", "env_error", "policy_error", "finish",
              "answer", "checks", "state_hash", "turn_tokens", "usage", "window"]

# The toolset records this reader knows (rl.RecordToolsetV1, rl.RecordToolset):
# the first format's lines leave out only the tools and the system message,
# compact lines (the second) also what restore derives.
TOOLSET_RECORDS = ("toolset", "toolset2")


def restore(rec, ts):
    """A compact line with its toolset's tools and system message back (and,
    for a compact line, the values it left out), keys in the whole-line
    order."""
    msgs = rec.get("messages")
    full = dict(rec)
    if ts.get("tools"):  # a whole line has no "tools" when there are none
        full["tools"] = ts["tools"]
    if ts.get("record") == "toolset2":
        msgs = None if msgs is None else _messages(msgs)
        full.setdefault("env_hash", ts.get("env_hash"))
        full.setdefault("group", "%s/%s/%d" % (rec.get("env") or "", rec.get("task") or "",
                                                (rec.get("seed") or 0) - (rec.get("index") or 0)))
        parts = _base_components(rec)
        parts.update(rec.get("reward_components") or {})
        full["reward_components"] = dict(sorted(parts.items()))
    if ts.get("system") is not None:
        msgs = [{"role": "system", "content": ts["system"]}] + (msgs or [])
    full["messages"] = msgs
    out = {k: full.pop(k) for k in WHOLE_KEYS if k in full}
    out.update(full)  # keys this reader does not know, as they came
    return out


_MESSAGE_KEYS = ["role", "content", "tool_calls", "tool_call_id", "name", "reasoning_content"]


def _messages(msgs):
    out, calls, answered, k = [], [], 0, 0
    for m in msgs:
        m = dict(m or {})  # null: Go's zero message
        if m.get("content") is None:
            m["content"] = ""
        if m.get("tool_calls"):
            m["tool_calls"] = [_call(c or {}, k, i) for i, c in enumerate(m["tool_calls"])]
        if m.get("role") == "assistant":
            calls, answered = m.get("tool_calls") or [], 0
            k += 1
        elif m.get("role") == "tool":
            if "tool_call_id" not in m and answered < len(calls):
                m["tool_call_id"] = calls[answered]["id"]
            answered += 1
        if m.get("tool_call_id") == "":
            del m["tool_call_id"]  # the whole line omits an empty id
        out.append({key: m.pop(key) for key in _MESSAGE_KEYS if key in m} | m)
    return out


def _call(c, k, i):
    """A compact call in its full form: the id and type it left out, and
    its function as Go writes it (both fields, "" when absent)."""
    fn = c.get("function") or {}
    return {"id": c["id"] if c.get("id") is not None else "call_%d_%d" % (k, i),
            "type": c["type"] if c.get("type") is not None else "function",
            "function": {"name": fn.get("name") or "", "arguments": fn.get("arguments") or ""}}


def _base_components(rec):
    """The reward components every rollout carries, as the line gives them
    (rl.derivedComponents)."""
    checks = [c or {} for c in rec.get("checks") or []]
    passed = sum(1 for c in checks if c.get("passed"))
    scored = [c for c in checks if not c.get("guard")]
    if not checks:
        fraction = 0.0
    elif any(c.get("guard") and not c.get("passed") for c in checks):
        fraction = 0.0
    elif not scored:
        fraction = 1.0
    else:
        fraction = sum(1 for c in scored if c.get("passed")) / len(scored)
    if fraction == int(fraction):
        fraction = int(fraction)  # as Go writes a whole number
    return {"checks_passed": passed, "checks_total": len(checks), "checks_fraction": fraction,
            "all_passed": 1 if checks and passed == len(checks) else 0,
            "format_errors": rec.get("format_errors") or 0, "env_errors": 1 if rec.get("env_error") else 0,
            "turns": rec.get("turns") or 0}
