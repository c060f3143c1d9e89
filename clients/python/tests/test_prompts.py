"""The prompt every adapter and example builds is the one `wasmenv rollout`
sends (rl/rollout.go): the environment's rules as the system message, then
the task's instruction as the user's. Compared with the first two messages
of a real `wasmenv rollout --policy oracle` trajectory, for an environment
with one-line rules (mini) and one with a multi-line policy (store)."""

import importlib.util
import json
import os
import subprocess
import unittest
import urllib.request

from tests.server import REPO, Server, built, example_bundle
from wasmenv_client import Client, Rollout
from wasmenv_client import skyrl as wsky
from wasmenv_client import trl as wtrl
from wasmenv_client.core import opening_messages

CASES = (("mini", "delete-a"), ("store", "cancel-pending-order-mistake"))


def example_module(*path):
    spec = importlib.util.spec_from_file_location("example_" + path[0], os.path.join(REPO, "examples", *path))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def trl_renders(prompt, observation):
    # GRPOTrainer._generate_and_score_completions (huggingface/trl
    # f2cd57710ae3): reset()'s string is appended to the last prompt message.
    if observation is None:
        return prompt
    return prompt[:-1] + [{**prompt[-1], "content": prompt[-1]["content"] + observation}]


class PromptTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bundles = {"mini": built()[1], "store": example_bundle("store")}
        cls.server = Server(cls.bundles["store"])
        cls.client = Client(cls.server.url)
        binary = built()[0]
        cls.want = {}
        for env, task in CASES:
            out = subprocess.run([binary, "rollout", cls.bundles[env], "--policy", "oracle", "--group", "1",
                                  "--inline-tools", "--tasks", task, "-q", "-o", "-"],
                                 capture_output=True, text=True, check=True).stdout
            cls.want[env] = json.loads(out.splitlines()[0])["messages"][:2]

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        assert cls.server.stop() == 0

    def test_rollout_sends_rules_then_instruction(self):
        for env, _ in CASES:
            self.assertEqual([m["role"] for m in self.want[env]], ["system", "user"])
            self.assertEqual(self.want[env][0]["content"], self.client.env_info(env)["rules"])

    def test_core(self):
        for env, task in CASES:
            r = Rollout(self.client, env, task)
            r.start()
            self.assertEqual(r.messages(), self.want[env])
            r.close()

    def test_trl(self):
        for env, task in CASES:
            Env = wtrl.environment_factory(self.server.url, env)
            row = [r for r in wtrl.rows(Env) if r["task"] == task][0]
            inst = Env()
            self.assertEqual(trl_renders(row["prompt"], inst.reset(**row)), self.want[env])
            inst._rollout.close()

    def test_verl_dataset(self):
        mk = example_module("verl", "make_dataset.py")
        for env, task in CASES:
            row = [r for r in mk.rows(self.client, env, 1) if r["extra_info"]["task"] == task][0]
            self.assertEqual(row["prompt"], self.want[env])
            self.assertEqual(row["extra_info"]["interaction_kwargs"], {"name": "wasmenv", "task": task, "seed": 0})

    def test_skyrl(self):
        mk = example_module("skyrl", "make_dataset.py")
        for env, task in CASES:
            row = [r for r in mk.rows(self.client, self.server.url, env, 1) if r["task"] == task][0]
            self.assertEqual(row["prompt"], self.want[env])
            sky = wsky.WasmenvTextEnvLogic({"url": self.server.url, "env": env}, {"task": task})
            self.assertEqual(sky.init([])[0], self.want[env])
            sky.close()

    def test_nemo_gym_dataset(self):
        mk = example_module("nemo-gym", "make_dataset.py")
        for env, task in CASES:
            row = [r for r in mk.rows(self.client, env, 1) if r["task"] == task][0]
            self.assertEqual(row["responses_create_params"]["input"], self.want[env])

    def test_openenv(self):
        for env, task in CASES:
            req = urllib.request.Request(self.server.url + "/reset", data=json.dumps({"env": env, "task": task}).encode(),
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=30) as resp:
                obs = json.loads(resp.read())["observation"]
            self.assertEqual(opening_messages(obs["rules"], obs["instruction"]), self.want[env])
            self.client.episode(obs["episode_id"]).delete()


if __name__ == "__main__":
    unittest.main()
