"""Tool calls written in the text of a completion, Hermes / Qwen style:

    <tool_call>{"name": "get", "arguments": {"key": "a"}}</tool_call>

The same rule as the Go rollout engine (rl/toolcalls.go): every block,
closed or running to the end of the text; "arguments" an object or a JSON
string, or named "parameters"; a block that is not JSON or has no "name" is
a malformed call whose error the agent is shown.
"""

import json
import re
from dataclasses import dataclass
from typing import List

_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.DOTALL)
_NAME = re.compile(r'"name"\s*:\s*"([^"]*)"')


@dataclass
class TextToolCall:
    """One call found in a completion. arguments is a JSON string, as in
    chat-completions tool_calls; malformed says why the block could not be
    read ("" when it could)."""

    name: str
    arguments: str
    malformed: str = ""


class _Pairs(list):
    """A JSON object as its key-value pairs, in order (duplicates kept)."""


def _plain(v):
    # Objects were read as _Pairs: back to dicts, the last duplicate winning.
    if isinstance(v, _Pairs):
        return {k: _plain(x) for k, x in v}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _argument_string(raw) -> str:
    if raw is None:
        return "{}"
    if isinstance(raw, str):
        return raw
    return json.dumps(_plain(raw), ensure_ascii=False, separators=(",", ":"))


_ABSENT = object()


def _fields(pairs):
    # Go's encoding/json matches keys to fields case-insensitively, the last
    # one winning: the same here, so both parsers read the same call.
    out = {"name": _ABSENT, "arguments": _ABSENT, "parameters": _ABSENT}
    for k, v in pairs:
        if k.lower() in out:
            out[k.lower()] = v
    return out


def _parse_one(body: str) -> TextToolCall:
    err = ""
    f = None
    try:
        v = json.loads(body, object_pairs_hook=_Pairs)
        if not isinstance(v, _Pairs):
            raise ValueError("not an object")
        f = _fields(v)
        if f["name"] is not _ABSENT and f["name"] is not None and not isinstance(f["name"], str):
            raise ValueError("name is not a string")
    except ValueError as e:
        err = "the <tool_call> block is not valid JSON: %s" % e
    if not err and (f["name"] is _ABSENT or not f["name"]):
        err = 'the <tool_call> block has no "name"'
    if err:
        m = _NAME.search(body)
        return TextToolCall(m.group(1) if m else "", body, err)
    args = f["arguments"] if f["arguments"] is not _ABSENT else f["parameters"]
    return TextToolCall(f["name"], _argument_string(None if args is _ABSENT else args))


def parse_tool_calls(text: str) -> List[TextToolCall]:
    """The <tool_call> blocks of a completion, in order ([] when none)."""
    if "<tool_call>" not in (text or ""):
        return []
    return [_parse_one(m.group(1).strip()) for m in _BLOCK.finditer(text)]
