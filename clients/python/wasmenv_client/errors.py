"""Typed errors: whose fault a failure is, instead of a status code.

    WasmenvError                 any error answer or transport failure
    ├── AgentFault               the request was wrong (bad arguments, unknown
    │                            task, episode already done, no credential):
    │                            retrying it unchanged fails again
    └── EnvironmentFault         the server or the environment failed, not the
        │                        caller (5xx, out of capacity or memory, busy,
        │                        unreachable, timed out): a trainer drops the
        │                        rollout rather than penalising the policy
        └── EpisodeLost          the episode is gone (deleted, reaped, its
                                 state lost, or the server died mid-call)

A tool's own error and the agent's bad tool call are not exceptions: they are
ToolResults with is_error set, which the model reads. ToolResult.env_fault
tells an environment failure inside a call (timeout, trap, ...) apart.
"""

import asyncio
import socket
from typing import Optional


class WasmenvError(Exception):
    """An error answer from the server (HTTP status, error code, message), or
    a transport failure (status 0)."""

    def __init__(self, status: int, code: str, message: str, retry_after: Optional[float] = None):
        super().__init__("HTTP %d %s: %s" % (status, code, message) if status else "%s: %s" % (code, message))
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


class AgentFault(WasmenvError):
    """The request itself was wrong; the same request fails again."""


class EnvironmentFault(WasmenvError):
    """The server or environment failed; not the caller's doing."""


class EpisodeLost(EnvironmentFault):
    """The episode no longer exists on the server."""


# Outcomes of a tool call that are the environment's failure, not the
# agent's (runtime.Outcome.EnvFault in the Go runtime).
_NOT_ENV_FAULT = frozenset(("ok", "tool_error", "unknown_tool", "invalid_args", "quota", ""))


def is_env_fault(outcome: str) -> bool:
    """Whether a tool call's outcome is an environment failure."""
    return outcome not in _NOT_ENV_FAULT


# The server's table of codes (serve/codes.go, whose TestErrorCodesTable
# checks that this module types every code and status as the table says):
# the codes that say the episode is gone, and those that are the
# environment's failure though their status is a 4xx (a bundle's setup,
# reset, check or diff that failed).
_LOST_CODES = frozenset(("unknown_episode", "state_lost", "episode_closed", "episode_lost"))
_ENV_CODES = frozenset(("episode_failed", "reset_failed", "score_failed", "diff_failed"))


def error_from(status: int, code: str, message: str, retry_after: Optional[float] = None) -> WasmenvError:
    """The typed error for a server's error answer."""
    if code in _LOST_CODES:
        cls = EpisodeLost
    elif code in _ENV_CODES or status >= 500 or status == 429 or status == 408:
        cls = EnvironmentFault
    elif 400 <= status < 500:
        cls = AgentFault
    else:
        cls = WasmenvError
    return cls(status, code, message, retry_after)


def transport_error(err: BaseException, sent: bool) -> EnvironmentFault:
    """The typed error for a connection that failed: before the request was
    sent the server is unreachable (EnvironmentFault); after, the server went
    away mid-call and the episode with it (EpisodeLost). A timeout is an
    EnvironmentFault: the episode may still be there."""
    msg = "%s: %s" % (type(err).__name__, err) if str(err) else type(err).__name__
    if isinstance(err, (socket.timeout, TimeoutError, asyncio.TimeoutError)):
        return EnvironmentFault(0, "timeout", "no answer within the client's timeout (" + msg + ")")
    if sent:
        return EpisodeLost(0, "connection_lost", "the server went away mid-request (" + msg + ")")
    return EnvironmentFault(0, "unreachable", "cannot reach the server (" + msg + ")")
