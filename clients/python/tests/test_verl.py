"""The verl adapter against a real `wasmenv serve`, driven in the order verl
calls it, as read in volcengine/verl b178a3cd56f58b2d502255daba591e92833930a7:

- verl/experimental/agent_loop/tool_agent_loop.py, ToolAgentLoop._call_tool:
  for each tool call, `instance_id, _ = await tool.create(create_kwargs=
  tools_kwargs[name].get("create_kwargs", {}))`, then `await
  tool.execute(instance_id, json.loads(arguments), agent_data=agent_data)`,
  then `await tool.release(instance_id)` in a finally; the calls of one turn
  run concurrently (asyncio.gather); tool rewards are kept in
  extra_fields["tool_rewards"]; agent_data has request_id and tools_kwargs.
- verl/tools/base_tool.py, BaseTool: create(instance_id=None, **kwargs) ->
  (id, ToolResponse); execute(...) -> (ToolResponse, reward, metrics);
  calc_reward(instance_id) -> float; release(instance_id).
- verl/tools/schemas.py: OpenAIFunctionToolSchema, whose property model has
  only type (a string), description and enum (strings); required a list.
- verl/tools/utils/tool_registry.py: the class is found with
  getattr(module, class_name) and built as tool_cls(config=..., tool_schema=...).
- ToolAgentLoop with an interaction (interaction_config_path): a reply
  without a tool call goes to interaction.generate_response(request_id,
  messages, **extra_info["interaction_kwargs"]) -> (terminate, user text,
  turn score, metrics); turn scores are kept in extra_fields["turn_scores"];
  verl/experimental/reward_loop/reward_manager/naive.py merges extra_fields
  into the extra_info compute_score gets, and takes a dict's "score".

verl is not installed here: the test drives WasmenvToolLogic (all of
WasmenvTool but its BaseTool base) with those calls.
"""

import asyncio
import json
import math
import types
import unittest
import uuid

import subprocess

from tests.server import Server, built
from wasmenv_client import Client
from wasmenv_client import verl as wverl


def schema_obj(d):
    """The attribute access verl's pydantic model gives (tool_schema.function.name)."""
    return json.loads(json.dumps(d), object_hook=lambda o: types.SimpleNamespace(**o))


class VerlTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.client = Client(cls.server.url)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        assert cls.server.stop() == 0

    def tools(self, **extra):
        config = dict(type="native", url=self.server.url, env="mini", **extra)
        return {t["name"]: wverl.WasmenvToolLogic(config, schema_obj(wverl.verl_schema(t)))
                for t in self.client.tools("mini")}, config

    async def call_tool(self, tools, name, arguments, agent_data):
        # ToolAgentLoop._call_tool, step for step.
        tool, instance_id = tools[name], None
        try:
            kwargs = agent_data.tools_kwargs.get(name, {})
            instance_id, _ = await tool.create(create_kwargs=kwargs.get("create_kwargs", {}))
            resp, reward, metrics = await tool.execute(instance_id, json.loads(arguments), agent_data=agent_data)
        finally:
            if tool and instance_id:
                await tool.release(instance_id)
        return resp.text, reward, metrics

    def test_agent_loop_order(self):
        tools, config = self.tools()

        async def trajectory(turns):
            ad = types.SimpleNamespace(request_id=uuid.uuid4().hex, tool_rewards=[],
                                       tools_kwargs={"put": {"create_kwargs": {"task": "put-d", "seed": 2}}})
            texts = []
            for calls in turns:  # the calls of one turn run at once
                outs = await asyncio.gather(*(self.call_tool(tools, n, a, ad) for n, a in calls))
                for text, reward, _ in outs:
                    texts.append(text)
                    ad.tool_rewards.append(reward)
            # verl's reward function sees the tool rewards in extra_info.
            got = wverl.compute_score("wasmenv", "", None, {"tool_rewards": ad.tool_rewards})
            self.assertAlmostEqual(got["score"], sum(ad.tool_rewards))
            self.assertEqual(got["env_fault"], 0.0)
            score = await wverl.release_trajectory(config, ad.request_id)
            return texts, ad.tool_rewards, score

        async def main():
            gt = [[("get", '{"key": "a"}')], [("put", '{"key": "d", "value": "date", "n": 4}'),
                                               ("get", '{"key": "b"}')]]
            texts, rewards, score = await trajectory(gt)
            self.assertEqual(json.loads(texts[0])["v"], "apple")
            self.assertEqual(score, 1.0)
            self.assertAlmostEqual(sum(rewards), 1.0)
            texts, rewards, score = await trajectory([[("get", '{"key": "zzz"}')]])
            self.assertTrue(texts[0].startswith("Error: "))
            self.assertLess(score, 1.0)
            self.assertAlmostEqual(sum(rewards), score)
            # No tool call at all: no episode, nothing to score.
            self.assertIsNone(await wverl.release_trajectory(config, "never-called"))
            self.assertEqual((await self_client_stats())["episodes"], 0)
            await wverl.aclose()

        async def self_client_stats():
            return self.client.stats()

        asyncio.run(main())

    def test_trajectories_bounded(self):
        tools, config = self.tools(max_trajectories=3)

        async def main():
            for i in range(5):
                ad = types.SimpleNamespace(request_id="r%d" % i, tools_kwargs={})
                await self.call_tool(tools, "get", '{"key": "a"}', ad)
            self.assertEqual(self.client.stats()["episodes"], 3)
            for i in range(5):
                await wverl.release_trajectory(config, "r%d" % i)
            self.assertEqual(self.client.stats()["episodes"], 0)
            await wverl.aclose()
        asyncio.run(main())

    def test_per_trajectory_contract(self):
        # BaseTool's documented order: create once, execute, calc_reward, release.
        tools, _ = self.tools()

        async def main():
            put = tools["put"]
            iid, _ = await put.create(create_kwargs={"task": "put-d", "seed": 0})
            self.assertEqual(await put.calc_reward(iid), 0.0)  # nothing done yet
            resp, reward, metrics = await put.execute(iid, {"key": "d", "value": "date", "n": 4})
            self.assertEqual((resp.text, reward, metrics["outcome"]), ("ok", 1.0, "ok"))
            self.assertEqual(await put.calc_reward(iid), 1.0)
            self.assertEqual(self.client.stats()["episodes"], 1)
            await put.release(iid)
            self.assertEqual(self.client.stats()["episodes"], 0)
            # An environment failure shows in the metrics, with no reward.
            abuse = tools["abuse"]
            iid, _ = await abuse.create(create_kwargs={"task": "put-d"})
            resp, reward, metrics = await abuse.execute(iid, {"mode": "panic"})
            self.assertIn("env_fault", metrics)
            self.assertTrue(math.isnan(reward))
            self.assertTrue(math.isnan(await abuse.calc_reward(iid)))
            await abuse.release(iid)
            await wverl.aclose()
        asyncio.run(main())

    def test_env_fault_midway_is_no_reward(self):
        # A trajectory that earned part of its score, then hit an
        # environment failure: verl must not train on the partial score
        # (the core's rule is "no reward"); compute_score flags it.
        tools, config = self.tools()

        async def main():
            ad = types.SimpleNamespace(request_id="fault-midway", tool_rewards=[],
                                       tools_kwargs={"put": {"create_kwargs": {"task": "put-d"}}})
            for name, args in (("put", '{"key": "d", "value": "date", "n": 4}'), ("abuse", '{"mode": "panic"}')):
                _, reward, _ = await self.call_tool(tools, name, args, ad)
                ad.tool_rewards.append(reward)
            self.assertEqual(ad.tool_rewards[0], 1.0)
            got = wverl.compute_score("wasmenv/mini", "", "", {"tool_rewards": ad.tool_rewards})
            self.assertEqual(got, {"score": 0.0, "env_fault": 1.0})
            self.assertIsNone(await wverl.release_trajectory(config, "fault-midway"))
            await wverl.aclose()
        asyncio.run(main())

    def test_interaction_scores_the_answer(self):
        # delete-a checks the answer "avocado": the tools alone earn part
        # of the score, the interaction's turn score the rest.
        tools, config = self.tools()
        inter = wverl.WasmenvInteractionLogic(dict(config, name="wasmenv"))

        async def main():
            for answer, want in (("It held avocado.", 1.0), ("Deleted.", None)):
                ad = types.SimpleNamespace(request_id=uuid.uuid4().hex, tool_rewards=[],
                                           tools_kwargs={"delete": {"create_kwargs": {"task": "delete-a"}}})
                _, reward, _ = await self.call_tool(tools, "delete", '{"keys": ["a"]}', ad)
                kw = {"name": "wasmenv", "task": "delete-a", "seed": 0}
                done, text, turn, _ = await inter.generate_response(
                    ad.request_id, [{"role": "user", "content": "Delete key a."},
                                    {"role": "assistant", "content": "<think>hm</think>" + answer}], **kw)
                self.assertEqual((done, text), (True, ""))
                got = wverl.compute_score("wasmenv/mini", answer, "", {"tool_rewards": [reward],
                                                                      "turn_scores": [turn]})
                if want is not None:
                    self.assertEqual(got["score"], want)
                else:
                    self.assertLess(got["score"], 1.0)
                    self.assertEqual(got["score"], reward + turn)
            # The interaction ended each trajectory and its episode.
            self.assertEqual(self.client.stats()["episodes"], 0)
            await wverl.aclose()
        asyncio.run(main())

    def test_schema_fits_verls_model(self):
        for t in self.client.tools("mini"):
            s = wverl.verl_schema(t)
            f = s["function"]
            self.assertEqual(f["name"], t["name"])
            self.assertIsInstance(f["parameters"]["required"], list)
            for p in f["parameters"]["properties"].values():
                self.assertIsInstance(p["type"], str)
                self.assertTrue(set(p) <= {"type", "description", "enum"}, p)
                self.assertTrue(all(isinstance(v, str) for v in p.get("enum", [])))
        s = wverl.verl_schema({"name": "x", "inputSchema": {"properties": {
            "a": {"type": ["integer", "null"]}, "b": {"enum": [1, 2]}}}})
        self.assertEqual(s["function"]["parameters"], {"type": "object", "required": [], "properties": {
            "a": {"type": "integer"}, "b": {"type": "string"}}})

    def test_export_command_writes_the_same_schemas(self):
        # `wasmenv export verl-tools` (Go) and verl_schema (Python) follow one rule.
        try:
            import yaml
        except ImportError:
            self.skipTest("no PyYAML to read the YAML")
        binary, bundle = built()
        out = subprocess.run([binary, "export", "verl-tools", bundle, "--url", self.server.url,
                              "--token-env", "MY_TOKEN"], check=True, capture_output=True, text=True).stdout
        doc = yaml.safe_load(out)
        tools = {t["name"]: t for t in self.client.tools("mini")}
        self.assertEqual([t["tool_schema"]["function"]["name"] for t in doc["tools"]], list(tools))
        for entry in doc["tools"]:
            self.assertEqual(entry["class_name"], wverl.CLASS_NAME)
            self.assertEqual(entry["config"], {"type": "native", "url": self.server.url, "env": "mini",
                                               "token_env": "MY_TOKEN"})
            self.assertEqual(entry["tool_schema"], wverl.verl_schema(tools[entry["tool_schema"]["function"]["name"]]))

    def test_class_needs_verl(self):
        try:
            import verl  # noqa: F401
        except ImportError:
            for name in ("WasmenvTool", "WasmenvInteraction"):
                with self.assertRaises(ImportError) as cm:
                    getattr(wverl, name)
                self.assertIn("install verl", str(cm.exception))
        else:
            self.skipTest("verl is installed")


if __name__ == "__main__":
    unittest.main()
