"""Asynchronous client for the wasmenv episode API (/v1), standard library
only: HTTP/1.1 over asyncio streams, with a bounded pool of keep-alive
connections shared by every coroutine of one event loop.

    async with AsyncClient(url, token=..., max_connections=32) as client:
        ep = (await client.create(task="put-d", seed=0))[0]
        r = await ep.call("get", {"key": "a"})
        score = await ep.score()
        await ep.delete()

A thousand rollouts may run at once: at most max_connections requests are in
flight and the others wait their turn for a connection, so the number of
sockets stays bounded whatever the concurrency. Every request has a timeout;
failures are typed (see errors.py), never a hang.
"""

import asyncio
import json
import ssl
import urllib.parse
from typing import Any, Dict, List, Optional, Tuple

from .client import (StepResult, ToolResult, _EpisodeFields, create_body, episode_path, message_body,
                     step_body, step_result, tool_result)
from .errors import WasmenvError, error_from, transport_error

_MAX_BODY = 64 << 20  # the server caps its own answers at 16 MiB


class _Stale(Exception):
    """A reused keep-alive connection the server had closed: nothing was read."""


class _Conn:
    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader = reader
        self.writer = writer

    def close(self) -> None:
        try:
            self.writer.close()
        except Exception:  # noqa: BLE001 - already broken
            pass


