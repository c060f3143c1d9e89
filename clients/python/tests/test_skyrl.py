"""The SkyRL adapter against a real `wasmenv serve`, driven in the order
SkyRL calls it, as read in NovaSky-AI/SkyRL a9564572eb8e91076be43c1bd5e4615e3de17265:

- skyrl/train/generators/skyrl_gym_generator.py: env_extras["max_turns"] is
  set, then skyrl_gym.make(env_class, env_config=..., extras=env_extras),
  `chat_history, _ = env.init(chat_history)`, then `env.step(output)` per
  completion until output["done"], reading observations, reward, done,
  metadata; then env.close().
- skyrl-gym/skyrl_gym/envs/base_text_env.py: BaseTextEnvStepOutput is
  {observations: [messages], reward, done, metadata, postprocessed_action}.

skyrl-gym is not installed here: the test drives WasmenvTextEnvLogic (all of
WasmenvTextEnv but its BaseTextEnv base). The tool-call cases are those of
the Go engine's rl/toolcalls_test.go (TestTextToolCalls), so the two parsers
read the same calls.
"""

import json
import unittest

from tests.server import Server
from wasmenv_client import Client, parse_tool_calls
from wasmenv_client import skyrl as wsky


def tc(name, args):
    return "<tool_call>%s</tool_call>" % json.dumps({"name": name, "arguments": args})


class ParserTest(unittest.TestCase):
    def test_go_engine_cases(self):
        got = parse_tool_calls(
            "Let me look.\n<tool_call>\n{\"name\": \"find_customer_by_email\", \"arguments\": {\"email\": "
            "\"olivia.chen@example.com\"}}\n</tool_call>\n<tool_call>{\"name\": \"get_order\", \"arguments\": "
            "\"{\\\"order_id\\\": \\\"#W1002\\\"}\"}</tool_call>")
        self.assertEqual([(c.name, json.loads(c.arguments), c.malformed) for c in got], [
            ("find_customer_by_email", {"email": "olivia.chen@example.com"}, ""),
            ("get_order", {"order_id": "#W1002"}, "")])
        self.assertEqual(got[1].arguments, '{"order_id": "#W1002"}')  # a string is passed as is
        bad = parse_tool_calls("<tool_call>{\"name\": \"cancel_order\", \"arguments\": {\"order_id\": \"#W1002\", </tool_call>")
        self.assertEqual(bad[0].name, "cancel_order")
        self.assertTrue(bad[0].malformed.startswith("the <tool_call> block is not valid JSON"))
        # An unclosed last block (the model stopped at its stop token) counts.
        last = parse_tool_calls("<tool_call>{\"name\": \"cancel_order\", \"arguments\": {\"order_id\": \"#W1002\"}}")
        self.assertEqual((last[0].name, last[0].malformed), ("cancel_order", ""))
        self.assertEqual(parse_tool_calls("Your order is cancelled."), [])
        self.assertEqual(parse_tool_calls('<tool_call>{"name": "x", "parameters": {"a": 1}}</tool_call>')[0].arguments,
                         '{"a":1}')
        # An empty object stays an object (tests/test_toolcall_parity.py found it read as []).
        self.assertEqual(parse_tool_calls('<tool_call>{"name": "x", "arguments": {}}</tool_call>')[0].arguments, "{}")
        self.assertEqual(parse_tool_calls('<tool_call>{"name": "x", "arguments": {"a": {}, "b": []}}</tool_call>')[0]
                         .arguments, '{"a":{},"b":[]}')
        self.assertEqual(parse_tool_calls('<tool_call>{"arguments": {}}</tool_call>')[0].malformed,
                         'the <tool_call> block has no "name"')


class SkyRLTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.client = Client(cls.server.url)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        assert cls.server.stop() == 0

    def run_trajectory(self, completions, extras, max_turns=5):
        config = {"url": self.server.url, "env": "mini"}
        env = wsky.WasmenvTextEnvLogic(config, dict(extras, max_turns=max_turns))
        prompt, meta = env.init([])
        self.assertEqual([m["role"] for m in prompt], ["system", "user"])  # the rules, then the task
        self.assertIn("date", prompt[1]["content"])
        outs = []
        try:
            for c in completions:
                out = env.step(c)
                outs.append(out)
                if out["done"]:
                    break
        finally:
            env.close()
        return outs

    def test_ground_truth_scores_one(self):
        outs = self.run_trajectory([
            "I'll read a first.\n" + tc("get", {"key": "a"}),
            tc("put", {"key": "d", "value": "date", "n": 4}) + tc("get", {"key": "d"}),
            "Stored.",
        ], {"task": "put-d", "seed": 3})
        self.assertEqual([o["done"] for o in outs], [False, False, True])
        self.assertEqual([o["reward"] for o in outs], [0.0, 0.0, 1.0])
        obs = outs[1]["observations"]
        self.assertEqual(len(obs), 1)
        self.assertEqual(obs[0]["role"], "user")
        self.assertEqual(obs[0]["content"].count("<tool_response>"), 2)
        self.assertIn('"v":"date"', obs[0]["content"].replace(" ", ""))
        self.assertEqual(self.client.stats()["episodes"], 0)

    def test_empty_trajectory_scores_below(self):
        outs = self.run_trajectory(["I won't do anything."], {"extra_info": {"task": "put-d"}})
        self.assertTrue(outs[0]["done"])
        self.assertLess(outs[0]["reward"], 1.0)

    def test_turn_limit_and_faults(self):
        outs = self.run_trajectory([tc("get", {"key": "a"})] * 5, {"task": "put-d"}, max_turns=2)
        self.assertEqual(len(outs), 2)
        self.assertTrue(outs[1]["done"])
        outs = self.run_trajectory(["<tool_call>{broken</tool_call>", tc("abuse", {"mode": "panic"})],
                                   {"task": "put-d"})
        self.assertIn("Error: the <tool_call> block is not valid JSON", outs[0]["observations"][0]["content"])
        self.assertTrue(outs[1]["done"])
        self.assertEqual(outs[1]["reward"], 0.0)
        self.assertIn("env_fault", outs[1]["metadata"])

    def test_class_needs_skyrl_gym(self):
        try:
            import skyrl_gym  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError) as cm:
                getattr(wsky, "WasmenvTextEnv")
            self.assertIn("install skyrl-gym", str(cm.exception))
        else:
            self.skipTest("skyrl-gym is installed")


if __name__ == "__main__":
    unittest.main()
