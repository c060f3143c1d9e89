"""Read `wasmenv rollout` files in their full view (standard library only).

    from wasmenv_client.rollouts import read_rollouts

    for r in read_rollouts("rollouts.jsonl"):      # or .jsonl.gz
        r["messages"], r["tools"], r["advantage"]    # every line whole again

The compact JSONL (the default since toolset records) writes each toolset,
the tools and system prompt its rollouts share, once as a record line
`{"record": "toolset", "toolset": ID, "tools": [...], "system": "..."}`
before the first rollout line that names it with `"toolset": ID`; such a
line's `messages` start after the system message. read_rollouts puts the
tools and the system message back, so each rollout is exactly what the
whole-line format (`--inline-tools`, and files written before toolsets)
holds; both kinds of lines are read. docs/ROLLOUT.md is the schema.
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
        if kind == "toolset":
            if not rec.get("toolset"):
                raise RolloutFileError("%s:%d: a toolset without an id" % (name, n))
            toolsets[rec["toolset"]] = rec
            continue
        if kind is not None:
            raise RolloutFileError("%s:%d: unknown record %r" % (name, n, kind))
        ref = rec.pop("toolset", None)
        if ref is not None:
            ts = toolsets.get(ref)
            if ts is None:
                raise RolloutFileError("%s:%d: toolset %r is not defined before it" % (name, n, ref))
            rec = restore(rec, ts)
        yield rec


def restore(rec, ts):
    """A compact line with its toolset's tools and system message back,
    keys in the whole-line order."""
    msgs = rec.get("messages") or []
    if ts.get("system") is not None:
        msgs = [{"role": "system", "content": ts["system"]}] + msgs
    out = {}
    for k, v in rec.items():
        if k == "messages":
            out[k] = msgs
            out["tools"] = ts.get("tools") or []
        else:
            out[k] = v
    return out
