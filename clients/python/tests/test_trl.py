"""The TRL adapter against a real `wasmenv serve`, checked with the facts of
TRL's own code, reimplemented here (TRL itself is not installed):

- huggingface/trl f2cd57710ae345ea6428ae95363267fcf38a3dc8,
  trl/trainer/grpo_trainer.py: the factory is called with no argument; the
  instance's tools are inspect.getmembers(instance, inspect.ismethod) minus
  reset, get_reward and names starting with "_"; instances are pooled and
  reset(**row) again per batch (a returned string is appended to the last
  prompt message); a tool is called as tool(**arguments); a get_reward
  method would be called with no argument, as a second reward; reward
  functions get the completions and the instances (environments=).
- huggingface/transformers 01a4cdd8487b57735ba17a7ed40ce897c8bf6d18,
  src/transformers/utils/chat_template_utils.py, get_json_schema: the schema
  TRL's chat template receives for each such method.
"""

import inspect
import json
import re
import typing
import unittest
from typing import Any, Dict, Union, get_args, get_origin, get_type_hints

from tests.server import Server
from wasmenv_client import Client
from wasmenv_client.trl import environment_class, environment_factory, task_reward

# -- transformers' get_json_schema, as its source has it ----------------------

_description_re = re.compile(r"^(.*?)[\n\s]*(Args:|Returns:|Raises:|\Z)", re.DOTALL)
_args_re = re.compile(r"\n\s*Args:\n\s*(.*?)[\n\s]*(Returns:|Raises:|\Z)", re.DOTALL)
_args_split_re = re.compile(r"(?:^|\n)\s*(\w+):\s*(.*?)\s*(?=\n\s*\w+:|\Z)", re.DOTALL)


def _hint(h):
    origin, args = get_origin(h), get_args(h)
    if origin is None:
        return {int: {"type": "integer"}, float: {"type": "number"}, str: {"type": "string"},
                bool: {"type": "boolean"}, Any: {}}.get(h, {"type": "object"})
    if origin is Union:
        subs = [_hint(t) for t in args if t is not type(None)]
        if len(subs) == 1:
            out = subs[0]
        elif all(isinstance(s["type"], str) for s in subs):
            out = {"type": sorted(s["type"] for s in subs)}
        else:
            out = {"anyOf": subs}
        if type(None) in args:
            out["nullable"] = True
        return out
    if origin is list:
        return {"type": "array", "items": _hint(args[0])} if args else {"type": "array"}
    if origin is dict:
        out = {"type": "object"}
        if len(args) == 2:
            out["additionalProperties"] = _hint(args[1])
        return out
    raise TypeError("unparseable hint %r" % h)


def get_json_schema(func):
    doc = inspect.getdoc(func)
    if not doc:
        raise ValueError("no docstring")
    doc = doc.strip()
    m = _description_re.search(doc)
    main = m.group(1).strip() if m else None
    a = _args_re.search(doc)
    params = {}
    if a:
        block = "\n".join(line for line in a.group(1).strip().split("\n") if line.strip())
        params = {k: re.sub(r"\s*\n+\s*", " ", v.strip()) for k, v in _args_split_re.findall(block)}
    sig = inspect.signature(func)
    required = []
    for name, p in sig.parameters.items():
        if p.annotation is inspect.Parameter.empty:
            raise ValueError("argument %s has no type hint" % name)
        if p.default is inspect.Parameter.empty:
            required.append(name)
    props = {k: _hint(t) for k, t in get_type_hints(func).items()}
    schema = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    ret = props.pop("return", None)
    for arg, s in props.items():
        if arg not in params:
            raise ValueError("no description for %s" % arg)
        desc = params[arg]
        choices = re.search(r"\(choices:\s*(.*?)\)\s*$", desc, flags=re.IGNORECASE)
        if choices:
            s["enum"] = [c.strip() for c in json.loads(choices.group(1))]
            desc = choices.string[: choices.start()].strip()
        s["description"] = desc
    out = {"name": func.__name__, "description": main, "parameters": schema}
    if ret is not None:
        out["return"] = ret
    return {"type": "function", "function": out}


def trl_tools(instance):
    """The tool methods TRL finds on an environment instance."""
    return [m for n, m in inspect.getmembers(instance, predicate=inspect.ismethod)
            if n not in ("reset", "get_reward") and not n.startswith("_")]


def bundle_schema_as_trl_sees(tool):
    """The bundle's tool in chat-completions form, less what a Python
    signature cannot say: the top-level "additionalProperties": false."""
    params = json.loads(json.dumps(tool["inputSchema"]))
    params.pop("additionalProperties", None)
    return {"type": "function", "function": {"name": tool["name"], "description": tool["description"],
                                             "parameters": params}}


class TRLTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.client = Client(cls.server.url)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        assert cls.server.stop() == 0

    def test_schemas_equal_the_bundles(self):
        factory = environment_factory(self.server.url, "mini")
        env = factory()
        bundle = {t["name"]: t for t in self.client.tools("mini")}
        got = {m.__name__: get_json_schema(m) for m in trl_tools(env)}
        self.assertEqual(sorted(got), sorted(bundle))
        for name, tool in bundle.items():
            self.assertEqual(got[name], bundle_schema_as_trl_sees(tool), name)

    def test_rollout_scores_ground_truth(self):
        factory = environment_factory(self.server.url, "mini")
        env = factory()
        tools = {m.__name__: m for m in trl_tools(env)}
        self.assertFalse(hasattr(env, "get_reward"), "TRL would score with it, without the answer")
        for row in ({"prompt": [], "task": "put-d", "seed": 0}, {"prompt": [], "task": "put-d", "seed": 1}):
            obs = env.reset(**row)
            self.assertIn("date", obs)
            self.assertLess(task_reward(["Done."], [env])[0], 1.0)
            self.assertEqual(tools["put"](key="d", value="date", n=4), "ok")
            self.assertEqual(task_reward(["Done."], [env]), [1.0])
        self.assertEqual(self.client.stats()["episodes"], 1, "reset must free the previous episode")
        # A read task pays only with its answer: the completion's last
        # assistant message, not a tool call and not the reasoning.
        env.reset(task="delete-a")
        self.assertEqual(tools["delete"](keys=["a"]), '{"deleted":1}')
        call = {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
            "name": "delete", "arguments": {"keys": ["a"]}}}]}
        said = [{"role": "assistant", "content": "<think>it was avocado</think>It held avocado."}]
        got = task_reward([[call, {"role": "tool", "content": "..."}] + said,
                           [call, {"role": "tool", "content": "avocado"}],
                           "<think>avocado</think>gone", "It held avocado."], [env] * 4)
        self.assertEqual([r == 1.0 for r in got], [True, False, False, True], got)
        # The agent's mistakes come back as text the model reads.
        self.assertTrue(tools["get"](key="nope").startswith("Error: "))
        self.assertTrue(tools["put"](key="x").startswith("Error: "))  # a required argument missing
        # An environment failure: no reward rather than a wrong one.
        self.assertTrue(tools["abuse"](mode="panic").startswith("Error: "))
        self.assertEqual(task_reward(["It held avocado."], [env]), [None])
        # A row without a task: a free episode, no instruction.
        self.assertIsNone(env.reset(prompt=[]))
        del env, tools
        import gc
        gc.collect()
        self.assertEqual(self.client.stats()["episodes"], 0, "a collected instance frees its episode")

    def test_schema_shapes(self):
        # Shapes beyond the mini bundle's: what TRL can express comes back
        # equal; what it cannot is named in docs/INTEGRATIONS.md.
        tools = [
            {"name": "t", "description": "Does t.\n\nOver two lines.", "inputSchema": {
                "type": "object", "properties": {
                    "a": {"type": "array", "items": {"type": "integer"}, "description": "Many\nlines."},
                    "b": {"type": ["string", "null"], "description": "Maybe."},
                    "c": {"type": "object", "additionalProperties": {"type": "number"}, "description": "Map."},
                    "d": {"type": "boolean", "description": "Flag."},
                    "e": {"type": "number", "description": "X."},
                    "f": {"type": "string", "enum": ["x", "y z"], "description": "Pick."},
                }, "required": ["f", "a"]}},
        ]
        cls = environment_class(self.client, "mini", tools)
        got = get_json_schema(cls().t)["function"]
        self.assertEqual(got["description"], "Does t.\n\nOver two lines.")
        p = got["parameters"]
        self.assertEqual(p["required"], ["a", "f"])  # keyword-only: any order is valid
        self.assertEqual(p["properties"]["a"], {"type": "array", "items": {"type": "integer"},
                                                "description": "Many lines."})
        self.assertEqual(p["properties"]["b"], {"type": "string", "nullable": True, "description": "Maybe."})
        self.assertEqual(p["properties"]["c"], {"type": "object", "additionalProperties": {"type": "number"},
                                                "description": "Map."})
        self.assertEqual(p["properties"]["f"], {"type": "string", "enum": ["x", "y z"], "description": "Pick."})

    def test_names_python_cannot_take(self):
        for bad in ({"name": "reset", "inputSchema": {}}, {"name": "my-tool", "inputSchema": {}},
                    {"name": "t", "inputSchema": {"properties": {"from": {"type": "string"}}}},
                    {"name": "_hidden", "inputSchema": {}}):
            with self.assertRaises(ValueError):
                environment_class(self.client, "mini", [bad])


if __name__ == "__main__":
    unittest.main()
