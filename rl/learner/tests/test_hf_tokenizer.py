"""The word tokenizer and chat template exported for transformers
(hf_tokenizer.py). The structure is checked always; the behaviour (same
ids, same rendered conversations) is checked against Hugging Face's own
JavaScript implementations of tokenizer.json and chat templates when
WASMLEARN_HF_JS names a node_modules directory holding
@huggingface/tokenizers and @huggingface/jinja (neither Python's
`tokenizers` nor `transformers` is in Debian; npm is reachable:
`npm install --prefix DIR @huggingface/tokenizers@0.2.0 @huggingface/jinja@0.5.11`)."""

import json
import os
import shutil
import subprocess
import unittest

from fixtures import CONVO, HERE, REPO, TOOLS, store_tokenizer

from wasmlearn import hf_tokenizer
from wasmlearn.template import Template
from wasmlearn.tokenizer import corpus_from_env_dirs

JS = os.environ.get("WASMLEARN_HF_JS", "")

HOSTILE = ["", " ", "  leading", "trailing  ", "tabs\tand\nnew\r\nlines", "é", "naïve café", "日本語のテキスト",
           "emoji 🙂👍🏽", "\x00\x01\x1c\x1f\x7f", "nbsp\u00a0and\u2028sep", "W1013 #W1013 \"#W1013\"",
           "order_id 12345 x9 _x", "{\"name\": \"cancel_order\", \"arguments\": {}}", "\ud7ff\ue000\U0010ffff"]


def convos():
    sys_less = CONVO[1:]
    parts = [{"role": "system", "content": [{"type": "text", "text": "You are "}, {"type": "text", "text": "an agent."}]},
             {"role": "user", "content": "hi"}]
    twice = [CONVO[0], {"role": "system", "content": "second system"}, CONVO[1]]
    out = []
    for style in ("compact", "names", "json"):
        for msgs, tools in ((CONVO, TOOLS), (CONVO[:2], TOOLS), (sys_less, TOOLS), (CONVO, []), (parts, TOOLS),
                            (twice, TOOLS), (sys_less, [])):
            for gen in (False, True):
                out.append({"style": style, "messages": msgs, "tools": tools, "add_generation_prompt": gen})
    return out


class HFTokenizerTest(unittest.TestCase):
    def test_structure(self):
        tok = store_tokenizer()
        j = hf_tokenizer.tokenizer_json(tok)
        v = j["model"]["vocab"]
        self.assertEqual(len(v), tok.vocab_size)
        self.assertEqual(sorted(v.values()), list(range(tok.vocab_size)))
        self.assertEqual(v["<0x41>"], tok.encode("A")[0])
        w = tok.words[10]
        self.assertEqual(v[w], tok.encode(w)[0])
        self.assertEqual([a["content"] for a in j["added_tokens"]], tok.specials)
        cfg = hf_tokenizer.tokenizer_config(tok, Template(tok, tools_style="names"), 512)
        self.assertIn("'names'", cfg["chat_template"])
        self.assertEqual(cfg["eos_token"], "<|end|>")

    @unittest.skipUnless(JS and shutil.which("node"), "WASMLEARN_HF_JS unset or no node: behaviour against "
                                                      "Hugging Face's JS tokenizers/jinja not checked")
    def test_same_ids_as_hugging_faces_implementation(self):
        tok = store_tokenizer()
        texts = corpus_from_env_dirs([os.path.join(REPO, "envs", "store")]) + HOSTILE
        cs = convos()
        results = {}
        for style in ("compact", "names", "json"):
            tpl = Template(tok, tools_style=style)
            inp = {"tokenizer": hf_tokenizer.tokenizer_json(tok),
                   "config": hf_tokenizer.tokenizer_config(tok, tpl, 512),
                   "texts": texts if style == "compact" else [],
                   "convos": [c for c in cs if c["style"] == style]}
            p = subprocess.run(["node", os.path.join(HERE, "hf_tokenizer_check.mjs")], input=json.dumps(inp).encode(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ), timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr.decode()[-3000:])
            results[style] = (tpl, inp, json.loads(p.stdout))
        tpl, inp, out = results["compact"]
        for t, ids, dec in zip(texts, out["texts"], out["decoded"]):
            self.assertEqual(ids, tok.encode(t), t[:80])
            self.assertEqual(dec, tok.decode(tok.encode(t)), t[:80])
        n = 0
        for style, (tpl, inp, out) in results.items():
            for c, got in zip(inp["convos"], out["convos"]):
                want, _ = tpl.render(c["messages"], c["tools"], add_generation_prompt=c["add_generation_prompt"])
                self.assertEqual(got["ids"], want, (style, got["text"][:300], tok.decode(want)[:300]))
                n += 1
        self.assertEqual(n, len(cs))


if __name__ == "__main__":
    unittest.main()
