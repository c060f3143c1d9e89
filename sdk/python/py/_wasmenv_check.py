"""Build-time checks and schemas of Python tool code (run by `wasmenv build`
inside the same sandboxed interpreter the tools run in).

check(files) refuses what could escape the sandbox's rules or keep state from
one episode to the next; schemas(modules) turns each tool function into a
JSON Schema by the rules of transformers' get_json_schema, so that a trainer
using transformers sees the same schema.
"""

import ast
import inspect
import json
import re
import types
import typing

# Modules tool code may import (tools/python-wasm/pack_stdlib.py ships them).
# No network, files, processes, clock or random but wasmenv's.
ALLOWED_IMPORTS = frozenset([
    "base64", "bisect", "calendar", "collections", "copy", "dataclasses", "datetime",
    "decimal", "difflib", "enum", "fractions", "functools", "heapq", "itertools",
    "json", "math", "operator", "re", "statistics", "string", "textwrap", "typing",
    "unicodedata", "wasmenv", "tools", "__future__",
])

# Builtins that reach code, files, module state or attributes by name.
REFUSED_NAMES = frozenset([
    "eval", "exec", "compile", "open", "__import__", "globals", "locals", "vars",
    "setattr", "getattr", "delattr", "breakpoint", "input", "exit", "quit", "help",
    "memoryview", "__builtins__", "__loader__", "__spec__",
])


# Attributes and names that reach an object's attributes by a string (the
# sdk's internals included): refused like getattr.
REFUSED_ATTRS = frozenset(["attrgetter", "methodcaller", "get_field"])


class Problem(Exception):
    pass


def _immutable_constant(node):
    """Whether node is a literal whose value cannot be changed in place."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple):
        return all(_immutable_constant(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _immutable_constant(node.operand)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "frozenset":
        return len(node.args) <= 1 and not node.keywords and all(
            isinstance(a, (ast.Tuple, ast.Set)) and all(_immutable_constant(e) for e in a.elts) for a in node.args)
    return False


def check_source(path, text):
    """Returns a list of "path:line: message" problems of one tool file."""
    problems = []

    def refuse(node, msg):
        problems.append(f"{path}:{getattr(node, 'lineno', 1)}: {msg}")

    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        return [f"{path}:{e.lineno or 1}: syntax error: {e.msg}"]

    module_names = set()  # names bound at module level: imports, defs, constants
    data_names = set()  # wasmenv.data under the names this file gives it: writable
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "wasmenv":
            data_names |= {a.asname or a.name for a in stmt.names if a.name == "data"}
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            for a in stmt.names:
                module_names.add((a.asname or a.name).split(".")[0])
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            module_names.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for t in targets:
                if isinstance(t, ast.Name):
                    module_names.add(t.id)

    for i, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
            continue  # a docstring
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.AsyncFunctionDef):
            refuse(stmt, "async functions are not supported in tool code")
            continue
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if all(isinstance(t, ast.Name) for t in targets) and stmt.value is not None and _immutable_constant(stmt.value):
                continue
            refuse(stmt, "module-level state: only constants (numbers, strings, tuples, frozensets of them) may be "
                         "assigned at module level, because a tool module is shared by every episode; keep state in the database")
            continue
        refuse(stmt, f"module-level {type(stmt).__name__} statement: a tool file holds imports, functions, classes and constants only")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                _check_import(refuse, node, a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                refuse(node, "relative imports are not supported; import sibling tool files as tools.<name>")
            else:
                _check_import(refuse, node, node.module or "")
                for a in node.names:
                    if a.name.startswith("_") and a.name != "__future__":
                        refuse(node, f"import of private name {a.name!r}")
                    elif a.name in REFUSED_ATTRS:
                        refuse(node, f"{a.name} is not available to tool code")
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and isinstance(node, ast.Global):
            refuse(node, "global statement: tool code cannot keep state between calls; keep it in the database")
        elif isinstance(node, ast.Name) and node.id in REFUSED_NAMES:
            refuse(node, f"{node.id} is not available to tool code")
        elif isinstance(node, ast.Name) and node.id in REFUSED_ATTRS:
            refuse(node, f"{node.id} is not available to tool code")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__"):
            refuse(node, f"access to the dunder attribute {node.attr!r} is not allowed in tool code")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            # The sdk's state (the records it keeps across episodes, what it
            # checks when a call ends) hangs on private attributes of the
            # wasmenv module and of the objects data hands out.
            refuse(node, f"access to the private attribute {node.attr!r} is not allowed in tool code")
        elif isinstance(node, ast.Attribute) and node.attr in REFUSED_ATTRS:
            refuse(node, f"{node.attr} is not available to tool code")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for d in node.args.defaults + [d for d in node.args.kw_defaults if d is not None]:
                if not _immutable_constant(d):
                    refuse(d, "a default argument value must be a constant (a mutable default keeps state between calls and episodes)")
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                for sub in _leaves(t):
                    if isinstance(sub, (ast.Attribute, ast.Subscript)):
                        root = sub
                        while isinstance(root, (ast.Attribute, ast.Subscript)):
                            root = root.value
                        if _is_data(sub, data_names):
                            continue  # the episode's records: written back to its database
                        if isinstance(root, ast.Name) and root.id in module_names and not _is_local(tree, node, root.id):
                            refuse(node, f"writes into module-level {root.id!r}: tool code cannot keep state between calls")
        elif isinstance(node, ast.ClassDef):
            for stmt in node.body:
                if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None and not _immutable_constant(stmt.value):
                    refuse(stmt, "a class attribute must be a constant: classes are shared by every episode")
    return sorted(problems, key=lambda p: int(p.split(":")[1]))


def _leaves(target):
    """The targets an assignment writes (unpacking tuples and lists)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for e in target.elts:
            yield from _leaves(e)
    elif isinstance(target, ast.Starred):
        yield from _leaves(target.value)
    else:
        yield target


