"""A standard decoder of the Llama / Qwen3 family, written to match
Hugging Face transformers' LlamaForCausalLM / Qwen3ForCausalLM / Qwen2:

    x = embed_tokens(ids)
    per layer:  h = x + o_proj(attn(rope(q_norm?(q_proj(rms(x)))), rope(k_norm?(k_proj(rms(x)))), v_proj(rms(x))))
                x = h + down_proj(silu(gate_proj(rms(h))) * up_proj(rms(h)))
    logits = lm_head(rms(x))          (lm_head = embed_tokens when tied)

RMSNorm computed in fp32; rotary embeddings in HF's "rotate half" layout
(first half / second half of each head, not interleaved); grouped-query
attention (num_key_value_heads ≤ num_attention_heads; head h reads KV head
h // (H / KV)); SwiGLU MLP; Qwen3's per-head RMSNorm of q and k before
RoPE; Qwen2's q/k/v biases. Parameter names are HF's, so the state_dict is
a checkpoint transformers and vLLM read (hf.py writes config.json beside).

Works on PyTorch 1.13 (attention written out) and 2.x (fused
scaled_dot_product_attention; with no left padding and no cache, the causal
flag alone, which lets torch pick a flash kernel). Gradient checkpointing
recomputes each layer in the backward pass (`gradient_checkpointing = True`).
The KV cache (KVCache) keeps the KV heads only, preallocated for the
sampling budget and written in place; attention over it groups the query
heads of each KV head instead of copying keys and values per query head.
model.Sampler drives both this and the small model.
"""

import dataclasses
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

from .model import HAS_SDPA, Sampler, attention_mask

FAMILIES = {  # model_type → (architecture, q/k norm, q/k/v bias)
    "llama": ("LlamaForCausalLM", False, None),
    "qwen2": ("Qwen2ForCausalLM", False, True),
    "qwen3": ("Qwen3ForCausalLM", True, None),
}


@dataclasses.dataclass
class LlamaConfig:
    """Field names are those of transformers' LlamaConfig / Qwen3Config."""
    vocab_size: int
    hidden_size: int = 256
    intermediate_size: int = 768
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    head_dim: int = 0  # 0: hidden_size // num_attention_heads
    max_position_embeddings: int = 2048
    rms_norm_eps: float = 1e-6
    rope_theta: float = 1000000.0
    tie_word_embeddings: bool = True
    attention_bias: bool = False
    model_type: str = "qwen3"
    initializer_range: float = 0.02
    rope_scaling: dict = None  # None, or Llama 3.1's {"rope_type": "llama3", ...}

    def __post_init__(self):
        if self.model_type not in FAMILIES:
            raise ValueError("model_type %r: one of %s" % (self.model_type, ", ".join(FAMILIES)))
        if not self.head_dim:
            self.head_dim = self.hidden_size // self.num_attention_heads
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError("num_attention_heads %d is not a multiple of num_key_value_heads %d"
                             % (self.num_attention_heads, self.num_key_value_heads))
        if self.head_dim % 2:
            raise ValueError("head_dim %d must be even (rotary embeddings)" % self.head_dim)
        rs = self.rope_scaling
        if rs is not None:
            kind = rs.get("rope_type", rs.get("type")) if isinstance(rs, dict) else None
            if kind == "default":
                self.rope_scaling = None
            elif kind != "llama3" or not all(isinstance(rs.get(k), (int, float)) for k in LLAMA3_KEYS):
                raise ValueError("rope_scaling %r: only none/default and llama3 (with %s)"
                                 % (rs, ", ".join(LLAMA3_KEYS)))

    @property
    def max_len(self):
        return self.max_position_embeddings

    @property
    def qk_norm(self):
        return FAMILIES[self.model_type][1]

    def qkv_bias(self):
        return FAMILIES[self.model_type][2] or self.attention_bias

    def n_params(self):
        d, hd, L = self.hidden_size, self.head_dim, self.num_hidden_layers
        H, KV, I = self.num_attention_heads, self.num_key_value_heads, self.intermediate_size
        attn = d * hd * (H + 2 * KV) + H * hd * d + (2 * hd if self.qk_norm else 0)
        per = attn + 3 * d * I + 2 * d
        emb = self.vocab_size * d * (1 if self.tie_word_embeddings else 2)
        return emb + L * per + d


