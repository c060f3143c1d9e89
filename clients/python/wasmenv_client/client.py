"""Synchronous HTTP client for the wasmenv episode API (/v1)."""

import http.client
import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from .errors import WasmenvError, error_from, is_env_fault, transport_error


@dataclass
class ToolResult:
    """What the agent sees from one tool call."""

    content: str
    is_error: bool
    # What happened, as the runtime tells it: "ok", "tool_error" (the tool's
    # answer), "unknown_tool" / "invalid_args" (the agent's mistake), or an
    # environment failure ("timeout", "trap", "out_of_memory", ...).
    outcome: str = ""

    @property
    def env_fault(self) -> bool:
        """The environment failed (timeout, trap, ...), not the agent."""
        return is_env_fault(self.outcome)


@dataclass
class StepResult:
    """A Gym-shaped step: reward is non-zero only when the episode ends."""

    observation: str
    reward: float
    terminated: bool
    truncated: bool
    info: Dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated



def episode_path(episode_id: str, suffix: str = "") -> str:
    """The URL path of an episode; the id is quoted (an id is data)."""
    return "/v1/episodes/" + urllib.parse.quote(episode_id, safe="") + suffix


def create_body(env: Optional[str], task: Optional[str], seed: int, n: int,
                max_steps: Optional[int]) -> Dict[str, Any]:
    """The body of POST /v1/episodes."""
    body: Dict[str, Any] = {"seed": seed, "n": n}
    if env:
        body["env"] = env
    if task:
        body["task"] = task
    if max_steps:
        body["max_steps"] = max_steps
    return body


def step_body(name: Optional[str], arguments: Any, answer: Optional[str], final: bool) -> Dict[str, Any]:
    """The body of POST /v1/episodes/ID/step: a tool call or the final answer."""
    if final:
        return {"action": {"type": "final", "answer": answer}}
    if not name:
        raise ValueError("step needs a tool name, or final=True")
    return {"action": {"name": name, "arguments": arguments or {}}}


def tool_result(r: Dict[str, Any]) -> ToolResult:
    return ToolResult(r["content"], r["is_error"], r.get("outcome", ""))


def step_result(r: Dict[str, Any]) -> StepResult:
    return StepResult(r["observation"], r["reward"], r["terminated"], r["truncated"], r.get("info", {}))


def message_body(content: str) -> Dict[str, Any]:
    """The body of POST /v1/episodes/ID/step that says content to the
    simulated user (a server started with --user)."""
    if not isinstance(content, str):
        raise ValueError("a message to the user is text, not %r" % type(content).__name__)
    return {"action": {"type": "message", "content": content}}


class _EpisodeFields:
    """What the sync and async episodes share: identity and paths.

    instruction is what opens the conversation: the task's instruction, or,
    when the server plays a simulated user (user is True), the user's first
    message; the user's goal is never sent. rules is the environment's
    policy, the system message."""

    def __init__(self, client: Any, episode_id: str, group: str, env: str,
                 task: Optional[str], seed: int, instruction: str, rules: str = "", user: bool = False):
        self.client = client
        self.id = episode_id
        self.group = group
        self.env = env
        self.task = task
        self.seed = seed
        self.instruction = instruction
        self.rules = rules
        self.user = user

    @classmethod
    def group_of(cls, client: Any, r: Dict[str, Any]) -> list:
        """The episodes of a POST /v1/episodes answer."""
        openings = r.get("openings")
        return [cls(client, i, r["group"], r["env"], r.get("task"), r["seed"],
                    openings[k] if openings else r.get("instruction", ""), r.get("rules", ""), bool(openings))
                for k, i in enumerate(r["episodes"])]

    @classmethod
    def of(cls, client: Any, r: Dict[str, Any]) -> Any:
        """The episode a GET /v1/episodes/ID answer describes."""
        return cls(client, r["id"], r["group"], r["env"], r.get("task"), r["seed"], "")

    def __repr__(self) -> str:
        return "%s(%s, env=%s, task=%s)" % (type(self).__name__, self.id, self.env, self.task)

    def _path(self, suffix: str = "") -> str:
        return episode_path(self.id, suffix)

