"""TRL: an `environment_factory` for GRPOTrainer, without importing TRL.

    from wasmenv_client.trl import environment_factory, rows, task_reward
    Env = environment_factory("http://127.0.0.1:8080", "mini")
    trainer = GRPOTrainer(..., train_dataset=Dataset.from_list(rows(Env, seeds=4)),
                          environment_factory=Env, reward_funcs=[task_reward])

environment_factory returns a class; TRL calls it once per concurrent
rollout and reuses the instances across batches. What TRL sees of it
(trl/trainer/grpo_trainer.py):

- its public methods other than reset are the tools: one per tool of the
  bundle, with the tool's name, keyword-only parameters typed from the
  bundle's JSON Schema and a Google-style docstring, so that transformers'
  get_json_schema builds the bundle's own schema from them (what it cannot
  express is listed in docs/INTEGRATIONS.md);
- reset(**row) deletes the instance's previous episode, creates one for the
  row's task and seed, and returns the opening (the task's instruction, or
  the simulated user's first message on a server started with --user),
  which TRL appends to the last prompt message. rows() writes prompts whose
  last message is an empty user message after the environment's rules as the
  system message, so the prompt TRL renders is the one `wasmenv rollout`
  sends;
- the class has no get_reward (TRL would call it without the completion):
  task_reward, given as a reward function, scores each episode with the
  completion's final answer, so tasks that check an answer pay. It returns
  None when the environment failed during the rollout (TRL turns None into
  NaN, which it leaves out, instead of punishing the policy for a crash);
- a tool call returns what the agent reads: the result, or "Error: ..." for
  a tool's error or a bad call.

The episode is deleted at the next reset, or when the instance is collected.
"""

import inspect
import json
import keyword
import typing
from typing import Any, Dict, List, Optional

from .client import Client
from .core import Rollout, bearer_token, final_answer, opening_messages, task_and_seed

# reset is TRL's; get_reward TRL would call as a second reward, without the
# completion, so no tool may take either name.
_RESERVED = frozenset(("reset", "get_reward"))


class _Unset:
    """The default of an optional parameter: left out of the call (a None
    default would make the type Optional, and the schema nullable)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET = _Unset()

_BASIC = {"string": str, "integer": int, "number": float, "boolean": bool}


def _annotation(schema: Dict[str, Any]) -> Any:
    """The type hint that get_json_schema turns back into this schema's type."""
    t = schema.get("type")
    if isinstance(t, list):
        rest = [x for x in t if x != "null"]
        if len(rest) == 1:
            inner = _annotation(dict(schema, type=rest[0]))
            return typing.Optional[inner] if "null" in t else inner
        return typing.Any
    if t in _BASIC:
        return _BASIC[t]
    if t == "array":
        items = schema.get("items")
        if isinstance(items, dict) and items:
            return typing.List[_annotation(items)]
        return typing.List
    if t == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            return typing.Dict[str, _annotation(extra)]
        return dict
    return typing.Any


def _one_line(text: str) -> str:
    return " ".join((text or "").split())


def _docstring(description: str, props: Dict[str, Dict[str, Any]]) -> str:
    """A Google-style docstring: the description, then one Args line per
    parameter, with its string choices as "(choices: [...])"."""
    lines = [description.strip() or "(no description)"]
    if props:
        lines += ["", "Args:"]
        for name, ps in props.items():
            desc = _one_line(ps.get("description", ""))
            enum = ps.get("enum")
            if isinstance(enum, list) and enum and all(isinstance(v, str) and v == v.strip() for v in enum):
                desc = (desc + " (choices: %s)" % json.dumps(enum, ensure_ascii=False)).strip()
            lines.append("    %s: %s" % (name, desc))
    return "\n".join(lines)


def _check_name(what: str, name: str) -> None:
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise ValueError("%s %r cannot be a Python name, so TRL cannot call it; rename it in the bundle" % (what, name))


