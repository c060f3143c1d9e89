"""AsyncClient against a real `wasmenv serve`: many concurrent episodes from
one process over a bounded number of sockets, typed errors, and a server that
dies or stalls mid-call giving an error, never a hang."""

import asyncio
import json
import os
import socket
import threading
import unittest

from tests.server import Server
from wasmenv_client import (AgentFault, AsyncClient, AsyncRollout, EnvironmentFault, EpisodeLost,
                            WasmenvError)


def _sockets() -> int:
    """Sockets this process holds now (the server is another process)."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink("/proc/self/fd/" + fd).startswith("socket:"):
                n += 1
        except OSError:
            pass
    return n


def run(coro):
    return asyncio.run(coro)


class AsyncClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--max-episodes", "2000")

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def test_thousand_concurrent_episodes(self):
        n, pool = 1000, 16

        async def main():
            async with AsyncClient(self.server.url, max_connections=pool, timeout=120) as c:
                peak = {"client": 0, "fds": 0}
                base = _sockets()
                done = asyncio.Event()

                async def watch():
                    while not done.is_set():
                        peak["client"] = max(peak["client"], c.open_connections)
                        peak["fds"] = max(peak["fds"], _sockets() - base)
                        await asyncio.sleep(0.01)

                async def one(i):
                    ep = (await c.create(task="put-d", seed=i))[0]
                    r = await ep.call("put", {"key": "d", "value": "date", "n": 4})
                    assert not r.is_error, r
                    if i % 2:  # half of them do nothing else: their score is below 1
                        await ep.call("get", {"key": "k%d" % i})
                    score = (await ep.score())["reward"]
                    await ep.delete()
                    return score

                w = asyncio.ensure_future(watch())
                scores = await asyncio.gather(*(one(i) for i in range(n)))
                done.set()
                await w
                self.assertEqual(scores, [1.0] * n)
                st = await c.stats()
                self.assertEqual(st["episodes"], 0)
                return peak

        peak = run(main())
        self.assertGreater(peak["client"], 1, "the requests never ran concurrently")
        self.assertLessEqual(peak["client"], pool)
        self.assertLessEqual(peak["fds"], pool, "sockets of this process beyond the pool")

    def test_typed_errors(self):
        async def main():
            async with AsyncClient(self.server.url) as c:
                with self.assertRaises(AgentFault) as cm:
                    await c.create(task="no-such-task")
                self.assertEqual((cm.exception.status, cm.exception.code), (404, "unknown_task"))
                ep = (await c.create())[0]
                self.assertEqual([t["function"]["name"] for t in await ep.openai_tools()],
                                 [t["name"] for t in await c.tools("mini")])
                r = await ep.call("get", {"key": 5})
                self.assertEqual((r.is_error, r.outcome, r.env_fault), (True, "invalid_args", False))
                await ep.delete()
                with self.assertRaises(EpisodeLost):
                    await ep.call("get", {"key": "a"})
                with self.assertRaises(AgentFault) as cm:
                    await c.create(n=3000)  # over the group limit: the caller's mistake
                self.assertEqual(cm.exception.status, 400)
                eps = await c.create(n=1000)
                with self.assertRaises(EnvironmentFault) as cm:
                    await c.create(n=1001)  # over --max-episodes 2000: the server's limit
                self.assertEqual((cm.exception.status, cm.exception.code), (429, "capacity"))
                self.assertIsNotNone(cm.exception.retry_after)
                await asyncio.gather(*(e.delete() for e in eps))
        run(main())

    def test_rollout_core(self):
        async def main():
            async with AsyncClient(self.server.url) as c:
                r = AsyncRollout(c, task="put-d", seed=1)
                self.assertIn("date", await r.start())
                self.assertEqual(sorted(t["name"] for t in await r.tools()),
                                 ["abuse", "delete", "get", "list", "put", "roll"])
                self.assertLess(await r.reward(), 1.0)
                await r.call("put", {"key": "d", "value": "date", "n": 4})
                self.assertEqual(await r.reward(), 1.0)
                # An environment failure: the rollout's reward is None, not 0.
                res = await r.call("abuse", {"mode": "panic"})
                self.assertTrue(res.env_fault, res)
                self.assertIsNone(await r.reward())
                await r.close()
        run(main())


class ServerGoneTest(unittest.TestCase):
    def test_server_killed_mid_call(self):
        # The mini bundle's calls last at most 500 ms: 40 runaway calls on
        # 40 episodes queue for the server's few call slots, so most are in
        # flight for seconds when the server dies.
        server = Server("--call-timeout", "60s")
        try:
            async def main():
                c = AsyncClient(server.url, timeout=60, max_connections=64)
                eps = await c.create(n=40)
                await eps[0].call("get", {"key": "a"})  # a keep-alive connection to reuse
                calls = [asyncio.ensure_future(ep.call("abuse", {"mode": "loop"})) for ep in eps]
                await asyncio.sleep(0.3)
                pending = [f for f in calls if not f.done()]
                self.assertGreater(len(pending), 10)
                await asyncio.get_running_loop().run_in_executor(None, server.kill)
                done, still = await asyncio.wait(pending, timeout=20)  # well before the client's own timeout
                self.assertEqual(still, set(), "calls still waiting after the server died")
                lost = [f for f in done if isinstance(f.exception(), EpisodeLost)]
                other = [f.exception() or f.result() for f in done if f not in lost]
                # A call that finished just before the kill has its result;
                # none hangs and none fails another way.
                self.assertTrue(all(not isinstance(x, BaseException) for x in other), other)
                self.assertGreater(len(lost), 0)
                with self.assertRaises(EnvironmentFault) as cm:
                    await eps[0].call("get", {"key": "a"})
                self.assertEqual(cm.exception.code, "unreachable")
                await c.aclose()
                self.assertEqual(c.open_connections, 0)
            run(main())
        finally:
            server.stop()

    def test_server_that_never_answers(self):
        # A listener that accepts and then says nothing: the client's timeout
        # ends the request with an EnvironmentFault.
        ln = socket.socket()
        ln.bind(("127.0.0.1", 0))
        ln.listen(8)
        held = []
        stop = threading.Event()

        def accept():
            ln.settimeout(0.2)
            while not stop.is_set():
                try:
                    held.append(ln.accept()[0])
                except OSError:
                    pass
        t = threading.Thread(target=accept, daemon=True)
        t.start()
        try:
            async def main():
                c = AsyncClient("http://127.0.0.1:%d" % ln.getsockname()[1], timeout=0.5)
                with self.assertRaises(EnvironmentFault) as cm:
                    await c.health()
                self.assertEqual(cm.exception.code, "timeout")
                self.assertNotIsInstance(cm.exception, EpisodeLost)
                self.assertEqual(c.open_connections, 0)
            run(main())
        finally:
            stop.set()
            t.join()
            for s in held:
                s.close()
            ln.close()

    def test_not_http(self):
        # A peer that answers garbage: a typed error, not a crash.
        ln = socket.socket()
        ln.bind(("127.0.0.1", 0))
        ln.listen(1)

        def answer():
            s, _ = ln.accept()
            s.recv(65536)
            s.sendall(b"SSH-2.0-OpenSSH\r\n")
            s.close()
        t = threading.Thread(target=answer, daemon=True)
        t.start()
        try:
            async def main():
                c = AsyncClient("http://127.0.0.1:%d" % ln.getsockname()[1], timeout=5)
                with self.assertRaises(WasmenvError):
                    await c.request("GET", "/health")
            run(main())
        finally:
            t.join(5)
            ln.close()


if __name__ == "__main__":
    unittest.main()
