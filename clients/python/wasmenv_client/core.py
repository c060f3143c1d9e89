"""The framework-independent core the trainer adapters share: one rollout is
one episode of a served environment, with its tools (and their schemas), the
calls made on it, and its score.

    r = Rollout(client, env="mini", task="put-d", seed=0)
    r.start()                          # the opening: the task's instruction
    r.messages()                       # [system: the rules, user: the opening]
    r.call("put", {"key": "d", ...})   # ToolResult; the agent sees .content
    r.reward(final_answer(completion)) # the task's reward, or None when the
    r.close()                          # environment failed during the rollout

The prompt is the one `wasmenv rollout` sends (rl/rollout.go): the
environment's rules as the system message, then the opening as the user's
message. The final answer is scored the way `wasmenv rollout` scores it: the
agent's last message without a tool call is its answer, so a task that checks
an answer (a read, a refusal) can pay 1.0 only when the adapter passes it.

On a server that plays a simulated user (`wasmenv serve --user ...`) the
opening is the user's first message, never the user's goal; say(text) hands
the agent's words to the user and returns the reply, and the user's stop ends
the episode with its reward.

reward() is None, not 0, when the environment (not the agent) failed: a
timeout, a trap, the episode lost (and when the episode has no task). A
trainer should drop such a rollout from its batch rather than teach the
policy that its actions were wrong. AsyncRollout is the same over
AsyncClient; what does not wait on the network is written once, in _Base.
"""

import os
from typing import Any, Dict, List, Optional, Tuple

from .aio import AsyncClient, AsyncEpisode
from .client import Client, Episode, StepResult, ToolResult
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


TOKEN_ENV = "WASMENV_TOKEN"


def bearer_token(token: Optional[str] = None, token_env: Optional[str] = None) -> Optional[str]:
    """The server's bearer token, found the same way by every adapter (and
    by `wasmenv serve` itself): the token given, else the variable token_env
    names, else $WASMENV_TOKEN; None when none is set."""
    if token:
        return token
    if token_env:
        v = os.environ.get(token_env)
        if v:
            return v
    return os.environ.get(TOKEN_ENV) or None


def opening_messages(rules: str, opening: str) -> List[Dict[str, str]]:
    """The start of the conversation as `wasmenv rollout` sends it: the
    environment's rules as the system message (when it has any), then the
    opening as the user's message."""
    msgs = [{"role": "system", "content": rules}] if rules else []
    msgs.append({"role": "user", "content": opening})
    return msgs


def _text(content: Any) -> str:
    # A message's content: a string, or a list of parts ({"type": "text", "text": ...}).
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type", "text") == "text")
    return ""


def strip_reasoning(text: str) -> str:
    """The text after a reasoning model's </think>, trimmed."""
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    return text.strip()


def final_answer(completion: Any) -> Optional[str]:
    """The agent's final answer in a completion: a string is the answer
    itself; a list of messages (a conversational completion) answers with
    its last message when that is the assistant's and makes no tool call.
    None when the completion ends on a tool call or a tool's result (the
    agent never answered). A reasoning model's thoughts are not its answer."""
    if isinstance(completion, str):
        return strip_reasoning(completion)
    if isinstance(completion, dict):
        completion = [completion]
    if not isinstance(completion, list) or not completion:
        return None
    last = completion[-1]
    if not isinstance(last, dict) or last.get("role") != "assistant" or last.get("tool_calls"):
        return None
    return strip_reasoning(_text(last.get("content")))


class _Base:
    def __init__(self, env: Optional[str], task: Optional[str], seed: int):
        self.env = env
        self.task = task
        self.seed = seed
        self.instruction = ""
        self.rules = ""
        self.user = False  # the server plays a simulated user
        self.user_done = False  # the simulated user ended the conversation
        self.final_score: Optional[float] = None  # the reward the user's stop gave
        self.calls = 0
        self.env_fault = ""  # why the environment failed, "" while it has not

    def _started(self, ep: Any) -> str:
        self.env_fault, self.calls = "", 0
        self.user_done, self.final_score = False, None
        self.env, self.instruction, self.rules, self.user = ep.env, ep.instruction, ep.rules, ep.user
        return self.instruction

    def messages(self) -> List[Dict[str, str]]:
        """The prompt `wasmenv rollout` would send for this episode."""
        return opening_messages(self.rules, self.instruction)

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

    def _heard(self, res: StepResult) -> Tuple[str, bool]:
        self.calls += 1
        if res.terminated:
            self.user_done, self.final_score = True, float(res.reward)
        return res.observation, res.terminated

    def _scorable(self, episode: Any) -> bool:
        return episode is not None and not self.env_fault and bool(episode.task)

    @staticmethod
    def _tools_env(envs: List[Dict[str, Any]]) -> str:
        if len(envs) != 1:
            raise ValueError("the server serves %d environments; name one" % len(envs))
        return envs[0]["name"]


class Rollout(_Base):
    """One episode through the synchronous Client."""

    def __init__(self, client: Client, env: Optional[str] = None, task: Optional[str] = None, seed: int = 0):
        super().__init__(env, task, seed)
        self.client = client
        self.episode: Optional[Episode] = None

    def start(self) -> str:
        """Create the episode; returns its opening ("" without a task)."""
        self.close()
        self.episode = self.client.create(env=self.env, task=self.task, seed=self.seed)[0]
        return self._started(self.episode)

    def tools(self) -> List[Dict[str, Any]]:
        """The environment's tools in MCP form (name, description, inputSchema)."""
        if self.env is None:
            self.env = self._tools_env(self.client.envs())
        return self.client.tools(self.env)

    def call(self, name: str, arguments: Any = None) -> ToolResult:
        if self.episode is None:
            raise RuntimeError("start the rollout before calling tools")
        try:
            return self._record(self.episode.call(name, arguments))
        except EnvironmentFault as e:
            return self._fault(e)

    def say(self, content: str) -> Tuple[str, bool]:
        """Say content to the simulated user: (the user's reply, whether the
        user ended the conversation)."""
        if self.episode is None:
            raise RuntimeError("start the rollout before talking to the user")
        try:
            return self._heard(self.episode.say(content))
        except EnvironmentFault as e:
            self._fault(e)
            return "", True

    def reward(self, answer: Optional[str] = None) -> Optional[float]:
        """The task's reward for the state reached and the final answer;
        None when the environment failed."""
        if not self._scorable(self.episode):
            return None  # nothing to score: no episode, a failed one, or no task
        if self.final_score is not None:
            return self.final_score
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
        self.episode = (await self.client.create(env=self.env, task=self.task, seed=self.seed))[0]
        return self._started(self.episode)

    async def tools(self) -> List[Dict[str, Any]]:
        if self.env is None:
            self.env = self._tools_env(await self.client.envs())
        return await self.client.tools(self.env)

    async def call(self, name: str, arguments: Any = None) -> ToolResult:
        if self.episode is None:
            raise RuntimeError("start the rollout before calling tools")
        try:
            return self._record(await self.episode.call(name, arguments))
        except EnvironmentFault as e:
            return self._fault(e)

    async def say(self, content: str) -> Tuple[str, bool]:
        if self.episode is None:
            raise RuntimeError("start the rollout before talking to the user")
        try:
            return self._heard(await self.episode.say(content))
        except EnvironmentFault as e:
            self._fault(e)
            return "", True

    async def reward(self, answer: Optional[str] = None) -> Optional[float]:
        if not self._scorable(self.episode):
            return None
        if self.final_score is not None:
            return self.final_score
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
