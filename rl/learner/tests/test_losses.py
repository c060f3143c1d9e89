import math
import unittest

import torch

import fixtures  # noqa: F401  (sys.path)
from wasmlearn.losses import grpo_loss, sft_loss


class GRPOLossTest(unittest.TestCase):
    """Two sequences, hand-computed. old logprobs 0, so ratio = exp(logp).

    seq 0, A = +1, ratios 1.5, 1.1, 0.5 (all counted):
      1.5 > 1.28 → clipped high: -1.28;  1.1 → -1.1;  0.5 (A>0, low clip inactive) → -0.5
    seq 1, A = -2, ratios 0.5, 1.5, 0.9 (last one masked):
      0.5 < 0.8 → clipped low: -min(-1.0, -1.6) = 1.6;  1.5 (A<0, high clip inactive) → 3.0
    pg mean over 5 tokens = (-1.28 - 1.1 - 0.5 + 1.6 + 3.0) / 5 = 0.344
    k3 KL to ref logprobs 0: 1/r + ln r - 1 per token:
      r=1.5: 0.0721318; r=1.1: 0.0044010; r=0.5: 0.3068528 (twice); r=1.5 again
      mean = 0.7623704 / 5 = 0.1524741;  with beta 0.1: 0.344 + 0.0152474 = 0.3592474
    """

    def setUp(self):
        self.logp = torch.log(torch.tensor([[1.5, 1.1, 0.5], [0.5, 1.5, 0.9]], dtype=torch.float64))
        self.logp.requires_grad_(True)
        self.old = torch.zeros(2, 3, dtype=torch.float64)
        self.adv = torch.tensor([1.0, -2.0], dtype=torch.float64)
        self.mask = torch.tensor([[1, 1, 1], [1, 1, 0]])

    def test_clipping_both_sides_and_masking(self):
        loss, st = grpo_loss(self.logp, self.old, self.adv, self.mask, 0.2, 0.28)
        self.assertAlmostEqual(float(loss), 0.344, places=9)
        self.assertAlmostEqual(float(st["clip_high"]), 1 / 5, places=9)
        self.assertAlmostEqual(float(st["clip_low"]), 1 / 5, places=9)
        # KL(old ‖ new) by k3 = r − 1 − ln r: (0.0945349·2 + 0.0046898 + 0.1931472·2) / 5 = 0.5800540 / 5
        self.assertAlmostEqual(float(st["policy_kl"]), 0.1160108, places=6)
        loss.backward()
        g = self.logp.grad
        # clipped tokens and the masked token get no gradient
        self.assertEqual(float(g[0, 0]), 0.0)
        self.assertEqual(float(g[1, 0]), 0.0)
        self.assertEqual(float(g[1, 2]), 0.0)
        # unclipped: d(-r*A)/dlogp / 5 = -r*A/5
        self.assertAlmostEqual(float(g[0, 1]), -1.1 / 5, places=9)
        self.assertAlmostEqual(float(g[0, 2]), -0.5 / 5, places=9)
        self.assertAlmostEqual(float(g[1, 1]), 1.5 * 2 / 5, places=9)

    def test_kl_term(self):
        ref = torch.zeros(2, 3, dtype=torch.float64)
        loss, st = grpo_loss(self.logp, self.old, self.adv, self.mask, 0.2, 0.28, beta=0.1, ref_logp=ref)
        self.assertAlmostEqual(float(st["kl"]), 0.1524741, places=6)
        self.assertAlmostEqual(float(loss), 0.3592474, places=6)

    def test_masked_token_values_do_not_matter(self):
        a, _ = grpo_loss(self.logp, self.old, self.adv, self.mask)
        lp2 = self.logp.detach().clone()
        lp2[1, 2] = 50.0
        b, _ = grpo_loss(lp2, self.old, self.adv, self.mask)
        self.assertAlmostEqual(float(a), float(b), places=12)


class SFTLossTest(unittest.TestCase):
    def test_only_masked_in_tokens_count(self):
        torch.manual_seed(0)
        V = 7
        logits = torch.randn(1, 4, V, dtype=torch.float64)
        ids = torch.tensor([[1, 2, 3, 4]])
        mask = torch.tensor([[0, 0, 1, 1]])  # predict ids[2] and ids[3] only
        loss = sft_loss(logits, ids, mask)
        lsm = torch.log_softmax(logits, -1)
        want = -(float(lsm[0, 1, 3]) + float(lsm[0, 2, 4])) / 2
        self.assertAlmostEqual(float(loss), want, places=5)
        # changing the logits that predict a masked-out target changes nothing
        logits2 = logits.clone()
        logits2[0, 0] += 10 * torch.randn(V, dtype=torch.float64)
        self.assertAlmostEqual(float(sft_loss(logits2, ids, mask)), want, places=5)
        self.assertTrue(math.isfinite(float(sft_loss(logits, ids, torch.zeros_like(mask)))))


if __name__ == "__main__":
    unittest.main()