def _tool_method(tool: Dict[str, Any]):
    name = tool["name"]
    _check_name("tool", name)
    if name in _RESERVED:
        raise ValueError("tool %r has the name of a method TRL calls itself" % name)
    schema = tool.get("inputSchema") or {}
    props = schema.get("properties") or {}
    required = set(schema.get("required") or [])
    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    ann: Dict[str, Any] = {}
    for p, ps in props.items():
        if not p.isidentifier() or keyword.iskeyword(p):
            raise ValueError("tool %r: parameter %r cannot be a Python name, so TRL cannot pass it" % (name, p))
        ann[p] = _annotation(ps if isinstance(ps, dict) else {})
        params.append(inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY,
                                        default=inspect.Parameter.empty if p in required else UNSET,
                                        annotation=ann[p]))

    def method(self, **kwargs):
        args = {k: v for k, v in kwargs.items() if v is not UNSET}
        return self._rollout.call(name, args).content

    method.__name__ = method.__qualname__ = name
    method.__signature__ = inspect.Signature(params)
    method.__annotations__ = ann
    method.__doc__ = _docstring(tool.get("description", ""), props)
    return method


def environment_class(client: Client, env: str, tools: List[Dict[str, Any]], *,
                      task_field: str = "task", seed_field: str = "seed", name: str = "") -> type:
    """The environment class for the given tools (MCP form); environment_factory
    fetches them from the server."""

    def __init__(self):
        self._rollout = Rollout(client, env)

    def reset(self, **row) -> Optional[str]:
        """Start a new episode for the row's task and seed; its opening."""
        self._rollout.task, self._rollout.seed = task_and_seed(row, task_field, seed_field)
        return self._rollout.start() or None

    def _score(self, answer: Optional[str] = None) -> Optional[float]:
        # Private: TRL takes every public method for a tool.
        return self._rollout.reward(answer)

    def __del__(self):
        r = getattr(self, "_rollout", None)
        if r is not None:
            try:
                r.close()
            except Exception:  # noqa: BLE001 - never raise from a finalizer
                pass

    ns: Dict[str, Any] = {"__init__": __init__, "reset": reset, "_score": _score, "__del__": __del__,
                          "_client": client, "_env": env, "_task_field": task_field, "_seed_field": seed_field,
                          "__doc__": "Episodes of the wasmenv environment %s; one per TRL rollout." % env}
    for t in tools:
        m = _tool_method(t)
        if m.__name__ in ns:
            raise ValueError("two tools named %r" % m.__name__)
        ns[m.__name__] = m
    cls_name = name or "Wasmenv_" + "".join(c if c.isalnum() else "_" for c in env)
    return type(cls_name, (), ns)


def environment_factory(url: str, env: Optional[str] = None, *, token: Optional[str] = None,
                        task_field: str = "task", seed_field: str = "seed", timeout: float = 60.0) -> type:
    """A class for GRPOTrainer(environment_factory=...): its instances are
    episodes of env (the only served one when None) on the server at url.
    The token is token, else $WASMENV_TOKEN (core.bearer_token)."""
    client = Client(url, token=bearer_token(token), timeout=timeout)
    if env is None:
        envs = client.envs()
        if len(envs) != 1:
            raise ValueError("the server serves %d environments; name one" % len(envs))
        env = envs[0]["name"]
    return environment_class(client, env, client.tools(env), task_field=task_field, seed_field=seed_field)


def task_reward(completions: List[Any], environments: Optional[List[Any]] = None, **kwargs) -> List[Optional[float]]:
    """A GRPOTrainer reward function: each rollout's task score, its
    episode scored with the completion's final answer (the last assistant
    message without a tool call); None where the environment failed. TRL
    passes the rollouts' environment instances as environments."""
    if environments is None:
        raise ValueError("task_reward needs TRL's environments: train with environment_factory")
    if len(environments) != len(completions):
        raise ValueError("%d completions for %d environments" % (len(completions), len(environments)))
    return [e._score(final_answer(c)) for c, e in zip(completions, environments)]


def rows(env_class: type, seeds: int = 1, tasks: Optional[List[str]] = None) -> List[Dict[str, Any]]:
    """Dataset rows for an environment_factory class: one per task and seed,
    each with the task and seed reset() reads and a prompt of the
    environment's rules (the system message) and an empty user message that
    TRL fills with reset()'s opening, which makes the prompt `wasmenv rollout`
    sends."""
    client, env = env_class._client, env_class._env
    prompt = opening_messages(client.env_info(env).get("rules", ""), "")
    ids = tasks if tasks is not None else [t["id"] for t in client.tasks(env)]
    return [{"prompt": [dict(m) for m in prompt], env_class._task_field: t, env_class._seed_field: seed}
            for t in ids for seed in range(seeds)]
