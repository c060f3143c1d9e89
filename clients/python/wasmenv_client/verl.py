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
trajectory sum to its score before the final answer: verl keeps them in the
rollout's extra_fields["tool_rewards"] for a reward function to read.

The final answer: verl hands a trajectory's last message (one without a tool
call) to an Interaction when the rollout names one
(multi_turn.interaction_config_path; `wasmenv export verl-tools
--interaction FILE` writes it). WasmenvInteraction scores the episode with
that message as the answer, returns the change of the score as its turn
score (extra_fields["turn_scores"]), ends the trajectory and deletes its
episode; on a server that plays a simulated user it hands the message to the
user instead and returns the user's reply, until the user stops.
compute_score sums the tool rewards and turn scores: the task's score with
the answer checked.

An environment failure gives the failed call (or the answer's scoring) the
reward NaN, the mark of "no reward"; compute_score then scores the
trajectory 0.0 with env_fault 1.0 in its extra info, never the partial score
reached before the failure (verl has no way to leave a sample out; a trainer
filters on env_fault). calc_reward (BaseTool's own contract) is the task's
score now, NaN when the environment failed.
"""

import asyncio
import math
import threading
import uuid
import weakref
from typing import Any, Dict, List, Optional, Tuple

from .aio import AsyncClient
from .core import AsyncRollout, bearer_token, final_answer, task_and_seed

CLASS_NAME = "wasmenv_client.verl.WasmenvTool"
INTERACTION_CLASS = "wasmenv_client.verl.WasmenvInteraction"
INTERACTION_NAME = "wasmenv"

# The reward of a step whose environment failed: not a score, so that no
# sum of rewards passes for one (compute_score turns it into env_fault).
NO_REWARD = float("nan")


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

    async def start(self) -> None:
        # Under the lock. The score is 0.0 before the first call: the
        # deltas sum to the final score.
        if not self.started:
            await self.rollout.start()
            self.started = True

    def advance(self, now: Optional[float]) -> float:
        """The change of the score to now; NO_REWARD when the environment failed."""
        if now is None:
            return NO_REWARD
        delta, self.score = now - self.score, now
        return delta


async def _bound(config: Dict[str, Any], shared: "_Shared") -> None:
    # ToolAgentLoop never says when a trajectory ends (unless the
    # interaction scores it): keep at most max_trajectories episodes, ending
    # the oldest (far more than the rollouts in flight at once; the server's
    # idle reaper is the backstop).
    limit = int(config.get("max_trajectories", 4096))
    while len(shared.trajectories) > limit:
        old = next(iter(shared.trajectories))
        await _end(config, old)


class _Shared:
    """The episodes of one (server, environment) in one event loop, shared by
    all its tools."""

    def __init__(self, url: str, env: str, token: Optional[str], max_connections: int):
        self.client = AsyncClient(url, token=token, max_connections=max_connections)
        self.env = env
        self.trajectories: Dict[str, _Trajectory] = {}

    def trajectory(self, key: str, task: Optional[str], seed: int) -> Tuple[_Trajectory, bool]:
        """The trajectory under key, made (not started) when there is none;
        and whether it was made now."""
        traj = self.trajectories.get(key)
        if traj is not None:
            return traj, False
        traj = self.trajectories[key] = _Trajectory(AsyncRollout(self.client, self.env, task, seed))
        return traj, True


# By event loop (an AsyncClient serves one), weakly: a closed loop's
# episodes and connections go with it.
_shared: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Dict[Tuple[Any, ...], _Shared]]" = \
    weakref.WeakKeyDictionary()
_shared_mu = threading.Lock()


def _get_shared(config: Dict[str, Any]) -> _Shared:
    url, env = config.get("url"), config.get("env")
    if not url or not env:
        raise ValueError("the wasmenv tool's config needs url and env (see `wasmenv export verl-tools`)")
    token = bearer_token(config.get("token"), config.get("token_env"))
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
        traj, made = shared.trajectory(key, *self._task(ck, agent_data))
        if made:
            await _bound(self.config, shared)
        async with traj.lock:
            await traj.start()
            res = await traj.rollout.call(self.name, parameters or {})
            metrics: Dict[str, Any] = {"outcome": res.outcome}
            delta = 0.0
            if traj.rollout.env_fault:
                metrics["env_fault"] = traj.rollout.env_fault
                delta = NO_REWARD
            elif self.step_reward:
                delta = traj.advance(await traj.rollout.reward())
        return _response(res.content), delta, metrics

    async def calc_reward(self, instance_id: str, **kwargs) -> float:
        shared = _get_shared(self.config)
        key, _ = self._instances.get(instance_id, (instance_id, {}))
        traj = shared.trajectories.get(key)
        if traj is None or not traj.started:
            return 0.0
        async with traj.lock:
            now = await traj.rollout.reward()
            return NO_REWARD if now is None else now

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


class WasmenvInteractionLogic:
    """What WasmenvInteraction does, apart from being a verl BaseInteraction:
    the end of a trajectory. ToolAgentLoop calls generate_response(request_id,
    messages, **interaction_kwargs) when the model answers without a tool
    call; request_id is the one the trajectory's tools saw, so the episode is
    theirs (or a new one for the row's interaction_kwargs task and seed, when
    the model answered without calling a tool)."""

    def __init__(self, config: Dict[str, Any]):
        self.config = dict(config or {})
        self.name = self.config.get("name", INTERACTION_NAME)

    async def start_interaction(self, instance_id: Optional[str] = None, **kwargs) -> str:
        return instance_id or str(uuid.uuid4())

    async def generate_response(self, instance_id: str, messages: List[Dict[str, Any]],
                                **kwargs) -> Tuple[bool, str, float, Dict[str, Any]]:
        shared = _get_shared(self.config)
        key = "req:" + str(instance_id)
        traj, made = shared.trajectory(key, *task_and_seed(kwargs))
        if made:
            await _bound(self.config, shared)
        answer = final_answer(messages[-1:]) if messages else None
        async with traj.lock:
            await traj.start()
            if traj.rollout.user and not traj.rollout.env_fault:
                reply, done = await traj.rollout.say(answer or "")
                if not done:
                    return False, reply, 0.0, {}
            turn = traj.advance(await traj.rollout.reward(answer))
            meta = {"env_fault": traj.rollout.env_fault} if traj.rollout.env_fault else {}
        await _end(self.config, key)
        return True, "", turn, meta

    async def calculate_score(self) -> float:
        return 0.0  # the score is the turn score generate_response returns

    async def finalize_interaction(self, *args: Any, **kwargs: Any) -> None:
        pass  # generate_response ended the episode


def compute_score(data_source: Any = None, solution_str: str = "", ground_truth: Any = None,
                  extra_info: Optional[Dict[str, Any]] = None, **kwargs) -> Dict[str, float]:
    """A verl custom_reward_function: the trajectory's task score, the sum of
    its tool rewards and of the interaction's turn score (the final answer's
    part). verl's reward loop merges the agent loop's extra_fields
    (tool_rewards and turn_scores) into extra_info
    (verl/experimental/reward_loop/reward_manager/naive.py). A trajectory
    whose environment failed scores 0.0 with env_fault 1.0, never the
    partial score it had reached."""
    info = extra_info or {}
    parts = [float(r) for key in ("tool_rewards", "turn_scores") for r in (info.get(key) or []) if r is not None]
    if any(math.isnan(r) for r in parts):
        return {"score": 0.0, "env_fault": 1.0}
    return {"score": float(sum(parts)), "env_fault": 0.0}


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
    # PEP 562: verl's registries do getattr(module, "WasmenvTool") and
    # getattr(module, "WasmenvInteraction"); only then is verl imported and
    # the subclass made.
    if name == "WasmenvInteraction":
        return _interaction_class()
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


def _interaction_class() -> type:
    try:
        from verl.interactions.base import BaseInteraction
    except ImportError as e:
        raise ImportError("wasmenv_client.verl.WasmenvInteraction subclasses verl's BaseInteraction: "
                          "install verl") from e

    class WasmenvInteraction(WasmenvInteractionLogic, BaseInteraction):
        def __init__(self, config):
            BaseInteraction.__init__(self, config)
            WasmenvInteractionLogic.__init__(self, config)

    WasmenvInteraction.__module__ = __name__
    globals()["WasmenvInteraction"] = WasmenvInteraction
    return WasmenvInteraction
