"""Checkpoints of the Llama/Qwen decoder in the Hugging Face layout:
save → load → identical logits, HF field and parameter names, a directory
written as transformers writes one (bf16, sharded, lm_head beside tied
embeddings) loads, and the server answers with the model."""

import json
import os
import tempfile
import unittest
import urllib.request

from fixtures import CONVO, TOOLS, store_tokenizer, template
import torch

from wasmlearn import checkpoint, device, hf
from wasmlearn import safetensors as st
from wasmlearn.llama import LlamaConfig, LlamaForCausalLM
from wasmlearn.server import Policy, Server
from wasmlearn.trainer import Trainer, make_optimizer


def qwen(tok, tied=False, seed=0, model_type="qwen3"):
    torch.manual_seed(seed)
    return LlamaForCausalLM(LlamaConfig(vocab_size=tok.vocab_size, hidden_size=64, intermediate_size=128,
                                        num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                                        max_position_embeddings=512, tie_word_embeddings=tied, model_type=model_type))


def logits(m, ids):
    with torch.no_grad():
        return m.eval()(torch.tensor([ids]))[0]


class HFLayoutTest(unittest.TestCase):
    def test_save_load_identical_logits_and_resume(self):
        tok = store_tokenizer()
        tpl = template(tok)
        ids, mask = tpl.render(CONVO, TOOLS)
        for mt, tied in (("qwen3", False), ("llama", True), ("qwen2", False)):
            with self.subTest(model_type=mt, tied=tied), tempfile.TemporaryDirectory() as d:
                m = qwen(tok, tied, model_type=mt)
                tr = Trainer(m, tok, device.pick("cpu"), lr=1e-3)
                for _ in range(2):
                    tr.sft_step([{"ids": ids, "mask": mask}])
                checkpoint.save(d, m, tok, tpl, tr.opt, step=tr.step)
                self.assertEqual(sorted(os.listdir(d)), ["config.json", "generation_config.json", "meta.json",
                                                         "model.safetensors", "optimizer.safetensors",
                                                         "tokenizer.json", "tokenizer_config.json",
                                                         "wasmlearn_tokenizer.json"])
                m2, tok2, tpl2, opt2, meta = checkpoint.load(d, "cpu", lambda x: make_optimizer(x, 1e-3))
                self.assertIsInstance(m2, LlamaForCausalLM)
                self.assertEqual(m2.config, m.config)
                self.assertTrue(torch.equal(logits(m, ids), logits(m2, ids)))
                a = tr.sft_step([{"ids": ids, "mask": mask}])
                b = Trainer(m2, tok2, device.pick("cpu"), optimizer=opt2).sft_step([{"ids": ids, "mask": mask}])
                self.assertAlmostEqual(a, b, places=6)

    def test_hugging_face_names(self):
        tok = store_tokenizer()
        with tempfile.TemporaryDirectory() as d:
            checkpoint.save(d, qwen(tok, tied=True), tok, template(tok))
            with open(os.path.join(d, "config.json")) as f:
                c = json.load(f)
            self.assertEqual(c["architectures"], ["Qwen3ForCausalLM"])
            for k, v in {"model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128,
                         "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                         "head_dim": 16, "max_position_embeddings": 512, "tie_word_embeddings": True,
                         "hidden_act": "silu", "vocab_size": tok.vocab_size, "torch_dtype": "float32"}.items():
                self.assertEqual(c[k], v, k)
            tensors, meta = st.load(os.path.join(d, "model.safetensors"))
            self.assertEqual(meta, {"format": "pt"})
            self.assertNotIn("lm_head.weight", tensors)
            self.assertEqual(tuple(tensors["model.layers.1.self_attn.k_proj.weight"].shape), (32, 64))
            self.assertEqual(tuple(tensors["model.layers.0.self_attn.q_norm.weight"].shape), (16,))

    def test_directory_as_transformers_writes_it(self):
        """bf16 weights in two shards with an index, lm_head.weight present
        although tied, config fields left to their defaults: loads, and the
        logits are those of the same weights in the learner."""
        tok = store_tokenizer()
        src = qwen(tok, tied=True, seed=4)
        sd = {k: v.to(torch.bfloat16) for k, v in src.state_dict().items()}
        sd["lm_head.weight"] = sd["model.embed_tokens.weight"].clone()
        names = sorted(sd)
        with tempfile.TemporaryDirectory() as d:
            c = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": tok.vocab_size,
                 "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "head_dim": 16, "max_position_embeddings": 512,
                 "rms_norm_eps": 1e-6, "rope_theta": 1000000, "tie_word_embeddings": True,
                 "torch_dtype": "bfloat16", "hidden_act": "silu", "rope_scaling": None,
                 "use_sliding_window": False, "sliding_window": None, "transformers_version": "4.51.0"}
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(c, f)
            half = len(names) // 2
            wm = {}
            for i, part in enumerate((names[:half], names[half:])):
                fn = "model-%05d-of-00002.safetensors" % (i + 1)
                st.save(os.path.join(d, fn), {k: sd[k] for k in part}, {"format": "pt"})
                wm.update({k: fn for k in part})
            with open(os.path.join(d, hf.INDEX), "w") as f:
                json.dump({"metadata": {"total_size": 0}, "weight_map": wm}, f)
            self.assertTrue(hf.is_hf_dir(d))
            m = checkpoint.load_hf_model(d)
            ref = qwen(tok, tied=True)
            ref.load_state_dict({k: v.float() for k, v in sd.items() if k != "lm_head.weight"})
            ids = [1, 5, 300, 301, 7]
            self.assertTrue(torch.equal(logits(m, ids), logits(ref, ids)))
            # served or resumed it cannot be (no word tokenizer): said plainly
            with self.assertRaisesRegex(ValueError, "Hugging Face checkpoint without"):
                checkpoint.load(d)
            # what the learner does not compute is refused, saying what
            for bad in ({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, {"hidden_act": "gelu"},
                        {"use_sliding_window": True}, {"model_type": "mistral"}, {"num_key_value_heads": 3}):
                with open(os.path.join(d, "config.json"), "w") as f:
                    json.dump(dict(c, **bad), f)
                with self.assertRaises(ValueError, msg=bad):
                    checkpoint.load_hf_model(d)
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(c, f)
            st.save(os.path.join(d, "model-00002-of-00002.safetensors"), {"x": torch.zeros(1)})
            with self.assertRaises(ValueError):
                checkpoint.load_hf_model(d)
            with open(os.path.join(d, hf.INDEX), "w") as f:
                json.dump({"weight_map": {"a": "../../etc/passwd"}}, f)
            with self.assertRaises(ValueError):
                checkpoint.load_hf_model(d)


class ServeQwenTest(unittest.TestCase):
    def test_server_answers_with_the_new_model(self):
        tok = store_tokenizer()
        tpl = template(tok)
        model = qwen(tok, tied=True, seed=1)
        dev = device.pick("cpu")
        tr = Trainer(model, tok, dev, lr=3e-3)
        ids, mask = tpl.render(CONVO, TOOLS)
        for _ in range(60):
            tr.sft_step([{"ids": ids, "mask": mask}])
        policy = Policy(model.eval(), tok, tpl, dev)
        srv = Server(policy, admin_token="t" * 20).start()
        try:
            body = {"messages": CONVO[:2], "tools": TOOLS, "temperature": 0, "logprobs": True,
                    "return_token_ids": True}
            req = urllib.request.Request(srv.url + "/chat/completions", data=json.dumps(body).encode())
            with urllib.request.urlopen(req, timeout=60) as r:
                out = json.loads(r.read())
            ch = out["choices"][0]
            self.assertEqual(ch["finish_reason"], "tool_calls", ch)
            call = ch["message"]["tool_calls"][0]["function"]
            self.assertEqual(call["name"], "find_customer_by_email")
            self.assertEqual(json.loads(call["arguments"]), {"email": "olivia.chen@example.com"})
            self.assertEqual(len(ch["logprobs"]["content"]), len(ch["token_ids"]))
            # and /admin/reload takes a checkpoint of the same model in the HF layout
            with tempfile.TemporaryDirectory() as d:
                checkpoint.save(d, model, tok, tpl, step=60)
                req = urllib.request.Request(srv.url[:-3] + "/admin/reload", data=json.dumps({"path": d}).encode(),
                                             headers={"Authorization": "Bearer " + "t" * 20})
                with urllib.request.urlopen(req, timeout=60) as r:
                    self.assertEqual(json.loads(r.read())["step"], 60)
        finally:
            srv.close()


if __name__ == "__main__":
    unittest.main()
