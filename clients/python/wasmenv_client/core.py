"""The framework-independent core the trainer adapters share: one rollout is
one episode of a served environment, with its tools (and their schemas), the
calls made on it, and its score.

    r = Rollout(client, env="mini", task="put-d", seed=0)
    prompt = r.start()                 # the task's instruction
    r.call("put", {"key": "d", ...})   # ToolResult; the agent sees .content
    r.reward()                         # the task's reward, or None when the
    r.close()                          # environment failed during the rollout

reward() is None, not 0, when the environment (not the agent) failed: a
timeout, a trap, the episode lost (and when the episode has no task). A trainer should drop such a rollout from
its batch rather than teach the policy that its actions were wrong.
AsyncRollout is the same over AsyncClient.
"""

from typing import Any, Dict, List, Optional

from .aio import AsyncClient, AsyncEpisode
from .client import Client, Episode, ToolResult
from .errors import EnvironmentFault


def task_and_seed(row: Dict[str, Any], task_field: str = "task", seed_field: str = "seed"):
    """The task id and seed a dataset row names ((None, 0) when it names none)."""
    task = row.get(task_field)
    seed = row.get(seed_field, 0)
    try:
        seed = int(seed or 0)
    except (TypeError, ValueError):
        raise ValueError("the row's %r must be an integer, not %r" % (seed_field, seed)) from None
    if task is not None and not isinstance(task, str):
        raise ValueError("the row's %r must be a task id (a string), not %r" % (task_field, task))
    return task or None, seed


class _Base:
    def __init__(self, env: Optional[str], task: Optional[str], seed: int):
        self.env = env
        self.task = task
        self.seed = seed
        self.instruction = ""
        self.calls = 0
        self.env_fault = ""  # why the environment failed, "" while it has not

    def _record(self, res: ToolResult) -> ToolResult:
        self.calls += 1
        if res.env_fault and not self.env_fault:
            self.env_fault = "%s: %s" % (res.outcome, res.content[:200])
        return res

    def _fault(self, err: EnvironmentFault) -> ToolResult:
        # The environment failed during a call: the agent sees an error, the
        # rollout is marked so its reward is None.
        if not self.env_fault:
            self.env_fault = "%s: %s" % (err.code, err.message[:200])
        return ToolResult("Error: the environment failed: " + err.message, True, err.code)


class Rollout(_Base):
    """One episode through the synchronous Client."""

    def __init__(self, client: Client, env: Optional[str] = None, task: Optional[str] = None, seed: int = 0):
        super().__init__(env, task, seed)
        self.client = client
        self.episode: Optional[Episode] = None

    def start(self) -> str:
        """Create the episode; returns the task's instruction ("" without a task)."""
        self.close()
        self.env_fault, self.calls = "", 0
        self.episode = self.client.create(env=self.env, task=self.task, seed=self.seed)[0]
        self.env = self.episode.env
        self.instruction = self.episode.instruction
        return self.instruction

    def tools(self) -> List[Dict[str, Any]]:
        """The environment's tools in MCP form (name, description, inputSchema)."""
        if self.env is None:
            envs = self.client.envs()
            if len(envs) != 1:
                raise ValueError("the server serves %d environments; name one" % len(envs))
            self.env = envs[0]["name"]
        return self.client.tools(self.env)

    def call(self, name: str, arguments: Any = None) -> ToolResult:
        if self.episode is None:
            raise RuntimeError("start the rollout before calling tools")
        try:
            return self._record(self.episode.call(name, arguments))
        except EnvironmentFault as e:
            return self._fault(e)

    def reward(self, answer: Optional[str] = None) -> Optional[float]:
        """The task's reward for the state reached (and the final answer,
        when the task checks one); None when the environment failed."""
        if self.episode is None or self.env_fault or not self.episode.task:
            return None  # nothing to score: no episode, a failed one, or no task
        try:
            return float(self.episode.score(answer)["reward"])
        except EnvironmentFault as e:
            self._fault(e)
            return None

    def close(self) -> None:
        """Delete the episode (nothing happens when there is none)."""
        ep, self.episode = self.episode, None
        if ep is not None:
            try:
                ep.delete()
            except EnvironmentFault:
                pass  # gone already, or the server is: nothing left to free


class AsyncRollout(_Base):
    """One episode through the AsyncClient."""

    def __init__(self, client: AsyncClient, env: Optional[str] = None, task: Optional[str] = None,
                 seed: int = 0):
        super().__init__(env, task, seed)
        self.client = client
        self.episode: Optional[AsyncEpisode] = None

    async def start(self) -> str:
        await self.close()
        self.env_fault, self.calls = "", 0
        self.episode = (await self.client.create(env=self.env, task=self.task, seed=self.seed))[0]
        self.env = self.episode.env
        self.instruction = self.episode.instruction
        return self.instruction

    async def tools(self) -> List[Dict[str, Any]]:
        if self.env is None:
            envs = await self.client.envs()
            if len(envs) != 1:
                raise ValueError("the server serves %d environments; name one" % len(envs))
            self.env = envs[0]["name"]
        return await self.client.tools(self.env)

    async def call(self, name: str, arguments: Any = None) -> ToolResult:
        if self.episode is None:
            raise RuntimeError("start the rollout before calling tools")
        try:
            return self._record(await self.episode.call(name, arguments))
        except EnvironmentFault as e:
            return self._fault(e)

    async def reward(self, answer: Optional[str] = None) -> Optional[float]:
        if self.episode is None or self.env_fault or not self.episode.task:
            return None
        try:
            return float((await self.episode.score(answer))["reward"])
        except EnvironmentFault as e:
            self._fault(e)
            return None

    async def close(self) -> None:
        ep, self.episode = self.episode, None
        if ep is not None:
            try:
                await ep.delete()
            except EnvironmentFault:
                pass
