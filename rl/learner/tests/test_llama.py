"""The Llama/Qwen3 decoder against a reference written here from the
published formulas (RMSNorm, rotate-half RoPE, grouped-query causal
attention, SwiGLU), one position and one head at a time."""

import math
import unittest

import fixtures  # noqa: F401  (sys.path, threads)
import torch
import torch.nn.functional as F

from wasmlearn import llama
from wasmlearn.llama import LlamaConfig, LlamaForCausalLM


def sdpa(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """F.scaled_dot_product_attention as PyTorch 2.x documents it (bool
    mask: True attends; is_causal: the top-left lower triangle)."""
    s = (q @ k.transpose(-2, -1)) * (scale or 1.0 / math.sqrt(q.shape[-1]))
    if is_causal:
        s = s.masked_fill(~torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril(), float("-inf"))
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf"))
    return torch.softmax(s, -1) @ v


def tiny(model_type="qwen3", tied=True, **kw):
    c = dict(vocab_size=50, hidden_size=32, intermediate_size=48, num_hidden_layers=2,
             num_attention_heads=4, num_key_value_heads=2, head_dim=8, max_position_embeddings=64,
             rope_theta=10000.0, tie_word_embeddings=tied, model_type=model_type)
    c.update(kw)
    torch.manual_seed(0)
    m = LlamaForCausalLM(LlamaConfig(**c)).double()
    with torch.no_grad():  # non-trivial norm weights and biases, so a missed one shows
        for name, p in m.named_parameters():
            if name.endswith("norm.weight") or name.endswith(".bias"):
                p.copy_(1 + 0.3 * torch.randn_like(p) if name.endswith("weight") else 0.1 * torch.randn_like(p))
    return m.eval()


def reference(m, ids):
    """Logits (T,V) of one unpadded sequence, by the formulas."""
    c = m.config
    sd = {k: v for k, v in m.state_dict().items()}
    W = lambda name: sd[name]  # noqa: E731

    def rms(x, w):
        return w * (x / torch.sqrt((x * x).mean() + c.rms_norm_eps))

    def lin(x, name):
        y = W(name + ".weight") @ x
        return y + W(name + ".bias") if name + ".bias" in sd else y

    def freq(i, hd):  # theta^(-2i/hd), with Llama 3.1's three bands when scaled
        f = c.rope_theta ** (-2.0 * i / hd)
        rs = c.rope_scaling
        if not rs:
            return f
        wl, old = 2 * math.pi / f, rs["original_max_position_embeddings"]
        if wl < old / rs["high_freq_factor"]:
            return f
        if wl > old / rs["low_freq_factor"]:
            return f / rs["factor"]
        sm = (old / wl - rs["low_freq_factor"]) / (rs["high_freq_factor"] - rs["low_freq_factor"])
        return (1 - sm) * f / rs["factor"] + sm * f

    def rope(v, p):  # rotate pair (i, i + hd/2) by angle p * freq(i)
        hd = v.shape[0]
        out = v.clone()
        for i in range(hd // 2):
            a = p * freq(i, hd)
            x1, x2 = v[i], v[i + hd // 2]
            out[i] = x1 * math.cos(a) - x2 * math.sin(a)
            out[i + hd // 2] = x2 * math.cos(a) + x1 * math.sin(a)
        return out

    T, hd, H, KV = len(ids), c.head_dim, c.num_attention_heads, c.num_key_value_heads
    xs = [W("model.embed_tokens.weight")[t].clone() for t in ids]
    for L in range(c.num_hidden_layers):
        pre = "model.layers.%d." % L
        hs = [rms(x, W(pre + "input_layernorm.weight")) for x in xs]
        q = [lin(h, pre + "self_attn.q_proj").view(H, hd) for h in hs]
        k = [lin(h, pre + "self_attn.k_proj").view(KV, hd) for h in hs]
        v = [lin(h, pre + "self_attn.v_proj").view(KV, hd) for h in hs]
        if c.qk_norm:
            q = [torch.stack([rms(qh, W(pre + "self_attn.q_norm.weight")) for qh in qt]) for qt in q]
            k = [torch.stack([rms(kh, W(pre + "self_attn.k_norm.weight")) for kh in kt]) for kt in k]
        q = [torch.stack([rope(q[t][h], t) for h in range(H)]) for t in range(T)]
        k = [torch.stack([rope(k[t][g], t) for g in range(KV)]) for t in range(T)]
        new = []
        for t in range(T):
            heads = []
            for h in range(H):
                g = h // (H // KV)
                s = torch.stack([q[t][h] @ k[u][g] / math.sqrt(hd) for u in range(t + 1)])
                p = torch.softmax(s, 0)
                heads.append(sum(p[u] * v[u][g] for u in range(t + 1)))
            a = lin(torch.cat(heads), pre + "self_attn.o_proj")
            x = xs[t] + a
            h2 = rms(x, W(pre + "post_attention_layernorm.weight"))
            gate, up = lin(h2, pre + "mlp.gate_proj"), lin(h2, pre + "mlp.up_proj")
            x = x + lin(gate * torch.sigmoid(gate) * up, pre + "mlp.down_proj")
            new.append(x)
        xs = new
    head = W("model.embed_tokens.weight") if c.tie_word_embeddings else W("lm_head.weight")
    return torch.stack([head @ rms(x, W("model.norm.weight")) for x in xs])


class LlamaTest(unittest.TestCase):
    IDS = [3, 17, 5, 42, 8, 8, 1]

    def test_forward_matches_reference(self):
        llama3 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                  "original_max_position_embeddings": 1000}  # head_dim 8: one frequency in each band
        for mt, tied, kw in (("qwen3", True, {}), ("qwen3", False, {}), ("llama", False, {}), ("qwen2", True, {}),
                             ("llama", True, {"rope_scaling": llama3})):
            with self.subTest(model_type=mt, tied=tied, **kw):
                m = tiny(mt, tied, **kw)
                with torch.no_grad():
                    got, _, _ = m(torch.tensor([self.IDS]))
                want = reference(m, self.IDS)
                self.assertLess(float((got[0] - want).abs().max()), 1e-9)

    def test_names_are_hugging_faces(self):
        q = set(tiny("qwen3", False).state_dict())
        for k in ("model.embed_tokens.weight", "model.norm.weight", "lm_head.weight",
                  "model.layers.1.self_attn.q_proj.weight", "model.layers.0.self_attn.k_norm.weight",
                  "model.layers.0.mlp.gate_proj.weight", "model.layers.0.post_attention_layernorm.weight"):
            self.assertIn(k, q)
        self.assertNotIn("lm_head.weight", set(tiny("qwen3", True).state_dict()))
        self.assertNotIn("model.layers.0.self_attn.q_norm.weight", set(tiny("llama").state_dict()))
        self.assertIn("model.layers.0.self_attn.q_proj.bias", set(tiny("qwen2").state_dict()))
        self.assertNotIn("model.layers.0.self_attn.o_proj.bias", set(tiny("qwen2").state_dict()))
        m = tiny("qwen3", False)
        self.assertEqual(sum(p.numel() for p in m.parameters()), m.config.n_params())

    def test_left_padding_and_cache_match_full_forward(self):
        m = tiny()
        a, b = [3, 17, 5, 42], [9, 1]
        outs = m.generate([a, b], 6, stop_ids=(), temperature=0)
        for prompt, (ids, lps, _) in zip((a, b), outs):
            full = torch.tensor([prompt + ids])
            with torch.no_grad():
                lg, _, _ = m(full)
            lp = torch.log_softmax(lg[0, len(prompt) - 1:-1].float(), -1).gather(1, full[0, len(prompt):, None])[:, 0]
            for x, y in zip(lp.tolist(), lps):
                self.assertAlmostEqual(x, y, places=6)
            self.assertEqual(ids, m.generate([prompt], 6, stop_ids=(), temperature=0)[0][0])

    def test_fused_attention_path(self):
        """The PyTorch 2.x branch (this torch has no SDPA): with the
        documented semantics standing in for the fused kernel, the forward
        still equals the reference, a right-padded batch (the causal-only
        path) gives the unpadded logits, and sampling equals the full forward."""
        old = (llama.HAS_SDPA, getattr(F, "scaled_dot_product_attention", None))
        llama.HAS_SDPA, F.scaled_dot_product_attention = True, sdpa
        try:
            m = tiny("qwen3", False)
            with torch.no_grad():
                got, _, _ = m(torch.tensor([self.IDS]))
                self.assertLess(float((got[0] - reference(m, self.IDS)).abs().max()), 1e-9)
                short = self.IDS[:4]
                batch = torch.tensor([self.IDS, short + [0] * 3])
                lg, _, _ = m(batch, torch.tensor([[1] * 7, [1] * 4 + [0] * 3]))
                alone, _, _ = m(torch.tensor([short]))
                self.assertLess(float((lg[1, :4] - alone[0]).abs().max()), 1e-9)
            a, b = [3, 17, 5, 42], [9, 1]
            for prompt, (ids, lps, _) in zip((a, b), m.generate([a, b], 5, stop_ids=(), temperature=0)):
                with torch.no_grad():
                    lg, _, _ = m(torch.tensor([prompt + ids]))
                want = torch.log_softmax(lg[0, len(prompt) - 1:-1], -1).gather(1, torch.tensor(ids)[:, None])[:, 0]
                for x, y in zip(want.tolist(), lps):
                    self.assertAlmostEqual(x, y, places=6)
        finally:
            llama.HAS_SDPA = old[0]
            if old[1] is None:
                del F.scaled_dot_product_attention
            else:
                F.scaled_dot_product_attention = old[1]

    def test_cache_grows_past_its_capacity(self):
        """Step by step without a capacity hint (the cache doubles as it
        goes): the same logits as one forward over the whole sequence."""
        m = tiny("llama", False)
        ids = torch.tensor([self.IDS])
        with torch.no_grad():
            whole, _, _ = m(ids)
            lg, cache, full = m(ids[:, :1])
            steps = [lg[:, -1]]
            for t in range(1, ids.shape[1]):
                lg, cache, full = m(ids[:, t:t + 1], torch.ones(1, 1, dtype=torch.long), past=cache, past_mask=full)
                steps.append(lg[:, -1])
        self.assertEqual(cache.n, ids.shape[1])
        self.assertGreaterEqual(cache.k[0].shape[2], ids.shape[1])
        self.assertLess(float((torch.stack(steps, 1) - whole).abs().max()), 1e-9)

    def test_gradient_checkpointing_same_gradients(self):
        grads = []
        for ck in (False, True):
            m = tiny().train()
            m.gradient_checkpointing = ck
            lg, _, _ = m(torch.tensor([self.IDS, self.IDS[::-1]]), torch.tensor([[1] * 7, [1] * 5 + [0] * 2]))
            lg.sum().backward()
            grads.append([p.grad.clone() for p in m.parameters()])
        for g1, g2 in zip(*grads):
            self.assertTrue(torch.allclose(g1, g2, atol=1e-12))

    def test_bf16_weights(self):
        """Served with bf16 weights (serve --dtype bfloat16): logits near the
        fp32 model's, sampling runs and its logprobs are fp32 numbers."""
        m = tiny().float()
        b = tiny().to(torch.bfloat16)
        ids = torch.tensor([self.IDS])
        with torch.no_grad():
            lf, _, _ = m(ids)
            lb, _, _ = b(ids)
        self.assertEqual(lb.dtype, torch.bfloat16)
        self.assertLess(float((lf - lb.float()).abs().max()), 0.1)
        out = b.generate([self.IDS], 4, stop_ids=(), temperature=1.0, generator=torch.Generator().manual_seed(0))
        self.assertEqual(len(out[0][0]), 4)
        self.assertTrue(all(isinstance(x, float) and x <= 0 for x in out[0][1]))

    def test_bad_configs(self):
        for kw in (dict(model_type="gpt2"), dict(num_key_value_heads=3), dict(head_dim=7),
                   dict(rope_scaling={"rope_type": "yarn", "factor": 4.0}), dict(rope_scaling={"rope_type": "llama3"}),
                   dict(rope_scaling=[1])):
            with self.assertRaises(ValueError, msg=kw):
                LlamaConfig(vocab_size=10, **kw)


if __name__ == "__main__":
    unittest.main()
