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

import gzip
import json
import re

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
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        if isinstance(e, FileNotFoundError) or isinstance(e, PermissionError):
            raise
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
        try:
            rec = json.loads(text)
        except (ValueError, RecursionError) as e:
            raise RolloutFileError("%s:%d: not JSON: %s" % (name, n, e)) from None
        if not isinstance(rec, dict):
            raise RolloutFileError("%s:%d: not a JSON object" % (name, n))
        kind = rec.get("record")
        if kind in TOOLSET_RECORDS:
            if len(body) > lim["max_toolset_bytes"]:
                raise RolloutFileError("%s:%d: a toolset of %d bytes, over the limit of %d" % (name, n, len(body), lim["max_toolset_bytes"]))
            if not rec.get("toolset"):
                raise RolloutFileError("%s:%d: a toolset without an id" % (name, n))
            toolsets[rec["toolset"]], sizes[rec["toolset"]] = rec, len(body)
            continue
        if isinstance(kind, str) and kind.startswith("toolset"):
            raise RolloutFileError("%s:%d: a %r record is of a newer format than this reader's (%r): update wasmenv_client"
                                   % (name, n, kind, TOOLSET_RECORDS[-1]))
        if kind is not None:
            raise RolloutFileError("%s:%d: unknown record %r" % (name, n, kind))
        expanded += len(body)
        ref = rec.pop("toolset", None)
        if ref is not None:
            ts = toolsets.get(ref)
            if ts is None:
                raise RolloutFileError("%s:%d: toolset %r is not defined before it" % (name, n, ref))
            expanded += sizes[ref]
        bound = lim["max_expanded_bytes"] + lim["max_expansion"] * read
        if expanded > bound:
            raise RolloutFileError("%s:%d: the lines so far expand to %d bytes with their toolsets, over the limit of %d"
                                   % (name, n, expanded, bound))
        if ref is not None:
            rec = restore(rec, ts)
        yield rec


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_BRACKETS = re.compile(r"[^\[\]{}]+")


def _depth_over(text, limit):
    """Whether text's JSON nests deeper than limit (strings skipped; as
    rl's depthOver)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    depth = 0
    for c in _BRACKETS.sub("", _STRINGS.sub("", text)):
        if c in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
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
        full.setdefault("group", "%s/%s/%d" % (rec.get("env"), rec.get("task"), rec.get("seed", 0) - rec.get("index", 0)))
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
        m = dict(m)
        m.setdefault("content", "")
        if m.get("tool_calls"):
            m["tool_calls"] = [{"id": c.get("id", "call_%d_%d" % (k, i)), "type": c.get("type", "function"),
                                "function": c["function"]} for i, c in enumerate(m["tool_calls"])]
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


def _base_components(rec):
    """The reward components every rollout carries, as the line gives them
    (rl.derivedComponents)."""
    checks = rec.get("checks") or []
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
            "format_errors": rec.get("format_errors", 0), "env_errors": 1 if rec.get("env_error") else 0,
            "turns": rec.get("turns", 0)}
