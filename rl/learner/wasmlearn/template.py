"""The chat template: OpenAI chat messages + tools ⇄ token ids.

    <bos><|system|>RULES<tools>name(arg, opt?) …</tools><|end|>    (tools_style compact;
                                                                 names: one name a line;
                                                                 json: the function objects)
    <|user|>TEXT<|end|>
    <|assistant|>TEXT<tool_call>{"name": N, "arguments": {…}}</tool_call><|end|>
    <|tool|>RESULT<|end|>
    <|assistant|>…

Tool calls use the Hermes/Qwen shape (`<tool_call>` JSON `</tool_call>`); the
markers are special tokens. render() also returns the loss mask: 1 on the
tokens the policy itself produced (assistant text, its tool calls and the
closing <|end|>), 0 on everything it was given (system, tools, user turns,
tool outputs, role markers). Long system prompts and tool outputs may be cut
to a token budget (a knob for small CPU models; None keeps them whole).
"""

import json
import re

CANON = dict(separators=(", ", ": "), ensure_ascii=False, sort_keys=False)


class Template:
    def __init__(self, tok, max_system_tokens=None, max_tool_tokens=None, tools_style="compact"):
        self.tok = tok
        self.max_system_tokens = max_system_tokens
        self.max_tool_tokens = max_tool_tokens
        if tools_style not in ("compact", "names", "json"):
            raise ValueError("tools_style must be compact, names or json")
        self.tools_style = tools_style
        s = tok.sid
        self.BOS, self.END = s("<bos>"), s("<|end|>")
        self.SYS, self.USR, self.AST, self.TOOL = s("<|system|>"), s("<|user|>"), s("<|assistant|>"), s("<|tool|>")
        self.TOOLS_OPEN, self.TOOLS_CLOSE = s("<tools>"), s("</tools>")
        self.CALL_OPEN, self.CALL_CLOSE = s("<tool_call>"), s("</tool_call>")
        self.stop_ids = (self.END, tok.eos_id)

    def config(self):
        return {"max_system_tokens": self.max_system_tokens,
                "max_tool_tokens": self.max_tool_tokens, "tools_style": self.tools_style}

    # ----- rendering -----

    def tools_text(self, tools):
        lines = []
        for t in tools or []:
            fn = t.get("function", t) if isinstance(t, dict) else {}
            name = fn.get("name", "")
            if self.tools_style == "json":
                lines.append(json.dumps(fn, **CANON))
                continue
            if self.tools_style == "names":
                lines.append(name)
                continue
            params = fn.get("parameters") or {}
            req = set(params.get("required") or [])
            args = [k if k in req else k + "?" for k in (params.get("properties") or {})]
            lines.append("%s(%s)" % (name, ", ".join(args)))
        return "\n".join(lines)

    def _cut(self, ids, limit):
        return ids if limit is None or len(ids) <= limit else ids[:limit]

    def call_text(self, call):
        fn = call.get("function", call)
        args = fn.get("arguments", {})
        if isinstance(args, str):
            try:
                args = json.loads(args) if args.strip() else {}
            except ValueError:
                pass  # keep the raw string: the model wrote invalid JSON
        return json.dumps({"name": fn.get("name", ""), "arguments": args}, **CANON)

    def render(self, messages, tools=None, add_generation_prompt=False):
        """Returns (ids, mask). mask[i] == 1 where token i is the policy's own.
        Raises ValueError on a message or tool of the wrong shape."""
        check(messages, tools)
        ids, mask = [self.BOS], [0]

        def add(xs, m):
            ids.extend(xs)
            mask.extend([m] * len(xs))

        system_done = False
        for msg in messages:
            role = msg.get("role")
            content = content_text(msg.get("content"))
            if role in ("system", "developer") and not system_done:
                add([self.SYS], 0)
                add(self._cut(self.tok.encode(content), self.max_system_tokens), 0)
                if tools:
                    add([self.TOOLS_OPEN], 0)
                    add(self.tok.encode(self.tools_text(tools)), 0)
                    add([self.TOOLS_CLOSE], 0)
                add([self.END], 0)
                system_done = True
                continue
            if not system_done and tools:
                add([self.SYS, self.TOOLS_OPEN], 0)
                add(self.tok.encode(self.tools_text(tools)), 0)
                add([self.TOOLS_CLOSE, self.END], 0)
                system_done = True
            if role in ("system", "developer", "user"):
                add([self.USR], 0)
                add(self.tok.encode(content), 0)
                add([self.END], 0)
            elif role == "tool":
                add([self.TOOL], 0)
                add(self._cut(self.tok.encode(content), self.max_tool_tokens), 0)
                add([self.END], 0)
            elif role == "assistant":
                add([self.AST], 0)
                add(self.assistant_ids(content, msg.get("tool_calls")), 1)
                add([self.END], 1)
            else:
                raise ValueError("unknown message role %r" % role)
        if not system_done and tools:
            add([self.SYS, self.TOOLS_OPEN], 0)
            add(self.tok.encode(self.tools_text(tools)), 0)
            add([self.TOOLS_CLOSE, self.END], 0)
        if add_generation_prompt:
            add([self.AST], 0)
        return ids, mask

    def assistant_ids(self, content, tool_calls):
        out = self.tok.encode(content or "")
        for c in tool_calls or []:
            out.append(self.CALL_OPEN)
            out.extend(self.tok.encode(self.call_text(c)))
            out.append(self.CALL_CLOSE)
        return out

    # ----- parsing what the model generated -----

    def parse(self, ids):
        """Generated ids (without the stop token) → (content, tool_calls).
        A block that is not a JSON object with a string "name" stays in the
        content as text, so the engine can record a format error."""
        text = self.tok.decode([i for i in ids if i not in self.stop_ids])
        calls, kept = [], []
        pos = 0
        for m in CALL_RE.finditer(text):
            kept.append(text[pos:m.start()])
            pos = m.end()
            call = parse_call(m.group(1))
            if call is None:
                kept.append(m.group(0))
            else:
                calls.append(call)
        kept.append(text[pos:])
        content = "".join(kept).strip()
        out = []
        for n, (name, args) in enumerate(calls):
            out.append({"id": "call_%d" % n, "type": "function",
                        "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)
                                     if not isinstance(args, str) else args}})
        return content, out