def _wide(dt):
    """fp32, or the dtype itself when wider (float64 in tests)."""
    return torch.promote_types(dt, torch.float32)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        dt = x.dtype
        x = x.to(_wide(dt))
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dt)


LLAMA3_KEYS = ("factor", "low_freq_factor", "high_freq_factor", "original_max_position_embeddings")


def llama3_inv_freq(inv, rs):
    """Llama 3.1's frequency scaling (as transformers' _compute_llama3_parameters):
    long wavelengths divided by factor, short ones kept, the band between
    interpolated."""
    factor, lo, hi, old = (float(rs[k]) for k in LLAMA3_KEYS)
    wavelen = 2 * math.pi / inv
    scaled = torch.where(wavelen > old / lo, inv / factor, inv)
    smooth = (old / wavelen - lo) / (hi - lo)
    mid = (wavelen >= old / hi) & (wavelen <= old / lo)
    return torch.where(mid, (1 - smooth) * scaled / factor + smooth * scaled, scaled)


def rope_tables(pos, head_dim, theta, dtype=torch.float32, scaling=None):
    """cos, sin (B,1,T,head_dim) in fp32 (or dtype when wider) for positions
    pos (B,T), HF layout."""
    dtype = _wide(dtype)
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=pos.device, dtype=dtype) / head_dim))
    if scaling is not None:
        inv = llama3_inv_freq(inv, scaling)
    ang = pos.to(dtype)[:, :, None] * inv  # (B,T,hd/2)
    emb = torch.cat([ang, ang], dim=-1)[:, None]
    return emb.cos(), emb.sin()


def apply_rope(x, cos, sin):
    h = x.shape[-1] // 2
    xf = x.to(_wide(x.dtype))
    rot = torch.cat([-xf[..., h:], xf[..., :h]], dim=-1)
    return (xf * cos + rot * sin).to(x.dtype)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.H, self.KV, self.hd = c.num_attention_heads, c.num_key_value_heads, c.head_dim
        b = c.qkv_bias()
        self.q_proj = nn.Linear(c.hidden_size, self.H * self.hd, bias=b)
        self.k_proj = nn.Linear(c.hidden_size, self.KV * self.hd, bias=b)
        self.v_proj = nn.Linear(c.hidden_size, self.KV * self.hd, bias=b)
        self.o_proj = nn.Linear(self.H * self.hd, c.hidden_size, bias=c.attention_bias)
        if c.qk_norm:
            self.q_norm = RMSNorm(self.hd, c.rms_norm_eps)
            self.k_norm = RMSNorm(self.hd, c.rms_norm_eps)
        else:
            self.q_norm = self.k_norm = None

    def forward(self, x, rope, allowed, cache, idx, causal_only):
        B, T, _ = x.shape
        q = self.q_proj(x).view(B, T, self.H, self.hd)
        k = self.k_proj(x).view(B, T, self.KV, self.hd)
        v = self.v_proj(x).view(B, T, self.KV, self.hd).transpose(1, 2)
        if self.q_norm is not None:
            q, k = self.q_norm(q), self.k_norm(k)
        q, k = apply_rope(q.transpose(1, 2), *rope), apply_rope(k.transpose(1, 2), *rope)
        if cache is not None:
            k, v = cache.update(idx, k, v)
        rep = self.H // self.KV
        if causal_only:  # training and unpadded prefill: the causal flag lets SDPA fuse
            if rep > 1:
                k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            # the rep query heads of a KV head attend as one group of rep·T
            # queries: no copy of the (cached) keys and values per query head
            Tk = k.shape[2]
            qg = q.reshape(B, self.KV, rep * T, self.hd)
            mask = allowed.expand(B, 1, T, Tk).repeat(1, 1, rep, 1) if rep > 1 else allowed
            if HAS_SDPA:
                a = F.scaled_dot_product_attention(qg, k, v, attn_mask=mask)
            else:
                s = (qg @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.hd))
                s = s.masked_fill(~mask, float("-inf"))
                a = torch.softmax(s.to(_wide(s.dtype)), dim=-1).to(v.dtype) @ v
            a = a.view(B, self.H, T, self.hd)
        return self.o_proj(a.transpose(1, 2).reshape(B, T, self.H * self.hd))


