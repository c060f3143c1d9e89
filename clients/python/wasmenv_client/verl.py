"""verl: a BaseTool for every tool of a served bundle, without importing verl
until verl asks for the class.

The tools YAML (write it with `wasmenv export verl-tools BUNDLE --url URL`)
names `wasmenv_client.verl.WasmenvTool` once per bundle tool, with config
{type: native, url, env[, token_env: the variable holding the bearer token]}
and the tool's schema. verl's tool
registry imports this module and reads WasmenvTool, which subclasses
verl.tools.base_tool.BaseTool at that moment.

One episode per trajectory, shared by every tool of the trajectory:

- verl's ToolAgentLoop (verl/experimental/agent_loop/tool_agent_loop.py)
  calls create, execute and release around *each* tool call and passes
  agent_data to execute. The episode is keyed by agent_data.request_id, so
  it lives across the calls of the trajectory; its task and seed come from
  the row's tools_kwargs (create_kwargs {"task", "seed"} under any tool's
  name). Release does not end it; release_trajectory(request_id) does, and
  the server's idle reaper (--idle-timeout) frees what nobody releases.
- A caller that follows BaseTool's documented per-trajectory contract
  (create once, execute many, calc_reward, release) without agent_data gets
  an episode keyed by the instance id, deleted at release.

execute returns as tool reward the change of the task's score that the call
made (config step_reward, on by default), so the tool rewards of a
trajectory sum to its final score: verl keeps them in the rollout's
extra_fields["tool_rewards"] for a reward function to read. calc_reward is
the task's score now (0.0 when the environment failed; metrics say so).
"""

import asyncio
import os
import threading
import uuid
import weakref
from typing import Any, Dict, Optional, Tuple

from .aio import AsyncClient
from .core import AsyncRollout, task_and_seed

CLASS_NAME = "wasmenv_client.verl.WasmenvTool"


class _Text:
    """ToolResponse's stand-in where verl is not installed (tests)."""

    def __init__(self, text: Optional[str] = None):
        self.text = text


def _response(text: Optional[str] = None):
    try:
        from verl.tools.schemas import ToolResponse
    except ImportError:
        return _Text(text)
    return ToolResponse(text=text)


class _Trajectory:
    def __init__(self, rollout: AsyncRollout):
        self.rollout = rollout
        self.lock = asyncio.Lock()
        self.score = 0.0
        self.started = False


class _Shared:
    """The episodes of one (server, environment) in one event loop, shared by
    all its tools."""

    def __init__(self, url: str, env: str, token: Optional[str], max_connections: int):
        self.client = AsyncClient(url, token=token, max_connections=max_connections)
        self.env = env
        self.trajectories: Dict[str, _Trajectory] = {}


# By event loop (an AsyncClient serves one), weakly: a closed loop's
# episodes and connections go with it.
_shared: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Dict[Tuple[Any, ...], _Shared]]" = \
    weakref.WeakKeyDictionary()
_shared_mu = threading.Lock()


def _get_shared(config: Dict[str, Any]) -> _Shared:
    url, env = config.get("url"), config.get("env")
    if not url or not env:
        raise ValueError("the wasmenv tool's config needs url and env (see `wasmenv export verl-tools`)")
    token = config.get("token") or (os.environ.get(config["token_env"]) if config.get("token_env") else None)
    loop = asyncio.get_running_loop()
    key = (url, env, token)
    with _shared_mu:
        per_loop = _shared.setdefault(loop, {})
        s = per_loop.get(key)
        if s is None:
            s = per_loop[key] = _Shared(url, env, token, int(config.get("max_connections", 32)))
        return s


def _create_kwargs(kwargs: Dict[str, Any]) -> Dict[str, Any]:
    ck = kwargs.get("create_kwargs")
    return dict(ck) if isinstance(ck, dict) else {}


