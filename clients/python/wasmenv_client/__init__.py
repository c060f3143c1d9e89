"""Python client for `wasmenv serve` (standard library only, Python >= 3.9).

    from wasmenv_client import Client, openai_tools, execute_tool_calls

    client = Client("http://127.0.0.1:8080", token=None)
    group = client.create(env="mini", task="put-d", seed=0, n=8)   # one GRPO group
    ep = group[0]
    ep.call("get", {"key": "a"})          # ToolResult(content=..., is_error=False)
    ep.step("put", {"key": "d", "value": "date"})
    ep.step(answer="done", final=True)     # StepResult(..., terminated=True, reward=...)
    ep.score(); ep.diff(); ep.reset(seed=1); ep.delete()

AsyncClient has the same methods, awaited, over a bounded pool of keep-alive
connections. Errors are typed: AgentFault, EnvironmentFault, EpisodeLost.
Rollout / AsyncRollout are the core the trainer adapters share; the adapters
are wasmenv_client.trl, .verl and .skyrl, each importable without its
framework.
"""

from .aio import AsyncClient, AsyncEpisode
from .client import Client, Episode, StepResult, ToolResult
from .core import AsyncRollout, Rollout
from .errors import AgentFault, EnvironmentFault, EpisodeLost, WasmenvError
from .openai import execute_tool_calls, openai_tools
from .toolcalls import TextToolCall, parse_tool_calls

__all__ = [
    "AgentFault",
    "AsyncClient",
    "AsyncEpisode",
    "AsyncRollout",
    "Client",
    "EnvironmentFault",
    "Episode",
    "EpisodeLost",
    "Rollout",
    "StepResult",
    "TextToolCall",
    "ToolResult",
    "WasmenvError",
    "execute_tool_calls",
    "openai_tools",
    "parse_tool_calls",
]