def _is_data(node, data_names):
    """Whether an attribute or item target lies inside wasmenv.data."""
    chain = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        chain.append(node)
        node = node.value
    if not isinstance(node, ast.Name):
        return False
    if node.id in data_names:
        return bool(chain) and isinstance(chain[-1], ast.Subscript)
    # wasmenv.data[...]...
    return (node.id == "wasmenv" and len(chain) >= 2 and isinstance(chain[-1], ast.Attribute)
            and chain[-1].attr == "data" and isinstance(chain[-2], ast.Subscript))


def _is_local(tree, stmt, name):
    """Whether name is assigned or a parameter in the function enclosing stmt."""
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(n is stmt for n in ast.walk(fn)):
            args = fn.args
            params = {a.arg for a in args.args + args.kwonlyargs + args.posonlyargs}
            if args.vararg:
                params.add(args.vararg.arg)
            if args.kwarg:
                params.add(args.kwarg.arg)
            if name in params:
                return True
            for n in ast.walk(fn):
                if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store):
                    return True
    return False


def _check_import(refuse, node, name):
    top = name.split(".")[0]
    if top not in ALLOWED_IMPORTS:
        refuse(node, f"import of {name!r} is not allowed: tool code may import {', '.join(sorted(ALLOWED_IMPORTS - {'__future__', 'tools'}))}")


# Schemas: the rules of transformers.utils.get_json_schema.

_description_re = re.compile(r"^(.*?)[\n\s]*(Args:|Returns:|Raises:|\Z)", re.DOTALL)
_args_re = re.compile(r"\n\s*Args:\n\s*(.*?)[\n\s]*(Returns:|Raises:|\Z)", re.DOTALL)
_args_split_re = re.compile(r"(?:^|\n)\s*(\w+):\s*(.*?)\s*(?=\n\s*\w+:|\Z)", re.DOTALL)
_returns_re = re.compile(r"\n\s*Returns:\n\s*(.*?)[\n\s]*(Raises:|\Z)", re.DOTALL)