def check(messages, tools):
    """The shapes render() relies on, as ValueError (a client's mistake)."""
    if not isinstance(messages, list):
        raise ValueError("messages must be a list")
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise ValueError("messages[%d] must be an object" % i)
        c = m.get("content")
        if isinstance(c, list):
            for p in c:
                if not isinstance(p, dict) or not isinstance(p.get("text", ""), str):
                    raise ValueError("messages[%d].content: parts must be objects with a string text" % i)
        tc = m.get("tool_calls")
        if tc is None:
            continue
        if not isinstance(tc, list):
            raise ValueError("messages[%d].tool_calls must be a list" % i)
        for k, call in enumerate(tc):
            fn = call.get("function", call) if isinstance(call, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name", ""), str):
                raise ValueError("messages[%d].tool_calls[%d].function must be an object with a string name" % (i, k))
            if not isinstance(fn.get("arguments", {}), (str, dict)):
                raise ValueError("messages[%d].tool_calls[%d].function.arguments must be a string or an object" % (i, k))
    if tools is None:
        return
    if not isinstance(tools, list):
        raise ValueError("tools must be a list")
    for i, t in enumerate(tools):
        fn = t.get("function", t) if isinstance(t, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name", ""), str):
            raise ValueError("tools[%d].function must be an object with a string name" % i)
        params = fn.get("parameters")
        if params is None:
            continue
        if not isinstance(params, dict):
            raise ValueError("tools[%d].function.parameters must be an object" % i)
        props, req = params.get("properties"), params.get("required")
        if props is not None and not isinstance(props, dict):
            raise ValueError("tools[%d].function.parameters.properties must be an object" % i)
        if req is not None and not (isinstance(req, list) and all(isinstance(r, str) for r in req)):
            raise ValueError("tools[%d].function.parameters.required must be a list of strings" % i)


CALL_RE = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)


def parse_call(s):
    try:
        obj = json.loads(s.strip())
    except ValueError:
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("name"), str) or not obj["name"]:
        return None
    args = obj.get("arguments", {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return None
    if not isinstance(args, dict):
        return None
    return obj["name"], args


def content_text(c):
    """OpenAI content is a string or a list of parts; None for tool-call turns."""
    if c is None:
        return ""
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return str(c)