class Client:
    """A client for one server. Safe to share between threads: each thread
    keeps its own keep-alive connection."""

    def __init__(self, base_url: str, token: Optional[str] = None, timeout: float = 60.0):
        u = urllib.parse.urlsplit(base_url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("base_url must be http(s)://host[:port], not %r" % base_url)
        self._scheme = u.scheme
        self._host = u.hostname
        self._port = u.port
        self._prefix = u.path.rstrip("/")
        self._token = token
        self._timeout = timeout
        self._local = threading.local()
        self._conns_mu = threading.Lock()
        self._conns: List[http.client.HTTPConnection] = []
        self._tools: Dict[str, List[Dict[str, Any]]] = {}

    # -- transport --------------------------------------------------------

    def _conn(self) -> http.client.HTTPConnection:
        c = getattr(self._local, "conn", None)
        if c is None:
            cls = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            c = cls(self._host, self._port, timeout=self._timeout)
            self._local.conn = c
            with self._conns_mu:
                self._conns.append(c)
        return c

    def _drop_conn(self) -> None:
        c = getattr(self._local, "conn", None)
        if c is not None:
            c.close()
            self._local.conn = None
            with self._conns_mu:
                if c in self._conns:
                    self._conns.remove(c)

    def close(self) -> None:
        """Close the connections of every thread."""
        with self._conns_mu:
            conns, self._conns = self._conns, []
        for c in conns:
            c.close()
        self._local = threading.local()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def request(self, method: str, path: str, body: Any = None) -> Any:
        """Send a request and return the decoded JSON answer, or raise the
        typed WasmenvError (AgentFault, EnvironmentFault, EpisodeLost) for a
        4xx/5xx or a failed connection."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self._token:
            headers["Authorization"] = "Bearer " + self._token
        for attempt in (0, 1):
            c = self._conn()
            reused = c.sock is not None
            sent = False
            try:
                c.request(method, self._prefix + path, body=data, headers=headers)
                sent = True
                resp = c.getresponse()
                raw = resp.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError) as e:
                # A keep-alive connection the server closed; retry once on a new one.
                self._drop_conn()
                if attempt or not reused:
                    raise transport_error(e, sent) from e
            except (OSError, http.client.HTTPException) as e:
                self._drop_conn()
                raise transport_error(e, sent) from e
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = None
        if resp.status >= 400:
            err = (payload or {}).get("error", {}) if isinstance(payload, dict) else {}
            ra = resp.getheader("Retry-After")
            raise error_from(resp.status, err.get("code", "http_error"),
                             err.get("message", raw[:200].decode("utf-8", "replace")),
                             float(ra) if ra else None)
        return payload

    # -- server -----------------------------------------------------------

    def health(self) -> Dict[str, Any]:
        return self.request("GET", "/health")

    def stats(self) -> Dict[str, Any]:
        return self.request("GET", "/stats")

    def envs(self) -> List[Dict[str, Any]]:
        """The served environments, each with its tools (MCP form)."""
        envs = self.request("GET", "/v1/envs")["envs"]
        for e in envs:
            self._tools[e["name"]] = e["tools"]
        return envs

    def tools(self, env: str) -> List[Dict[str, Any]]:
        """An environment's tools in MCP form: name, description, inputSchema."""
        if env not in self._tools:
            self.envs()
        return self._tools[env]

    def env_info(self, env: str) -> Dict[str, Any]:
        """One served environment: name, rules, tools, ... (GET /v1/envs)."""
        for e in self.envs():
            if e["name"] == env:
                return e
        raise error_from(404, "unknown_env", "no environment named %r" % env)

    def tasks(self, env: str) -> List[Dict[str, Any]]:
        return self.request("GET", "/v1/envs/%s/tasks" % urllib.parse.quote(env, safe=""))["tasks"]

    def create(self, env: Optional[str] = None, task: Optional[str] = None, seed: int = 0,
               n: int = 1, max_steps: Optional[int] = None) -> List["Episode"]:
        """Create n identical episodes (one GRPO group)."""
        return Episode.group_of(self, self.request("POST", "/v1/episodes", create_body(env, task, seed, n, max_steps)))

    def episode(self, episode_id: str) -> "Episode":
        """An existing episode by id."""
        return Episode.of(self, self.request("GET", episode_path(episode_id)))


class Episode(_EpisodeFields):
    """One served episode. Calls on one episode are serialized by the server."""

    def tools(self) -> List[Dict[str, Any]]:
        return self.client.tools(self.env)

    def openai_tools(self) -> List[Dict[str, Any]]:
        from .openai import openai_tools
        return openai_tools(self.tools())

    def call(self, name: str, arguments: Any = None) -> ToolResult:
        """Call a tool. arguments is a dict, or a JSON string (as in
        chat-completions tool_calls). Tool errors come back with is_error set."""
        return tool_result(self.client.request("POST", self._path("/call"), {"name": name, "arguments": arguments or {}}))

    def step(self, name: Optional[str] = None, arguments: Any = None, *,
             answer: Optional[str] = None, final: bool = False) -> StepResult:
        """One Gym step: a tool call, or with final=True the final answer,
        which ends the episode and scores it."""
        return step_result(self.client.request("POST", self._path("/step"), step_body(name, arguments, answer, final)))

    def say(self, content: str) -> StepResult:
        """Say content to the simulated user: one step, whose observation is
        the user's reply; terminated (and scored, content as the answer)
        when the user ends the conversation."""
        return step_result(self.client.request("POST", self._path("/step"), message_body(content)))

    def score(self, answer: Optional[str] = None) -> Dict[str, Any]:
        """The task's reward with per-check detail and the state hash."""
        return self.client.request("POST", self._path("/score"), {} if answer is None else {"answer": answer})

    def diff(self) -> Dict[str, Any]:
        """{"diff": {collection: {key: record or None}}, "state_hash": ...}"""
        return self.client.request("GET", self._path("/diff"))

    def reset(self, seed: Optional[int] = None) -> Dict[str, Any]:
        r = self.client.request("POST", self._path("/reset"), {} if seed is None else {"seed": seed})
        self.seed = r["seed"]
        return r

    def info(self) -> Dict[str, Any]:
        return self.client.request("GET", self._path())

    def delete(self) -> None:
        self.client.request("DELETE", self._path())

    def __enter__(self) -> "Episode":
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.delete()
        except WasmenvError:
            pass