class AsyncClient:
    """A client for one server, for the coroutines of one event loop."""

    def __init__(self, base_url: str, token: Optional[str] = None, timeout: float = 60.0,
                 max_connections: int = 32):
        u = urllib.parse.urlsplit(base_url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("base_url must be http(s)://host[:port], not %r" % base_url)
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        self._host = u.hostname
        self._ssl = ssl.create_default_context() if u.scheme == "https" else None
        self._port = u.port or (443 if self._ssl else 80)
        self._hosthdr = u.netloc.rsplit("@", 1)[-1]
        self._prefix = u.path.rstrip("/")
        self._token = token
        self._timeout = timeout
        self._max = max_connections
        self._idle: List[_Conn] = []
        self._open = 0
        self._sem: Optional[asyncio.Semaphore] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._tools: Dict[str, List[Dict[str, Any]]] = {}

    @property
    def open_connections(self) -> int:
        """Sockets open now (never more than max_connections)."""
        return self._open

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the idle connections (those in use close when done)."""
        idle, self._idle = self._idle, []
        for c in idle:
            self._drop(c)

    def _drop(self, c: _Conn) -> None:
        c.close()
        self._open -= 1

    def _take(self) -> Optional[_Conn]:
        """An idle connection the server has not closed, or None."""
        while self._idle:
            c = self._idle.pop()
            if not c.reader.at_eof() and not c.writer.is_closing():
                return c
            self._drop(c)
        return None

    def _semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._sem is None:
            self._sem, self._loop = asyncio.Semaphore(self._max), loop
        elif self._loop is not loop:
            raise RuntimeError("an AsyncClient serves one event loop; make one per loop")
        return self._sem

    # -- transport --------------------------------------------------------

    async def request(self, method: str, path: str, body: Any = None) -> Any:
        """Send a request and return the decoded JSON answer, or raise the
        typed WasmenvError (AgentFault, EnvironmentFault, EpisodeLost)."""
        data = b"" if body is None else json.dumps(body).encode()
        head = ["%s %s HTTP/1.1" % (method, self._prefix + path), "Host: " + self._hosthdr,
                "Accept: application/json", "Content-Length: %d" % len(data)]
        if body is not None:
            head.append("Content-Type: application/json")
        if self._token:
            head.append("Authorization: Bearer " + self._token)
        msg = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + data
        async with self._semaphore():
            stale = False
            for attempt in (0, 1):
                conn = self._take()
                state = {"sent": False}
                try:
                    status, headers, raw, conn = await asyncio.wait_for(
                        self._roundtrip(conn, msg, state), self._timeout)
                except _Stale:
                    if attempt:
                        raise transport_error(ConnectionResetError("connection closed"), True) from None
                    # A reused connection ended without a byte of answer:
                    # the server closed it while idle, or died after reading
                    # the request. Once more on a new connection tells which.
                    stale = True
                    continue
                except (asyncio.TimeoutError, OSError, asyncio.IncompleteReadError, ValueError) as e:
                    # Refused after a stale connection: the server died with
                    # the request, and the episode with it.
                    raise transport_error(e, state["sent"] or stale) from e
                break
        if headers.get("connection", "").lower() == "close":
            self._drop(conn)
        else:
            self._idle.append(conn)
        try:
            payload = json.loads(raw) if raw else None
        except ValueError:
            payload = None
        if status >= 400:
            err = (payload or {}).get("error", {}) if isinstance(payload, dict) else {}
            ra = headers.get("retry-after")
            raise error_from(status, err.get("code", "http_error"),
                             err.get("message", raw[:200].decode("utf-8", "replace")),
                             float(ra) if ra else None)
        return payload

    async def _roundtrip(self, conn: Optional[_Conn], msg: bytes,
                         state: Dict[str, bool]) -> Tuple[int, Dict[str, str], bytes, _Conn]:
        reused = conn is not None
        if conn is None:
            r, w = await asyncio.open_connection(self._host, self._port, ssl=self._ssl)
            conn = _Conn(r, w)
            self._open += 1
        try:
            conn.writer.write(msg)
            await conn.writer.drain()
            state["sent"] = True
            line = await conn.reader.readline()
            if not line:
                if reused:
                    raise _Stale()
                raise ConnectionResetError("the server closed the connection without an answer")
            parts = line.decode("latin-1").split(" ", 2)
            if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
                raise ValueError("not an HTTP/1.1 answer: %r" % line[:80])
            status = int(parts[1])
            headers: Dict[str, str] = {}
            while True:
                h = await conn.reader.readline()
                if not h:
                    raise asyncio.IncompleteReadError(b"", None)
                if h in (b"\r\n", b"\n"):
                    break
                k, _, v = h.decode("latin-1").partition(":")
                headers[k.strip().lower()] = v.strip()
            raw = await self._body(conn.reader, headers)
            return status, headers, raw, conn
        except BaseException:
            # A half-read connection is never reused (also on cancellation).
            self._drop(conn)
            raise

    @staticmethod
    async def _body(reader: asyncio.StreamReader, headers: Dict[str, str]) -> bytes:
        if "chunked" in headers.get("transfer-encoding", "").lower():
            out = bytearray()
            while True:
                size = int((await reader.readline()).split(b";")[0].strip() or b"x", 16)
                if size == 0:
                    while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return bytes(out)
                if len(out) + size > _MAX_BODY:
                    raise ValueError("answer over %d bytes" % _MAX_BODY)
                out += await reader.readexactly(size)
                await reader.readexactly(2)
        n = int(headers.get("content-length", "0"))
        if n < 0 or n > _MAX_BODY:
            raise ValueError("answer of %d bytes" % n)
        return await reader.readexactly(n)

    # -- server -----------------------------------------------------------

    async def health(self) -> Dict[str, Any]:
        return await self.request("GET", "/health")

    async def stats(self) -> Dict[str, Any]:
        return await self.request("GET", "/stats")

    async def envs(self) -> List[Dict[str, Any]]:
        """The served environments, each with its tools (MCP form)."""
        envs = (await self.request("GET", "/v1/envs"))["envs"]
        for e in envs:
            self._tools[e["name"]] = e["tools"]
        return envs

    async def tools(self, env: str) -> List[Dict[str, Any]]:
        """An environment's tools in MCP form: name, description, inputSchema."""
        if env not in self._tools:
            await self.envs()
        if env not in self._tools:
            raise error_from(404, "unknown_env", "no environment named %r" % env)
        return self._tools[env]

    async def tasks(self, env: str) -> List[Dict[str, Any]]:
        return (await self.request("GET", "/v1/envs/%s/tasks" % urllib.parse.quote(env, safe="")))["tasks"]

    async def create(self, env: Optional[str] = None, task: Optional[str] = None, seed: int = 0,
                     n: int = 1, max_steps: Optional[int] = None) -> List["AsyncEpisode"]:
        """Create n identical episodes (one GRPO group)."""
        return AsyncEpisode.group_of(self, await self.request("POST", "/v1/episodes", create_body(env, task, seed, n, max_steps)))

    async def episode(self, episode_id: str) -> "AsyncEpisode":
        """An existing episode by id."""
        return AsyncEpisode.of(self, await self.request("GET", episode_path(episode_id)))


class AsyncEpisode(_EpisodeFields):
    """One served episode; the same methods as Episode, awaited."""

    async def tools(self) -> List[Dict[str, Any]]:
        return await self.client.tools(self.env)

    async def openai_tools(self) -> List[Dict[str, Any]]:
        from .openai import openai_tools
        return openai_tools(await self.tools())

    async def call(self, name: str, arguments: Any = None) -> ToolResult:
        """Call a tool; its errors and the agent's come back in the result."""
        return tool_result(await self.client.request("POST", self._path("/call"), {"name": name, "arguments": arguments or {}}))

    async def step(self, name: Optional[str] = None, arguments: Any = None, *,
                   answer: Optional[str] = None, final: bool = False) -> StepResult:
        return step_result(await self.client.request("POST", self._path("/step"), step_body(name, arguments, answer, final)))

    async def say(self, content: str) -> StepResult:
        return step_result(await self.client.request("POST", self._path("/step"), message_body(content)))

    async def score(self, answer: Optional[str] = None) -> Dict[str, Any]:
        return await self.client.request("POST", self._path("/score"), {} if answer is None else {"answer": answer})

    async def diff(self) -> Dict[str, Any]:
        return await self.client.request("GET", self._path("/diff"))

    async def reset(self, seed: Optional[int] = None) -> Dict[str, Any]:
        r = await self.client.request("POST", self._path("/reset"), {} if seed is None else {"seed": seed})
        self.seed = r["seed"]
        return r

    async def info(self) -> Dict[str, Any]:
        return await self.client.request("GET", self._path())

    async def delete(self) -> None:
        await self.client.request("DELETE", self._path())

    async def __aenter__(self) -> "AsyncEpisode":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self.delete()
        except WasmenvError:
            pass
