"""End-to-end tests: a real `wasmenv serve` on a free 127.0.0.1 port
(tests/server.py starts it)."""

import json
import threading
import unittest

from tests.server import Server as _Server
from wasmenv_client import Client, WasmenvError, execute_tool_calls, openai_tools

TOKEN = "py-test-token"


def Server():
    return _Server("--max-episodes", "64", token=TOKEN)


class ClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.client = Client(cls.server.url, token=TOKEN)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        code = cls.server.stop()
        assert code == 0, "server exited with %r after SIGTERM" % code

    def test_envs_and_tools(self):
        envs = self.client.envs()
        self.assertEqual([e["name"] for e in envs], ["mini"])
        names = sorted(t["name"] for t in self.client.tools("mini"))
        self.assertEqual(names, ["abuse", "delete", "get", "list", "put", "roll"])
        self.assertEqual(len(self.client.tasks("mini")), 3)
        self.assertEqual(self.client.health()["status"], "healthy")

    def test_group_call_step_score(self):
        group = self.client.create(task="put-d", seed=3, n=4)
        self.assertEqual(len(group), 4)
        self.assertEqual(len({e.id for e in group}), 4)
        ep = group[0]
        self.assertIn("date", ep.instruction)
        r = ep.call("get", {"key": "a"})
        self.assertFalse(r.is_error)
        self.assertEqual(json.loads(r.content)["v"], "apple")
        self.assertEqual(r.outcome, "ok")
        r = ep.call("get", {"key": 5})
        self.assertTrue(r.is_error)
        self.assertTrue(r.content.startswith("Error: "))
        self.assertEqual(r.outcome, "invalid_args")
        self.assertEqual(ep.call("get", {"key": "zzz"}).outcome, "tool_error")
        s = ep.step("put", {"key": "d", "value": "date", "n": 4})
        self.assertEqual((s.observation, s.reward, s.done), ("ok", 0, False))
        s = ep.step(final=True, answer="stored")
        self.assertTrue(s.terminated)
        self.assertEqual(s.reward, 1.0)
        self.assertEqual(s.info["score"]["passed"], 2)
        with self.assertRaises(WasmenvError) as cm:
            ep.step("get", {"key": "a"})
        self.assertEqual(cm.exception.status, 409)
        sc = ep.score()
        self.assertEqual(sc["reward"], 1.0)
        self.assertTrue(sc["state_hash"])
        self.assertIn("d", ep.diff()["diff"]["kv"])
        # The rest of the group is untouched.
        self.assertEqual(group[1].diff()["diff"], {})
        ep.reset(seed=11)
        self.assertEqual(ep.seed, 11)
        self.assertEqual(ep.diff()["diff"], {})
        for e in group:
            e.delete()
        with self.assertRaises(WasmenvError) as cm:
            ep.call("get", {"key": "a"})
        self.assertEqual(cm.exception.status, 404)

    def test_openai_helpers(self):
        with self.client.create()[0] as ep:
            tools = ep.openai_tools()
            self.assertEqual(tools, openai_tools(self.client.tools("mini")))
            put = [t for t in tools if t["function"]["name"] == "put"][0]
            self.assertEqual(put["type"], "function")
            self.assertIn("value", put["function"]["parameters"]["properties"])
            calls = [
                {"id": "call_1", "type": "function",
                 "function": {"name": "put", "arguments": json.dumps({"key": "z", "value": "zed"})}},
                {"id": "call_2", "type": "function", "function": {"name": "get", "arguments": '{"key": "z"}'}},
                {"id": "call_3", "type": "function", "function": {"name": "get", "arguments": "{not json"}},
                {"id": "call_4", "type": "function", "function": {"name": "nope", "arguments": "{}"}},
            ]
            msgs = execute_tool_calls(ep, calls)
            self.assertEqual([m["role"] for m in msgs], ["tool"] * 4)
            self.assertEqual([m["tool_call_id"] for m in msgs], ["call_1", "call_2", "call_3", "call_4"])
            self.assertEqual(msgs[0]["content"], "ok")
            self.assertEqual(json.loads(msgs[1]["content"])["v"], "zed")
            self.assertTrue(msgs[2]["content"].startswith("Error: "))
            self.assertTrue(msgs[3]["content"].startswith("Error: unknown tool"))

    def test_threads_share_client(self):
        ep = self.client.create()[0]
        errors = []

        def worker(w):
            try:
                for i in range(10):
                    r = ep.call("put", {"key": "t%d_%d" % (w, i), "value": "v"})
                    assert not r.is_error, r
            except Exception as e:  # noqa: BLE001
                errors.append(e)

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(ep.diff()["diff"]["kv"]), 40)
        ep.delete()

    def test_errors(self):
        with Client(self.server.url, token="wrong") as bad, self.assertRaises(WasmenvError) as cm:
            bad.envs()
        self.assertEqual(cm.exception.status, 401)
        with self.assertRaises(WasmenvError) as cm:
            self.client.create(task="no-such-task")
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "unknown_task"))
        with self.assertRaises(WasmenvError) as cm:
            self.client.create(n=100)  # over --max-episodes 64
        self.assertEqual(cm.exception.status, 429)
        self.assertIsNotNone(cm.exception.retry_after)
        with self.assertRaises(WasmenvError) as cm:
            self.client.episode("ep_nope")
        self.assertEqual(cm.exception.status, 404)
        # An id is data: one that holds a path is quoted, not followed
        # (the sync client once sent it raw and read /diff's answer as an episode).
        ep = self.client.create()[0]
        with self.assertRaises(WasmenvError) as cm:
            self.client.episode(ep.id + "/diff")
        self.assertEqual(cm.exception.status, 404)
        ep.delete()

    def test_stats(self):
        st = self.client.stats()
        for k in ("episodes", "calls", "call_latency_ms"):
            self.assertIn(k, st)
        self.assertIn("p99", st["call_latency_ms"])


if __name__ == "__main__":
    unittest.main()
