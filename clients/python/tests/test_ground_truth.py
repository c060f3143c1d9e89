"""Every shipped environment's ground truth, final answer included, played
through each adapter (TRL, verl, SkyRL, NeMo Gym's simple_agent and
gymnasium_agent routes, OpenEnv) the way its
framework drives it, scores 1.0 on every task; an episode where the agent
does nothing and says so scores below 1.0 wherever doing nothing is not the
task's right outcome. What `wasmenv rollout --policy oracle` gets, a trainer
gets through its adapter: a read task pays only when its answer reaches the
scorer.

The bundles are built from the environments embedded in the binary
(`wasmenv build --example NAME`, cached by the build), their tasks read with
`wasmenv tasks --json`; one server serves them all.
"""

import asyncio
import http.cookiejar
import json
import subprocess
import types
import unittest
import urllib.request
import uuid

from tests.server import Server, built, example_bundle
from wasmenv_client import Client
from wasmenv_client import skyrl as wsky
from wasmenv_client import trl as wtrl
from wasmenv_client import verl as wverl

NOTHING = "I cannot help with that."


def shipped():
    """{env name: (bundle path, tasks)} for every environment in the binary."""
    binary, _ = built()
    names = subprocess.run([binary, "build", "--help"], capture_output=True, text=True, check=True).stdout
    names = names.split("embedded example (", 1)[1].split(")", 1)[0].split(", ")
    out = {}
    for name in names:
        path = example_bundle(name)
        tasks = json.loads(subprocess.run([binary, "tasks", "--json", path], capture_output=True, text=True,
                                          check=True).stdout)
        out[name] = (path, tasks)
    return out


def answer_of(task):
    # The oracle's answer (rl/oracle.go): the value asked for alone where
    # the rule says so (envpkg.Answer.Reply), else the expected value;
    # "Done." for a task without one.
    a = task.get("answer")
    if not a:
        return "Done."
    if a.get("alone"):
        return a["alone"]["value"]
    return a["value"]


def tool_call_text(name, arguments):
    return "<tool_call>\n%s\n</tool_call>" % json.dumps({"name": name, "arguments": arguments})


class GroundTruthTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.envs = shipped()
        cls.server = Server(*[p for p, _ in cls.envs.values()])
        cls.client = Client(cls.server.url)
        # What doing nothing scores, straight from the server; and whether
        # the ground truth writes. A task whose ground truth only reads and
        # checks no answer (τ-bench's "look, then change nothing") pays 1.0
        # for nothing; every other must not.
        cls.idle, cls.writes = {}, {}
        for env, (_, tasks) in cls.envs.items():
            for t in tasks:
                ep = cls.client.create(env=env, task=t["id"])[0]
                cls.idle[env, t["id"]] = ep.score(NOTHING)["reward"]
                for c in t["calls"]:
                    ep.call(c["name"], c["arguments"])
                cls.writes[env, t["id"]] = any(ep.diff()["diff"].values())
                ep.delete()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        assert cls.server.stop() == 0

    def each_task(self):
        for env, (_, tasks) in sorted(self.envs.items()):
            for t in tasks:
                yield env, t

    def must_act(self, env, task):
        return self.writes[env, task["id"]] or bool(task.get("answer"))

    def check_idle(self, env, task, got):
        if self.must_act(env, task):
            self.assertLess(got, 1.0, "%s/%s: doing nothing pays" % (env, task["id"]))
        self.assertEqual(got, self.idle[env, task["id"]], "%s/%s" % (env, task["id"]))

    def test_every_shipped_env_is_here(self):
        self.assertGreaterEqual(len(self.envs), 10)
        served = sorted(e["name"] for e in self.client.envs())
        self.assertEqual([e for e in served if e != "mini"], sorted(self.envs))  # mini: the test server's own
        reads = sum(1 for _, t in self.each_task() if t.get("answer"))
        self.assertGreater(reads, 100, "the answer tasks are what this test is about")
        self.assertEqual(sum(1 for v in self.idle.values() if v >= 1.0),
                         sum(1 for e, t in self.each_task() if not self.must_act(e, t)))

    def test_trl(self):
        classes = {env: wtrl.environment_factory(self.server.url, env) for env in self.envs}
        for env, t in self.each_task():
            with self.subTest(env=env, task=t["id"]):
                inst = classes[env]()
                inst.reset(task=t["id"], seed=0)
                completion = []
                for c in t["calls"]:
                    getattr(inst, c["name"])(**(c["arguments"] or {}))
                    completion += [{"role": "assistant", "content": "", "tool_calls": [
                        {"type": "function", "function": {"name": c["name"], "arguments": c["arguments"]}}]},
                        {"role": "tool", "name": c["name"], "content": "..."}]
                completion.append({"role": "assistant", "content": answer_of(t)})
                self.assertEqual(wtrl.task_reward([completion], [inst]), [1.0])
                inst.reset(task=t["id"], seed=0)
                got = wtrl.task_reward([[{"role": "assistant", "content": NOTHING}]], [inst])[0]
                self.check_idle(env, t, got)
                inst._rollout.close()

    def test_verl(self):
        async def trajectory(env, tools, inter, t, calls, answer):
            rid = uuid.uuid4().hex
            ck = {"create_kwargs": {"task": t["id"], "seed": 0}}
            ad = types.SimpleNamespace(request_id=rid, tools_kwargs={n: ck for n in tools})
            rewards = []
            for c in calls:  # ToolAgentLoop._call_tool: create, execute, release
                tool = tools[c["name"]]
                iid, _ = await tool.create(create_kwargs=ck["create_kwargs"])
                _, reward, _ = await tool.execute(iid, c["arguments"] or {}, agent_data=ad)
                await tool.release(iid)
                rewards.append(reward)
            ikw = {"name": "wasmenv", "task": t["id"], "seed": 0}
            await inter.start_interaction(rid, **ikw)
            done, _, turn, _ = await inter.generate_response(
                rid, [{"role": "user", "content": "..."}, {"role": "assistant", "content": answer}], **ikw)
            self.assertTrue(done)
            return wverl.compute_score("wasmenv/" + env, answer, "", {"tool_rewards": rewards, "turn_scores": [turn]})

        async def main():
            for env in sorted(self.envs):
                config = {"type": "native", "url": self.server.url, "env": env}
                tools = {x["name"]: wverl.WasmenvToolLogic(config, json.loads(
                    json.dumps(wverl.verl_schema(x)), object_hook=lambda o: types.SimpleNamespace(**o)))
                    for x in self.client.tools(env)}
                inter = wverl.WasmenvInteractionLogic(dict(config, name="wasmenv"))
                for t in self.envs[env][1]:
                    with self.subTest(env=env, task=t["id"]):
                        got = await trajectory(env, tools, inter, t, t["calls"], answer_of(t))
                        self.assertEqual(got, {"score": 1.0, "env_fault": 0.0})
                        got = await trajectory(env, tools, inter, t, [], NOTHING)
                        self.check_idle(env, t, got["score"])
            self.assertEqual(self.client.stats()["episodes"], 0, "the interaction ends each trajectory")
            await wverl.aclose()

        asyncio.run(main())

    def test_skyrl(self):
        for env, t in self.each_task():
            with self.subTest(env=env, task=t["id"]):
                for calls, answer in ((t["calls"], answer_of(t)), ([], NOTHING)):
                    sky = wsky.WasmenvTextEnvLogic({"url": self.server.url, "env": env},
                                                   {"task": t["id"], "seed": 0, "max_turns": len(calls) + 1})
                    sky.init([])
                    try:
                        for c in calls:
                            out = sky.step(tool_call_text(c["name"], c["arguments"] or {}))
                            self.assertFalse(out["done"])
                        out = sky.step(answer)
                    finally:
                        sky.close()
                    self.assertTrue(out["done"])
                    if calls or answer != NOTHING:
                        self.assertEqual(out["reward"], 1.0)
                    else:
                        self.check_idle(env, t, out["reward"])

    def post(self, opener, path, body):
        req = urllib.request.Request(self.server.url + path, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with opener.open(req, timeout=60) as resp:
            return resp.read().decode()

    def test_nemo_gym(self):
        # simple_agent's calls: seed_session, each tool, verify (the last
        # assistant message is the answer), the cookies going along.
        for env, t in self.each_task():
            with self.subTest(env=env, task=t["id"]):
                for calls, answer in ((t["calls"], answer_of(t)), ([], NOTHING)):
                    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
                    row = {"responses_create_params": {"input": []}, "task": t["id"], "seed": 0}
                    self.post(opener, "/nemo-gym/%s/seed_session" % env, row)
                    output = []
                    for c in calls:
                        self.post(opener, "/nemo-gym/%s/%s" % (env, c["name"]), c["arguments"] or {})
                        output.append({"type": "function_call", "name": c["name"],
                                       "arguments": json.dumps(c["arguments"] or {}), "call_id": "c"})
                    output.append({"type": "message", "role": "assistant",
                                   "content": [{"type": "output_text", "text": answer}]})
                    got = json.loads(self.post(opener, "/nemo-gym/%s/verify" % env,
                                               dict(row, response={"output": output})))["reward"]
                    if calls or answer != NOTHING:
                        self.assertEqual(got, 1.0)
                    else:
                        self.check_idle(env, t, got)

    def test_nemo_gym_gymnasium(self):
        # gymnasium_agent's calls: reset, a step per model response (the
        # ground truth's calls as function calls, then the answer as a
        # message), close; the rewards summed as it sums them.
        for env, t in self.each_task():
            with self.subTest(env=env, task=t["id"]):
                for calls, answer in ((t["calls"], answer_of(t)), ([], NOTHING)):
                    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
                    row = {"responses_create_params": {"input": []}, "task": t["id"], "seed": 0}
                    self.assertIsNone(json.loads(self.post(opener, "/nemo-gym/%s/reset" % env, row))["observation"])
                    total = 0.0
                    outputs = [[{"type": "function_call", "name": c["name"], "arguments": json.dumps(c["arguments"] or {}),
                                 "call_id": "c%d" % i}] for i, c in enumerate(calls)]
                    outputs.append([{"type": "message", "role": "assistant",
                                     "content": [{"type": "output_text", "text": answer}]}])
                    for output in outputs:
                        step = json.loads(self.post(opener, "/nemo-gym/%s/step" % env, dict(row, response={"output": output})))
                        total += step["reward"]
                    self.post(opener, "/nemo-gym/%s/close" % env, {})
                    self.assertTrue(step["terminated"])
                    if calls or answer != NOTHING:
                        self.assertEqual(total, 1.0)
                    else:
                        self.check_idle(env, t, total)

    def test_openenv(self):
        opener = urllib.request.build_opener()
        for env, t in self.each_task():
            with self.subTest(env=env, task=t["id"]):
                for calls, answer in ((t["calls"], answer_of(t)), ([], NOTHING)):
                    r = json.loads(self.post(opener, "/reset", {"env": env, "task": t["id"], "seed": 0}))
                    eid = r["observation"]["episode_id"]
                    for c in calls:
                        self.post(opener, "/step", {"episode_id": eid, "action": {
                            "type": "call_tool", "tool_name": c["name"], "arguments": c["arguments"] or {}}})
                    r = json.loads(self.post(opener, "/step", {"episode_id": eid,
                                                               "action": {"type": "final", "answer": answer}}))
                    self.client.episode(eid).delete()
                    self.assertTrue(r["done"])
                    if calls or answer != NOTHING:
                        self.assertEqual(r["reward"], 1.0)
                    else:
                        self.check_idle(env, t, r["reward"])


if __name__ == "__main__":
    unittest.main()
