import json
import threading
import unittest
import urllib.error
import urllib.request

from fixtures import CONVO, TOOLS, small_model, store_tokenizer, template

from wasmlearn import device
from wasmlearn.server import Policy, Server
from wasmlearn.trainer import Trainer


def post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


class ServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tok = store_tokenizer()
        tpl = template(tok)
        model = small_model(tok)
        dev = device.pick("cpu")
        tr = Trainer(model, tok, dev, lr=3e-3)
        ids, mask = tpl.render(CONVO, TOOLS)
        for _ in range(80):
            tr.sft_step([{"ids": ids, "mask": mask}])
        cls.policy = Policy(model.eval(), tok, tpl, dev)
        cls.server = Server(cls.policy, batch_wait_s=0.05).start()
        cls.url = cls.server.url + "/chat/completions"

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    def test_tool_call_with_logprobs_and_token_ids(self):
        status, r = post(self.url, {"model": "wasmlearn", "messages": CONVO[:2], "tools": TOOLS,
                                    "temperature": 0, "logprobs": True, "return_token_ids": True})
        self.assertEqual(status, 200, r)
        ch = r["choices"][0]
        self.assertEqual(ch["finish_reason"], "tool_calls")
        call = ch["message"]["tool_calls"][0]
        self.assertEqual(call["type"], "function")
        self.assertEqual(call["function"]["name"], "find_customer_by_email")
        self.assertEqual(json.loads(call["function"]["arguments"]), {"email": "olivia.chen@example.com"})
        toks = ch["logprobs"]["content"]
        self.assertEqual(len(toks), len(ch["token_ids"]))
        self.assertTrue(all(t["logprob"] <= 0 for t in toks))
        self.assertEqual(r["usage"]["completion_tokens"], len(ch["token_ids"]))
        self.assertEqual(r["usage"]["prompt_tokens"], len(r["prompt_token_ids"]))
        tok = self.policy.tok
        self.assertEqual("".join(t["token"] for t in toks), tok.decode(ch["token_ids"]))

    def test_concurrent_requests_are_batched(self):
        before = dict(self.policy.stats)
        out = [None] * 6
        body = {"messages": CONVO[:4], "tools": TOOLS, "temperature": 0}

        def go(i):
            out[i] = post(self.url, body)

        ts = [threading.Thread(target=go, args=(i,)) for i in range(6)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertTrue(all(s == 200 for s, _ in out), out)
        names = {r["choices"][0]["message"]["tool_calls"][0]["function"]["name"] for _, r in out}
        self.assertEqual(names, {"cancel_order"})
        self.assertLess(self.policy.stats["batches"] - before["batches"], 6)

    def test_client_errors_are_400(self):
        for body in [{"messages": []}, {"messages": "hi"}, {"messages": CONVO[:2], "n": 0},
                     {"messages": CONVO[:2], "max_tokens": -1},
                     {"messages": [{"role": "wizard", "content": "x"}]}]:
            status, r = post(self.url, body)
            self.assertEqual(status, 400, body)
            self.assertIn("message", r["error"])
        req = urllib.request.Request(self.url, data=b"{not json", headers={"Content-Type": "application/json"})
        with self.assertRaises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=10)
        self.assertEqual(e.exception.code, 400)
        long = [{"role": "user", "content": "word " * 2000}]
        status, r = post(self.url, {"messages": long})
        self.assertEqual((status, r["error"]["code"]), (400, "context_length_exceeded"))

    def test_n_samples(self):
        status, r = post(self.url, {"messages": CONVO[:2], "tools": TOOLS, "n": 3, "max_tokens": 5})
        self.assertEqual(status, 200)
        self.assertEqual(len(r["choices"]), 3)
        self.assertTrue(all(c["finish_reason"] in ("length", "stop", "tool_calls") for c in r["choices"]))


if __name__ == "__main__":
    unittest.main()
