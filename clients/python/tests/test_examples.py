"""The examples/ scripts, run against a real `wasmenv serve` up to the point
where their framework is needed, and the rows they write played through the
adapters (or, for NeMo Gym, through the HTTP calls its simple_agent makes)
to a ground-truth score of 1.0."""

import asyncio
import http.cookiejar
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
import urllib.request

from tests.server import REPO, Server, built
from wasmenv_client import Client
from wasmenv_client import skyrl as wsky
from wasmenv_client import verl as wverl

EXAMPLES = os.path.join(REPO, "examples")
CLIENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def has(module):
    return importlib.util.find_spec(module) is not None


def run_example(*args):
    env = dict(os.environ, PYTHONPATH=CLIENT)
    return subprocess.run([sys.executable] + list(args), capture_output=True, text=True, env=env, timeout=120)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


class ExamplesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.client = Client(cls.server.url)
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.tmp.cleanup()
        assert cls.server.stop() == 0

    def out(self, name):
        return os.path.join(self.tmp.name, name)

    def test_trl(self):
        if has("trl"):
            self.skipTest("TRL is installed: the script would train")
        r = run_example(os.path.join(EXAMPLES, "trl", "train_grpo.py"), "--url", self.server.url, "--env", "mini",
                        "--seeds", "2")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("environment mini: 6 tools (abuse, delete, get, list, put, roll), 6 rows", r.stdout)
        self.assertIn("install TRL", r.stderr)

    def test_verl(self):
        path = self.out("verl.jsonl")
        r = run_example(os.path.join(EXAMPLES, "verl", "make_dataset.py"), "--url", self.server.url, "--env", "mini",
                        "--format", "jsonl", "--seeds", "2", "-o", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = read_jsonl(path)
        self.assertEqual(len(rows), 6)
        row = [x for x in rows if x["extra_info"]["task"] == "put-d"][0]
        self.assertEqual(row["agent_name"], "tool_agent")
        kw = row["extra_info"]["tools_kwargs"]
        self.assertEqual(sorted(kw), ["abuse", "delete", "get", "list", "put", "roll"])
        self.assertEqual(subprocess.run(["sh", "-n", os.path.join(EXAMPLES, "verl", "run.sh")]).returncode, 0)

        # The row through the tools, as verl's ToolAgentLoop passes it.
        config = {"type": "native", "url": self.server.url, "env": "mini"}
        tools = {t["name"]: wverl.WasmenvToolLogic(config, json.loads(
            json.dumps(wverl.verl_schema(t)), object_hook=lambda o: types.SimpleNamespace(**o)))
            for t in self.client.tools("mini")}

        async def main():
            ad = types.SimpleNamespace(request_id="row-put-d", tools_kwargs=kw)
            put = tools["put"]
            iid, _ = await put.create(create_kwargs=kw["put"]["create_kwargs"])
            _, reward, _ = await put.execute(iid, {"key": "d", "value": "date", "n": 4}, agent_data=ad)
            await put.release(iid)
            self.assertEqual(wverl.compute_score(extra_info={"tool_rewards": [reward]})["score"], 1.0)
            self.assertEqual(await wverl.release_trajectory(config, "row-put-d"), 1.0)
            await wverl.aclose()
        asyncio.run(main())

    def test_skyrl(self):
        path = self.out("skyrl.jsonl")
        r = run_example(os.path.join(EXAMPLES, "skyrl", "make_dataset.py"), "--url", self.server.url, "--env", "mini",
                        "--format", "jsonl", "-o", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        row = [x for x in read_jsonl(path) if x["task"] == "put-d"][0]
        self.assertEqual(row["env_class"], "wasmenv")
        # What SkyRL's dataset hands the environment: the row less prompt and env_class.
        extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")}
        env = wsky.WasmenvTextEnvLogic({}, dict(extras, max_turns=4))
        prompt, _ = env.init(row["prompt"])
        self.assertEqual(prompt, row["prompt"])
        env.step('<tool_call>{"name": "put", "arguments": {"key": "d", "value": "date", "n": 4}}</tool_call>')
        self.assertEqual(env.step("Done.")["reward"], 1.0)
        env.close()
        if not has("skyrl"):
            r = run_example(os.path.join(EXAMPLES, "skyrl", "main_wasmenv.py"))
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("install SkyRL", r.stderr)

    def test_nemo_gym(self):
        path = self.out("gym.jsonl")
        r = run_example(os.path.join(EXAMPLES, "nemo-gym", "make_dataset.py"), "--url", self.server.url,
                        "--env", "mini", "--seeds", "1", "-o", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        row = [x for x in read_jsonl(path) if x["task"] == "put-d"][0]
        self.assertEqual([t["name"] for t in row["responses_create_params"]["tools"]],
                         [t["name"] for t in self.client.tools("mini")])

        # The entrypoint's command serves the NeMo Gym routes at the root.
        spec = importlib.util.spec_from_file_location(
            "gym_app", os.path.join(EXAMPLES, "nemo-gym", "wasmenv_resources_server", "app.py"))
        app = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(app)
        binary, bundle = built()
        argv = app.command({"host": "127.0.0.1", "port": 0, "bundle": bundle, "env": "mini"}, binary=binary)
        with self.assertRaises(ValueError):
            app.command({"host": "127.0.0.1", "port": 1})
        # The simulated user's keys become serve's flags (for gymnasium_agent).
        self.assertEqual(app.command({"host": "h", "port": 1, "bundle": "b", "env": "e", "user": "openai",
                                      "user_base_url": "http://127.0.0.1:9/v1", "user_model": "m"}, binary="w"),
                         ["w", "serve", "b", "--nemo-gym-root", "e", "--addr", "h:1", "--user", "openai",
                          "--user-base-url", "http://127.0.0.1:9/v1", "--user-model", "m"])
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            url = proc.stdout.readline().strip()[len("listening on "):]
            # simple_agent's calls: seed_session, each tool, verify; the
            # cookies of each answer go with the next request.
            jar = http.cookiejar.CookieJar()
            opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

            def post(p, body):
                req = urllib.request.Request(url + p, data=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"})
                with opener.open(req, timeout=30) as resp:
                    return resp.read().decode()

            with opener.open(url + "/", timeout=30) as resp:
                self.assertEqual(json.loads(resp.read())["status"], "ok")
            self.assertEqual(json.loads(post("/seed_session", row)), {})
            self.assertEqual(post("/put", {"key": "d", "value": "date", "n": 4}), "ok")
            self.assertIn("date", post("/get", {"key": "d"}))
            verify = dict(row, response={"output": [{"type": "message", "role": "assistant",
                                                     "content": [{"type": "output_text", "text": "Done."}]}]})
            self.assertEqual(json.loads(post("/verify", verify))["reward"], 1.0)
        finally:
            proc.terminate()
            proc.wait(timeout=15)
            proc.stdout.close()
            proc.stderr.close()
        if not has("nemo_gym"):
            r = run_example(os.path.join(EXAMPLES, "nemo-gym", "wasmenv_resources_server", "app.py"))
            self.assertEqual(r.returncode, 2, r.stderr)

    def test_nemo_gym_gymnasium_scripted_user(self):
        # The entrypoint with user: scripted (`wasmenv serve --user scripted
        # --nemo-gym-root mini`), driven as gymnasium_agent drives it at the
        # root: reset opens with the user's line, a function call runs as a
        # tool, a reply without calls goes to the user, whose stop ends the
        # episode with the task's score; close; cookies carried along.
        spec = importlib.util.spec_from_file_location(
            "gym_app", os.path.join(EXAMPLES, "nemo-gym", "wasmenv_resources_server", "app.py"))
        app = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(app)
        binary, bundle = built()
        argv = app.command({"host": "127.0.0.1", "port": 0, "bundle": bundle, "env": "mini", "user": "scripted"},
                           binary=binary)
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            url = proc.stdout.readline().strip()[len("listening on "):]
            opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))

            def post(p, body):
                req = urllib.request.Request(url + p, data=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"})
                with opener.open(req, timeout=30) as resp:
                    return json.loads(resp.read())

            row = {"responses_create_params": {"input": []}, "task": "put-d", "seed": 0}
            reset = post("/reset", row)
            self.assertEqual(reset["observation"], 'Store "date" under key d with counter 4.')
            call = {"type": "function_call", "name": "put", "call_id": "c1",
                    "arguments": json.dumps({"key": "d", "value": "date", "n": 4})}
            step = post("/step", dict(row, response={"output": [call]}))
            self.assertEqual((step["terminated"], step["info"]["tool_outputs"]),
                             (False, [{"call_id": "c1", "output": "ok", "outcome": "ok"}]))
            said = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Stored."}]}
            step = post("/step", dict(row, response={"output": [said]}))
            self.assertEqual((step["terminated"], step["reward"], step["observation"]), (True, 1.0, "###STOP###"))
            self.assertEqual(post("/close", {}), {})
        finally:
            proc.terminate()
            proc.wait(timeout=15)
            proc.stdout.close()
            proc.stderr.close()


if __name__ == "__main__":
    unittest.main()
