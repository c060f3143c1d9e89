"""A τ-bench-style task served with a simulated user (`wasmenv serve
--user openai`, the user a recorded chat model on 127.0.0.1) through the
adapters (TRL, verl's interaction, SkyRL, NeMo Gym's gymnasium_agent): the
agent's prompt is the rules and the user's opening, the first two messages
of a `wasmenv rollout --user openai` trajectory with the same user, never
the instruction (the user's private goal); the agent's words go to the user
and its replies come back, until its stop ends the episode with the task's
score."""

import asyncio
import http.cookiejar
import http.server
import json
import os
import subprocess
import threading
import types
import unittest
import urllib.error
import urllib.request
import uuid

from tests.server import REPO, Server, built, example_bundle
from tests.test_prompts import example_module
from wasmenv_client import Client
from wasmenv_client import skyrl as wsky
from wasmenv_client import trl as wtrl
from wasmenv_client import verl as wverl

TASK = "cancel-pending-order-mistake"
GOAL = "yes, I'm sure"  # in the instruction only: the user's to say
AGENT = ["Happy to help. Could you give me your email address and the order number?",
         "Order #W1002 is pending. I will cancel it with the reason 'ordered by mistake'. Shall I go ahead?",
         "Done: order #W1002 is cancelled and the full amount goes back to your Visa card."]
CALLS = [("find_customer_by_email", {"email": "olivia.chen@example.com"}), ("get_order", {"order_id": "#W1002"}),
         ("cancel_order", {"order_id": "#W1002", "reason": "ordered by mistake"})]


class RecordedUser(http.server.ThreadingHTTPServer):
    """The recorded customer of rl/openai/testdata/convo_user.json: its n-th
    line answers a request holding n-1 of its own lines."""

    def __init__(self):
        with open(os.path.join(REPO, "rl", "openai", "testdata", "convo_user.json"), encoding="utf-8") as f:
            turns = json.load(f)

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                own = sum(1 for m in body["messages"] if m["role"] == "assistant")
                out = json.dumps(turns[min(own, len(turns) - 1)]).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

            def log_message(self, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self):
        return "http://127.0.0.1:%d/v1" % self.server_address[1]


def tool_call_text(name, arguments):
    return "<tool_call>\n%s\n</tool_call>" % json.dumps({"name": name, "arguments": arguments})


class SimulatedUserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.user = RecordedUser()
        cls.server = Server(example_bundle("store"), "--user", "openai", "--user-base-url", cls.user.url,
                            "--user-model", "gpt-4o-mini")
        cls.client = Client(cls.server.url)
        cls.rules = cls.client.env_info("store")["rules"]
        # What `wasmenv rollout --user openai` sends the policy first, with
        # the same recorded user: every adapter's prompt must be this.
        out = subprocess.run([built()[0], "rollout", example_bundle("store"), "--policy", "oracle", "--group", "1",
                              "--user", "openai", "--user-base-url", cls.user.url, "--user-model", "gpt-4o-mini",
                              "--inline-tools", "--tasks", TASK, "-q", "-o", "-"],
                             capture_output=True, text=True, check=True).stdout
        cls.want = json.loads(out.splitlines()[0])["messages"][:2]

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        assert cls.server.stop() == 0
        cls.user.shutdown()
        cls.user.server_close()

    def assert_opening(self, prompt):
        self.assertEqual(prompt[0], {"role": "system", "content": self.rules})
        self.assertTrue(prompt[1]["content"].startswith("Hi, I placed an order"), prompt)
        self.assertEqual(prompt[:2], self.want)  # as `wasmenv rollout --user` opens
        self.assertNotIn(GOAL, json.dumps(prompt))

    def test_tasks_hide_the_goal(self):
        tasks = {t["id"]: t for t in self.client.tasks("store")}
        self.assertEqual(tasks[TASK]["instruction"], "")
        ep = self.client.create(env="store", task=TASK)[0]
        self.assertTrue(ep.user)
        self.assertNotIn(GOAL, ep.instruction)
        ep.delete()

    def test_skyrl(self):
        sky = wsky.WasmenvTextEnvLogic({"url": self.server.url, "env": "store"}, {"task": TASK, "max_turns": 10})
        prompt, _ = sky.init([])
        self.assert_opening(prompt)
        try:
            out = sky.step(AGENT[0])
            self.assertEqual(out["observations"], [{"role": "user", "content":
                                                    "Sure, it's olivia.chen@example.com and the order is #W1002."}])
            self.assertFalse(out["done"])
            for name, args in CALLS[:2]:
                self.assertFalse(sky.step(tool_call_text(name, args))["done"])
            self.assertEqual(sky.step(AGENT[1])["observations"][0]["content"], "Yes, please cancel it.")
            self.assertFalse(sky.step(tool_call_text(*CALLS[2]))["done"])
            out = sky.step(AGENT[2])
            self.assertEqual((out["done"], out["reward"]), (True, 1.0))
        finally:
            sky.close()

    def test_verl_interaction(self):
        config = {"type": "native", "url": self.server.url, "env": "store"}
        tools = {t["name"]: wverl.WasmenvToolLogic(config, json.loads(
            json.dumps(wverl.verl_schema(t)), object_hook=lambda o: types.SimpleNamespace(**o)))
            for t in self.client.tools("store")}
        inter = wverl.WasmenvInteractionLogic(dict(config, name="wasmenv"))

        async def main():
            rid = uuid.uuid4().hex
            ck = {"create_kwargs": {"task": TASK}}
            ad = types.SimpleNamespace(request_id=rid, tools_kwargs={n: ck for n in tools})
            kw = {"name": "wasmenv", "task": TASK, "seed": 0}
            rewards, turns, messages = [], [], []

            async def say(text):
                messages.append({"role": "assistant", "content": text})
                done, reply, turn, _ = await inter.generate_response(rid, messages, **kw)
                turns.append(turn)
                messages.append({"role": "user", "content": reply})
                return done, reply

            self.assertEqual(await say(AGENT[0]), (False, "Sure, it's olivia.chen@example.com and the order is #W1002."))
            for name, args in CALLS:
                iid, _ = await tools[name].create(create_kwargs=ck["create_kwargs"])
                _, r, _ = await tools[name].execute(iid, args, agent_data=ad)
                await tools[name].release(iid)
                rewards.append(r)
            self.assertEqual(await say(AGENT[1]), (False, "Yes, please cancel it."))
            done, _ = await say(AGENT[2])
            self.assertTrue(done)
            self.assertEqual(wverl.compute_score("wasmenv/store", "", "", {"tool_rewards": rewards,
                                                                          "turn_scores": turns}),
                             {"score": 1.0, "env_fault": 0.0})
            await wverl.aclose()
        asyncio.run(main())

    def test_nemo_gym(self):
        # make_dataset's row, then NeMo Gym's gymnasium_agent loop
        # (responses_api_agents/gymnasium_agent/app.py at NVIDIA-NeMo/Gym
        # 07d6b0d0): reset, the observation appended as the user's message;
        # per model response a step, tool_outputs appended as
        # function_call_output and the observation as the user's message;
        # rewards summed until terminated; close; cookies carried along.
        mk = example_module("nemo-gym", "make_dataset.py")
        row = [r for r in mk.rows(self.client, "store", 1) if r["task"] == TASK][0]
        self.assertEqual(row["responses_create_params"]["input"], [{"role": "system", "content": self.rules}])
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

        def post(path, body):
            req = urllib.request.Request(self.server.url + "/nemo-gym/store/" + path, data=json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
            with opener.open(req, timeout=60) as resp:
                return json.loads(resp.read())

        with self.assertRaises(urllib.error.HTTPError) as ctx:
            post("seed_session", row)  # simple_agent cannot talk to the user
        self.assertEqual(ctx.exception.code, 409)
        said = lambda text: {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
        calls = [{"type": "function_call", "name": n, "arguments": json.dumps(a), "call_id": "call_%d" % i}
                 for i, (n, a) in enumerate(CALLS)]
        model = [[said(AGENT[0])], calls[:2], [said(AGENT[1])], calls[2:], [said(AGENT[2])]]
        reset = post("reset", row)
        self.assertTrue(reset["info"]["supports_explicit_close"])
        model_input = row["responses_create_params"]["input"] + [{"role": "user", "content": reset["observation"]}]
        self.assert_opening(model_input)
        total, step = 0.0, None
        for output in model:
            model_input = model_input + output
            step = post("step", dict(row, response={"id": "resp", "object": "response", "output": output}))
            total += step["reward"]
            if step["terminated"] or step["truncated"]:
                break
            for o in step["info"].get("tool_outputs", []):
                model_input.append({"type": "function_call_output", "call_id": o["call_id"], "output": o["output"]})
            if step["observation"]:
                model_input.append({"role": "user", "content": step["observation"]})
        post("close", {})
        self.assertEqual((step["terminated"], total), (True, 1.0))
        self.assertEqual([m["content"] for m in model_input if m.get("role") == "user"][1:],
                         ["Sure, it's olivia.chen@example.com and the order is #W1002.", "Yes, please cancel it."])
        self.assertEqual([m["call_id"] for m in model_input if m.get("type") == "function_call_output"],
                         ["call_0", "call_1", "call_2"])
        self.assertNotIn(GOAL, json.dumps(model_input))

    def test_trl_opening(self):
        Env = wtrl.environment_factory(self.server.url, "store")
        row = [r for r in wtrl.rows(Env) if r["task"] == TASK][0]
        inst = Env()
        opening = inst.reset(**row)
        self.assert_opening(row["prompt"][:-1] + [{"role": "user", "content": opening}])
        inst._rollout.close()


if __name__ == "__main__":
    unittest.main()