class KVCache:
    """Keys and values of every layer, (B, KV heads, capacity, head_dim),
    filled up to n: written in place at each step (no concatenation),
    grown by doubling when a step goes past the capacity."""

    def __init__(self, n_layers, capacity=0):
        self.k, self.v = [None] * n_layers, [None] * n_layers
        self.n, self.capacity = 0, capacity

    def update(self, i, k, v):
        n, T = self.n, k.shape[2]
        K = self.k[i]
        if K is None or n + T > K.shape[2]:
            cap = max(self.capacity, n + T, 2 * (K.shape[2] if K is not None else 0))
            B, KV, _, hd = k.shape
            nk, nv = k.new_empty(B, KV, cap, hd), v.new_empty(B, KV, cap, hd)
            if K is not None:
                nk[:, :, :n], nv[:, :, :n] = K[:, :, :n], self.v[i][:, :, :n]
            self.k[i], self.v[i] = nk, nv
        self.k[i][:, :, n:n + T] = k
        self.v[i][:, :, n:n + T] = v
        return self.k[i][:, :, :n + T], self.v[i][:, :, :n + T]


class MLP(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.up_proj = nn.Linear(c.hidden_size, c.intermediate_size, bias=False)
        self.down_proj = nn.Linear(c.intermediate_size, c.hidden_size, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.self_attn = Attention(c)
        self.mlp = MLP(c)
        self.input_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)
        self.post_attention_layernorm = RMSNorm(c.hidden_size, c.rms_norm_eps)

    def forward(self, x, cos, sin, allowed, cache=None, idx=0, causal_only=False):
        x = x + self.self_attn(self.input_layernorm(x), (cos, sin), allowed, cache, idx, causal_only)
        return x + self.mlp(self.post_attention_layernorm(x))


class _Body(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.embed_tokens = nn.Embedding(c.vocab_size, c.hidden_size)
        self.layers = nn.ModuleList(DecoderLayer(c) for _ in range(c.num_hidden_layers))
        self.norm = RMSNorm(c.hidden_size, c.rms_norm_eps)


class LlamaForCausalLM(Sampler, nn.Module):
    """state_dict keys: model.embed_tokens.weight, model.layers.N.…,
    model.norm.weight, lm_head.weight (absent when tied)."""

    def __init__(self, c):
        super().__init__()
        self.config = c
        self.model = _Body(c)
        self.lm_head = None if c.tie_word_embeddings else nn.Linear(c.hidden_size, c.vocab_size, bias=False)
        self.gradient_checkpointing = False
        std = c.initializer_range
        for m in self.modules():
            if isinstance(m, (nn.Linear, nn.Embedding)):
                nn.init.normal_(m.weight, std=std)
                if getattr(m, "bias", None) is not None:
                    nn.init.zeros_(m.bias)

    def forward(self, ids, attn_mask=None, past=None, past_mask=None, last_only=False, cache_capacity=0):
        """As model.GPT.forward: ids (B,T), attn_mask (B,T) with left padding
        allowed, past/past_mask the cache (a KVCache); last_only: logits of
        the last position only. Without gradients a cache is returned
        (allocated for cache_capacity positions when given); with them,
        None (training keeps no cache). Returns (logits, cache, full)."""
        c = self.config
        full, pos, allowed = attention_mask(ids, attn_mask, past_mask, c.max_len)
        # no cache and no left padding: causal alone is right for every real
        # query (right padding only adds keys after them), so SDPA may fuse
        causal_only = HAS_SDPA and past is None and bool((full[:, 1:] <= full[:, :-1]).all())
        cache = past
        if cache is None and not torch.is_grad_enabled():
            cache = KVCache(c.num_hidden_layers, cache_capacity)
        x = self.model.embed_tokens(ids)
        cos, sin = rope_tables(pos, c.head_dim, c.rope_theta, x.dtype, c.rope_scaling)
        ckpt = self.gradient_checkpointing and self.training and cache is None and torch.is_grad_enabled()
        for i, layer in enumerate(self.model.layers):
            if ckpt:
                x = torch.utils.checkpoint.checkpoint(layer, x, cos, sin, allowed, None, i, causal_only,
                                                      use_reentrant=False)
            else:
                x = layer(x, cos, sin, allowed, cache, i, causal_only)
        if cache is not None:
            cache.n += ids.shape[1]
        if last_only:
            x = x[:, -1:]
        x = self.model.norm(x)
        w = self.model.embed_tokens.weight if self.lm_head is None else self.lm_head.weight
        return x @ w.t(), cache, full
