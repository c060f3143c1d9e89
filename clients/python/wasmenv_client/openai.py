"""Helpers for OpenAI-style chat-completions tool calling."""

import json
from typing import Any, Dict, Iterable, List


def openai_tools(tools: Iterable[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """MCP-form tools (name, description, inputSchema) as chat-completions
    tools=[{"type": "function", "function": {...}}]."""
    return [{"type": "function", "function": {
        "name": t["name"],
        "description": t.get("description", ""),
        "parameters": t.get("inputSchema") or {"type": "object", "properties": {}},
    }} for t in tools]


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, dict):
        return obj.get(key, default)
    return getattr(obj, key, default)


def execute_tool_calls(episode: Any, tool_calls: Iterable[Any]) -> List[Dict[str, Any]]:
    """Run an assistant message's tool_calls on an episode, in order, and
    return the {"role": "tool", "tool_call_id", "content"} messages to append
    to the conversation. tool_calls may be dicts (parsed JSON) or the objects
    of the openai package. Malformed arguments become tool errors the model
    sees, like any other tool error."""
    out = []
    for tc in tool_calls or []:
        fn = _get(tc, "function", {})
        name = _get(fn, "name", "")
        args = _get(fn, "arguments", "{}")
        if args is None or args == "":
            args = "{}"
        if not isinstance(args, str):
            args = json.dumps(args)
        r = episode.call(name, args)
        out.append({"role": "tool", "tool_call_id": _get(tc, "id", ""), "content": r.content})
    return out
