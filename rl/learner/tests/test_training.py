import os
import random
import tempfile
import unittest

import torch

from fixtures import CONVO, TOOLS, small_model, store_tokenizer, template

from wasmlearn import checkpoint, device
from wasmlearn.trainer import Trainer, make_optimizer


class TrainingTest(unittest.TestCase):
    def test_sft_loss_decreases_and_policy_learns_the_call(self):
        tok = store_tokenizer()
        tpl = template(tok)
        model = small_model(tok)
        ids, mask = tpl.render(CONVO, TOOLS)
        tr = Trainer(model, tok, device.pick("cpu"), lr=3e-3)
        losses = [tr.sft_step([{"ids": ids, "mask": mask}]) for _ in range(60)]
        self.assertLess(losses[-1], 0.2 * losses[0], losses[::10])
        # greedy generation after the user turn reproduces the first call
        prompt, _ = tpl.render(CONVO[:2], TOOLS, add_generation_prompt=True)
        [(out, lps, reason)] = model.generate([prompt], 60, tpl.stop_ids, temperature=0)
        content, calls = tpl.parse(out)
        self.assertEqual(reason, "stop")
        self.assertEqual(calls[0]["function"]["name"], "find_customer_by_email", tok.decode(out))

    def test_grpo_update_moves_probability_toward_positive_advantage(self):
        tok = store_tokenizer()
        tpl = template(tok)
        model = small_model(tok, seed=1)
        good = CONVO[:3]
        bad = CONVO[:2] + [{"role": "assistant", "content": "I cannot help."}]
        sg, sb = [dict(zip(("ids", "mask"), tpl.render(m, TOOLS))) for m in (good, bad)]
        sg["adv"], sb["adv"] = 1.0, -1.0
        tr = Trainer(model, tok, device.pick("cpu"), lr=1e-3, beta=0.01)
        tr.set_reference()

        def seq_logp(s):
            with torch.no_grad():
                x = torch.tensor([s["ids"]])
                lg, _, _ = model(x)
                lp = torch.log_softmax(lg[0, :-1], -1).gather(1, x[0, 1:, None])[:, 0]
                return float((lp * torch.tensor(s["mask"][1:])).sum())

        g0, b0 = seq_logp(sg), seq_logp(sb)
        stats = {}
        for _ in range(5):
            stats = tr.grpo_update([dict(sg), dict(sb)], epochs=2, batch_size=2, rng=random.Random(0))
        self.assertGreater(seq_logp(sg), g0 + 1.0)
        self.assertLess(seq_logp(sb), b0 - 1.0)
        for k in ("loss", "clip_frac", "kl", "entropy", "update_tokens_per_s"):
            self.assertIn(k, stats)
        self.assertGreater(stats["kl"], 0.0)

    def test_checkpoint_resume_is_exact(self):
        tok = store_tokenizer()
        tpl = template(tok)
        ids, mask = tpl.render(CONVO, TOOLS)
        batch = [{"ids": ids, "mask": mask}]
        dev = device.pick("cpu")
        model = small_model(tok)
        tr = Trainer(model, tok, dev, lr=1e-3)
        for _ in range(3):
            tr.sft_step(batch)
        with tempfile.TemporaryDirectory() as d:
            checkpoint.save(d, model, tok, tpl, tr.opt, step=tr.step)
            self.assertEqual(sorted(os.listdir(d)), ["meta.json", "model.safetensors", "optimizer.safetensors", "tokenizer.json"])
            m2, tok2, tpl2, opt2, meta = checkpoint.load(d, dev, lambda m: make_optimizer(m, 1e-3))
        self.assertEqual(meta["step"], 3)
        self.assertEqual(tpl2.config(), tpl.config())
        tr2 = Trainer(m2, tok2, dev, optimizer=opt2)
        a, b = tr.sft_step(batch), tr2.sft_step(batch)
        self.assertAlmostEqual(a, b, places=5)
        for p, q in zip(model.parameters(), m2.parameters()):
            self.assertTrue(torch.allclose(p, q, atol=1e-6))


class GenerateTest(unittest.TestCase):
    def test_batched_generation_matches_single(self):
        """Left padding and the KV cache give each prompt the same greedy
        continuation alone and in a batch."""
        tok = store_tokenizer()
        tpl = template(tok)
        model = small_model(tok, seed=3).eval()
        p1, _ = tpl.render(CONVO[:2], TOOLS, add_generation_prompt=True)
        p2, _ = tpl.render(CONVO[:4], TOOLS, add_generation_prompt=True)
        both = model.generate([p1, p2], 12, tpl.stop_ids, temperature=0)
        one = model.generate([p1], 12, tpl.stop_ids, temperature=0)
        two = model.generate([p2], 12, tpl.stop_ids, temperature=0)
        self.assertEqual(both[0][0], one[0][0])
        self.assertEqual(both[1][0], two[0][0])
        for x, y in zip(both[1][1], two[0][1]):
            self.assertAlmostEqual(x, y, places=4)
        # the logprobs returned are those of the full forward pass
        full = torch.tensor([p2 + two[0][0]])
        with torch.no_grad():
            lg, _, _ = model(full)
        lp = torch.log_softmax(lg[0, len(p2) - 1:-1], -1).gather(1, full[0, len(p2):, None])[:, 0]
        for x, y in zip(lp.tolist(), two[0][1]):
            self.assertAlmostEqual(x, y, places=4)


if __name__ == "__main__":
    unittest.main()
