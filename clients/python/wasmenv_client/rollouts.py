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

__all__ = ["RolloutFileError", "read_rollouts", "iter_rollouts"]


class RolloutFileError(ValueError):
    """The file is not a rollout file: names the record at fault."""


def read_rollouts(path):
    """Yield each rollout of the file at path (gzip when it ends in .gz) as
    a dict in its full view."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        yield from iter_rollouts(f, name=str(path))


def iter_rollouts(lines, name="<lines>"):
    """Yield the rollouts of an iterable of JSONL lines in their full view."""
    toolsets = {}
    for n, line in enumerate(lines, 1):
        line = line.strip()
        if not line:
            continue
        try:
            rec = json.loads(line)
        except ValueError as e:
            raise RolloutFileError("%s:%d: not JSON: %s" % (name, n, e)) from None
        if not isinstance(rec, dict):
            raise RolloutFileError("%s:%d: not a JSON object" % (name, n))
        kind = rec.get("record")
        if kind in TOOLSET_RECORDS:
            if not rec.get("toolset"):
                raise RolloutFileError("%s:%d: a toolset without an id" % (name, n))
            toolsets[rec["toolset"]] = rec
            continue
        if isinstance(kind, str) and kind.startswith("toolset"):
            raise RolloutFileError("%s:%d: a %r record is of a newer format than this reader's (%r): update wasmenv_client"
                                   % (name, n, kind, TOOLSET_RECORDS[-1]))
        if kind is not None:
            raise RolloutFileError("%s:%d: unknown record %r" % (name, n, kind))
        ref = rec.pop("toolset", None)
        if ref is not None:
            ts = toolsets.get(ref)
            if ts is None:
                raise RolloutFileError("%s:%d: toolset %r is not defined before it" % (name, n, ref))
            rec = restore(rec, ts)
        yield rec


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