def _parse_docstring(doc):
    d = _description_re.search(doc)
    a = _args_re.search(doc)
    r = _returns_re.search(doc)
    description = d.group(1).strip() if d else None
    args = {}
    if a:
        block = "\n".join(line for line in a.group(1).strip().split("\n") if line.strip())
        args = {m[0]: re.sub(r"\s*\n+\s*", " ", m[1].strip()) for m in _args_split_re.findall(block)}
    return description, args, (r.group(1).strip() if r else None)


_BASIC = {int: {"type": "integer"}, float: {"type": "number"}, str: {"type": "string"},
          bool: {"type": "boolean"}, type(None): {"type": "null"}, typing.Any: {}}


def _type_schema(hint):
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is None:
        return dict(_BASIC.get(hint, {"type": "object"}))
    if origin is typing.Union or origin is types.UnionType:
        subtypes = [_type_schema(t) for t in args if t is not type(None)]
        if len(subtypes) == 1:
            out = subtypes[0]
        elif all("type" in s and isinstance(s["type"], str) for s in subtypes):
            out = {"type": sorted(s["type"] for s in subtypes)}
        else:
            out = {"anyOf": subtypes}
        if type(None) in args:
            out["nullable"] = True
        return out
    if origin is typing.Literal and args:
        kinds = []
        for a in args:
            if type(a) not in (int, float, str, bool, type(None)):
                raise Problem("only plain Python literals can be listed in typing.Literal")
            k = _BASIC[type(a)].get("type")
            if k is not None and k not in kinds:
                kinds.append(k)
        return {"type": kinds.pop() if len(kinds) == 1 else list(kinds), "enum": list(args)}
    if origin is list:
        return {"type": "array", "items": _type_schema(args[0])} if args else {"type": "array"}
    if origin is tuple:
        if not args:
            return {"type": "array"}
        if len(args) == 1 or ... in args:
            raise Problem(f"the type hint {hint} is not supported; use list[...]")
        return {"type": "array", "prefixItems": [_type_schema(t) for t in args]}
    if origin is dict:
        out = {"type": "object"}
        if len(args) == 2:
            out["additionalProperties"] = _type_schema(args[1])
        return out
    raise Problem(f"cannot make a JSON Schema of the type hint {hint}")


def function_schema(fn):
    """{"name", "description", "parameters"} of a tool function, as get_json_schema gives it."""
    doc = inspect.getdoc(fn)
    if not doc:
        raise Problem(f"{fn.__name__} has no docstring (its first lines describe the tool to the agent)")
    description, arg_docs, _ = _parse_docstring(doc.strip())
    hints = typing.get_type_hints(fn)
    sig = inspect.signature(fn)
    required, props = [], {}
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise Problem(f"{fn.__name__}: *args and **kwargs are not supported in a tool's parameters")
        if p.annotation is inspect.Parameter.empty:
            raise Problem(f"argument {name} is missing a type hint in function {fn.__name__}")
        if p.default is inspect.Parameter.empty:
            required.append(name)
    for name, hint in hints.items():
        if name != "return":
            props[name] = _type_schema(hint)
    for name, schema in props.items():
        if name not in arg_docs:
            raise Problem(f"the docstring of {fn.__name__} has no description for the argument {name!r} (an Args: section)")
        desc = arg_docs[name]
        choices = re.search(r"\(choices:\s*(.*?)\)\s*$", desc, flags=re.IGNORECASE)
        if choices:
            schema["enum"] = [c.strip() if isinstance(c, str) else c for c in json.loads(choices.group(1))]
            desc = choices.string[:choices.start()].strip()
        schema["description"] = desc
    params = {"type": "object", "properties": props}
    if required:
        params["required"] = required
    return {"name": fn.__name__, "description": description, "parameters": params}