class WasmenvToolLogic:
    """What WasmenvTool does, apart from being a verl BaseTool."""

    def __init__(self, config: Dict[str, Any], tool_schema: Any):
        self.config = dict(config or {})
        self.tool_schema = tool_schema
        self.name = tool_schema.function.name
        self.step_reward = bool(self.config.get("step_reward", True))
        self._instances: Dict[str, Tuple[str, Dict[str, Any]]] = {}  # instance id -> (trajectory key, create kwargs)

    def get_openai_tool_schema(self):
        return self.tool_schema

    async def create(self, instance_id: Optional[str] = None, **kwargs) -> Tuple[str, Any]:
        iid = instance_id or str(uuid.uuid4())
        self._instances[iid] = (iid, _create_kwargs(kwargs))
        return iid, _response()

    def _task(self, ck: Dict[str, Any], agent_data: Any) -> Tuple[Optional[str], int]:
        if "task" not in ck and agent_data is not None:
            for kw in (getattr(agent_data, "tools_kwargs", None) or {}).values():
                c = _create_kwargs(kw if isinstance(kw, dict) else {})
                if "task" in c:
                    ck = c
                    break
        return task_and_seed(ck)

    async def execute(self, instance_id: str, parameters: Dict[str, Any], **kwargs) -> Tuple[Any, float, Dict]:
        shared = _get_shared(self.config)
        key, ck = self._instances.get(instance_id, (instance_id, {}))
        agent_data = kwargs.get("agent_data")
        rid = getattr(agent_data, "request_id", None)
        if rid:
            key = "req:" + str(rid)
            self._instances[instance_id] = (key, ck)
        traj = shared.trajectories.get(key)
        if traj is None:
            task, seed = self._task(ck, agent_data)
            traj = shared.trajectories[key] = _Trajectory(AsyncRollout(shared.client, shared.env, task, seed))
            await self._bound(shared)
        async with traj.lock:
            if not traj.started:
                await traj.rollout.start()
                traj.started = True  # score 0.0 before the first call: the deltas sum to the final score
            res = await traj.rollout.call(self.name, parameters or {})
            metrics: Dict[str, Any] = {"outcome": res.outcome}
            delta = 0.0
            if traj.rollout.env_fault:
                metrics["env_fault"] = traj.rollout.env_fault
            elif self.step_reward:
                now = await traj.rollout.reward()
                if now is not None:
                    delta, traj.score = now - traj.score, now
        return _response(res.content), delta, metrics

    async def _bound(self, shared: _Shared) -> None:
        # ToolAgentLoop never says when a trajectory ends: keep at most
        # max_trajectories episodes, ending the oldest (far more than the
        # rollouts in flight at once; the server's idle reaper is the backstop).
        limit = int(self.config.get("max_trajectories", 4096))
        while len(shared.trajectories) > limit:
            old = next(iter(shared.trajectories))
            await _end(self.config, old)

    async def calc_reward(self, instance_id: str, **kwargs) -> float:
        shared = _get_shared(self.config)
        key, _ = self._instances.get(instance_id, (instance_id, {}))
        traj = shared.trajectories.get(key)
        if traj is None or not traj.started:
            return 0.0
        async with traj.lock:
            return await traj.rollout.reward() or 0.0

    async def release(self, instance_id: str, **kwargs) -> None:
        key, _ = self._instances.pop(instance_id, (instance_id, {}))
        if key == instance_id:  # a per-instance episode ends with its instance
            await _end(self.config, key)


async def _end(config: Dict[str, Any], key: str) -> None:
    shared = _get_shared(config)
    traj = shared.trajectories.pop(key, None)
    if traj is not None:
        async with traj.lock:
            await traj.rollout.close()


async def release_trajectory(config: Dict[str, Any], request_id: str) -> Optional[float]:
    """Score and delete the episode of a ToolAgentLoop trajectory (by its
    agent_data.request_id); None when there was none or the environment failed."""
    shared = _get_shared(config)
    traj = shared.trajectories.get("req:" + str(request_id))
    score = None
    if traj is not None and traj.started:
        async with traj.lock:
            score = await traj.rollout.reward()
    await _end(config, "req:" + str(request_id))
    return score


async def aclose() -> None:
    """End the episodes and close the connections of this event loop's tools
    (a worker shutting down; tests)."""
    with _shared_mu:
        per_loop = _shared.pop(asyncio.get_running_loop(), {})
    for sh in per_loop.values():
        for traj in list(sh.trajectories.values()):
            await traj.rollout.close()
        sh.trajectories.clear()
        await sh.client.aclose()


def compute_score(data_source: Any = None, solution_str: str = "", ground_truth: Any = None,
                  extra_info: Optional[Dict[str, Any]] = None, **kwargs) -> float:
    """A verl custom_reward_function: the trajectory's final task score, the
    sum of its tool rewards. verl's reward loop merges the agent loop's
    extra_fields (tool_rewards among them) into extra_info
    (verl/experimental/reward_loop/reward_manager/naive.py)."""
    rewards = (extra_info or {}).get("tool_rewards")
    if rewards is None:
        return 0.0
    return float(sum(float(r) for r in rewards if r is not None))


def verl_schema(tool: Dict[str, Any]) -> Dict[str, Any]:
    """A bundle tool (MCP form) as verl's OpenAIFunctionToolSchema accepts it
    (verl/tools/schemas.py): every property a single "type" string, string
    enums only, "required" always present; nested items and properties are
    not part of verl's model (docs/INTEGRATIONS.md)."""
    schema = tool.get("inputSchema") or {}
    if not isinstance(schema, dict):
        raise ValueError("tool %r: inputSchema is not an object" % tool.get("name"))
    props = {}
    for name, ps in (schema.get("properties") or {}).items():
        ps = ps if isinstance(ps, dict) else {}
        t = ps.get("type")
        if isinstance(t, list):
            t = next((x for x in t if x != "null"), "string")
        p: Dict[str, Any] = {"type": t if isinstance(t, str) else "string"}
        if ps.get("description"):
            p["description"] = ps["description"]
        enum = ps.get("enum")
        if isinstance(enum, list) and enum and all(isinstance(v, str) for v in enum):
            p["enum"] = list(enum)
        props[name] = p
    return {"type": "function", "function": {
        "name": tool["name"], "description": tool.get("description", ""),
        "parameters": {"type": "object", "properties": props, "required": list(schema.get("required") or [])}}}


def __getattr__(name: str):
    # PEP 562: verl's registry does getattr(module, "WasmenvTool"); only then
    # is verl imported and the BaseTool subclass made.
    if name != "WasmenvTool":
        raise AttributeError(name)
    try:
        from verl.tools.base_tool import BaseTool
    except ImportError as e:
        raise ImportError("wasmenv_client.verl.WasmenvTool subclasses verl's BaseTool: install verl") from e

    class WasmenvTool(WasmenvToolLogic, BaseTool):
        def __init__(self, config, tool_schema):
            WasmenvToolLogic.__init__(self, config, tool_schema)
            BaseTool.__init__(self, config, tool_schema)

    WasmenvTool.__module__ = __name__
    globals()["WasmenvTool"] = WasmenvTool
    return WasmenvTool
