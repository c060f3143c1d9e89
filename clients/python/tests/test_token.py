"""Every adapter finds the server's bearer token the same way
(core.bearer_token): the token given, else the variable a token_env names,
else $WASMENV_TOKEN, as `wasmenv serve` itself reads it. (TRL and verl once
took it only as an argument or a named variable; SkyRL only from
$WASMENV_TOKEN.)"""

import asyncio
import json
import os
import types
import unittest
from unittest import mock

from tests.server import Server
from wasmenv_client import skyrl as wsky
from wasmenv_client import trl as wtrl
from wasmenv_client import verl as wverl

TOKEN = "adapter-token"


class TokenTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server(token=TOKEN)

    @classmethod
    def tearDownClass(cls):
        assert cls.server.stop() == 0

    def trl_works(self):
        inst = wtrl.environment_factory(self.server.url, "mini")()
        self.assertIn("date", inst.reset(task="put-d"))
        inst._rollout.close()

    def verl_works(self, **config):
        config = dict(type="native", url=self.server.url, env="mini", **config)
        tool = wverl.WasmenvToolLogic(config, json.loads(json.dumps(wverl.verl_schema(
            {"name": "put", "inputSchema": {}})), object_hook=lambda o: types.SimpleNamespace(**o)))

        async def main():
            iid, _ = await tool.create(create_kwargs={"task": "put-d"})
            _, reward, metrics = await tool.execute(iid, {"key": "d", "value": "date", "n": 4})
            await tool.release(iid)
            await wverl.aclose()
            return reward, metrics
        self.assertEqual(asyncio.run(main()), (1.0, {"outcome": "ok"}))

    def skyrl_works(self, **config):
        sky = wsky.WasmenvTextEnvLogic(dict(url=self.server.url, env="mini", **config), {"task": "put-d"})
        self.assertIn("date", sky.init([])[0][-1]["content"])
        sky.close()

    def test_wasmenv_token_variable(self):
        with mock.patch.dict(os.environ, {"WASMENV_TOKEN": TOKEN}):
            self.trl_works()
            self.verl_works()
            self.skyrl_works()

    def test_named_variable(self):
        with mock.patch.dict(os.environ, {"MY_TOKEN": TOKEN}):
            os.environ.pop("WASMENV_TOKEN", None)
            self.verl_works(token_env="MY_TOKEN")
            self.skyrl_works(token_env="MY_TOKEN")


if __name__ == "__main__":
    unittest.main()
