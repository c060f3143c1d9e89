"""token_logprobs: logsumexp form equals log_softmax, the entropy is a
metric with no graph (so the backward keeps no vocabulary-sized tensor for it)."""

import unittest

import fixtures  # noqa: F401
import torch

from wasmlearn.losses import token_logprobs


class TokenLogprobsTest(unittest.TestCase):
    def test_equals_log_softmax_and_entropy(self):
        g = torch.Generator().manual_seed(0)
        logits = (3 * torch.randn(2, 6, 50, generator=g, dtype=torch.float64)).requires_grad_()
        ids = torch.randint(0, 50, (2, 6), generator=g)
        lp, ent = token_logprobs(logits, ids)
        ls = torch.log_softmax(logits[:, :-1], -1)
        want = ls.gather(-1, ids[:, 1:, None]).squeeze(-1)
        self.assertLess(float((lp - want).abs().max()), 1e-12)
        self.assertLess(float((ent - (-(ls.exp() * ls).sum(-1))).abs().max()), 1e-12)
        self.assertFalse(ent.requires_grad)
        (ga,) = torch.autograd.grad(lp.sum(), logits)
        (gb,) = torch.autograd.grad(want.sum(), logits)
        self.assertLess(float((ga - gb).abs().max()), 1e-12)


if __name__ == "__main__":
    unittest.main()
