"""A small decoder-only transformer (GPT-style, pre-LayerNorm, tied
embeddings, rotary or learned positions) with a KV cache for batched
generation.

Works on PyTorch 1.13 (Debian's python3-torch) and 2.x: the fused
scaled_dot_product_attention of 2.x is used when present, else the same
computation written out.
"""

import dataclasses
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

HAS_SDPA = hasattr(F, "scaled_dot_product_attention")


@dataclasses.dataclass
class ModelConfig:
    vocab_size: int
    d_model: int = 128
    n_layer: int = 4
    n_head: int = 4
    max_len: int = 1024
    dropout: float = 0.0
    rope: bool = True  # rotary position embeddings (else learned absolute positions)

    def n_params(self):
        d, v, L = self.d_model, self.vocab_size, self.n_layer
        return v * d + (0 if self.rope else self.max_len * d) + L * (12 * d * d + 13 * d) + 2 * d


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n_head = c.n_head
        self.ln1 = nn.LayerNorm(c.d_model)
        self.qkv = nn.Linear(c.d_model, 3 * c.d_model)
        self.proj = nn.Linear(c.d_model, c.d_model)
        self.ln2 = nn.LayerNorm(c.d_model)
        self.fc = nn.Linear(c.d_model, 4 * c.d_model)
        self.out = nn.Linear(4 * c.d_model, c.d_model)
        self.drop = nn.Dropout(c.dropout)

    def forward(self, x, allowed, past, rot=None):
        B, T, D = x.shape
        H = self.n_head
        q, k, v = self.qkv(self.ln1(x)).split(D, dim=2)
        q, k, v = (t.view(B, T, H, D // H).transpose(1, 2) for t in (q, k, v))
        if rot is not None:  # keys are cached rotated, so each is rotated once
            q, k = rotate(q, *rot), rotate(k, *rot)
        if past is not None:
            k = torch.cat([past[0], k], dim=2)
            v = torch.cat([past[1], v], dim=2)
        if HAS_SDPA:
            a = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        else:
            s = (q @ k.transpose(-2, -1)) / math.sqrt(D // H)
            s = s.masked_fill(~allowed, float("-inf"))
            a = torch.softmax(s.float(), dim=-1).to(v.dtype) @ v
        a = a.transpose(1, 2).reshape(B, T, D)
        x = x + self.drop(self.proj(a))
        x = x + self.drop(self.out(F.gelu(self.fc(self.ln2(x)))))
        return x, (k, v)


def rotary(pos, dim, base=10000.0):
    """cos and sin of RoPE (Su et al. 2021) for positions pos (B,T): each
    (B,1,T,dim/2). Relative offsets become rotations, which makes heads such
    as "attend to the previous token" easy to learn."""
    inv = 1.0 / (base ** (torch.arange(0, dim, 2, device=pos.device, dtype=torch.float32) / dim))
    ang = pos.float()[:, None, :, None] * inv
    return ang.cos(), ang.sin()


def rotate(x, cos, sin):
    x1, x2 = x[..., 0::2].float(), x[..., 1::2].float()
    out = torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1).flatten(-2)
    return out.to(x.dtype)


def attention_mask(ids, attn_mask, past_mask, max_len):
    """The masks and positions of one forward call. ids (B,T); attn_mask
    (B,T) 1 on real tokens (left padding allowed); past_mask (B,Tp) that of
    the KV cache or None. Returns (full mask (B,Tp+T), positions (B,T),
    allowed (B,1,T,Tp+T) bool: causal, real keys, and every query sees
    itself so no softmax row is empty)."""
    B, T = ids.shape
    if attn_mask is None:
        attn_mask = torch.ones_like(ids)
    full = attn_mask if past_mask is None else torch.cat([past_mask, attn_mask], dim=1)
    pos = (full.long().cumsum(1) - 1).clamp(min=0)[:, -T:]
    if int(pos.max()) >= max_len:
        raise ValueError("sequence of %d tokens exceeds the model's %d" % (int(pos.max()) + 1, max_len))
    Tk = full.shape[1]
    causal = torch.ones(T, Tk, dtype=torch.bool, device=ids.device).tril(diagonal=Tk - T)
    allowed = causal[None, None] & full.bool()[:, None, None, :]
    eye = torch.zeros(T, Tk, dtype=torch.bool, device=ids.device)
    eye[torch.arange(T), torch.arange(Tk - T, Tk)] = True
    return full, pos, allowed | eye[None, None]


class Sampler:
    """Batched sampling with a KV cache for any model whose forward is
    forward(ids, attn_mask, past, past_mask, last_only, cache_capacity) ->
    (logits, cache, full mask) and whose config has max_len."""

    @torch.no_grad()
    def generate(self, prompts, max_new_tokens, stop_ids, temperature=1.0, generator=None,
                 pad_id=0, max_total=None):
        """prompts: list of id lists. Returns a list of (ids, logprobs,
        finish_reason) per prompt; logprobs are those of the distribution
        actually sampled from (after temperature; temperature 0 = greedy,
        logprobs of the raw distribution)."""
        dev = next(self.parameters()).device
        n = len(prompts)
        L = max(len(p) for p in prompts)
        limit = self.config.max_len if max_total is None else min(max_total, self.config.max_len)
        ids = torch.full((n, L), pad_id, dtype=torch.long)
        mask = torch.zeros((n, L), dtype=torch.long)
        for i, p in enumerate(prompts):
            ids[i, L - len(p):] = torch.tensor(p, dtype=torch.long)
            mask[i, L - len(p):] = 1
        ids, mask = ids.to(dev), mask.to(dev)
        outs = [[] for _ in range(n)]
        lps = [[] for _ in range(n)]
        reason = [None] * n
        per = list(max_new_tokens) if isinstance(max_new_tokens, (list, tuple)) else [max_new_tokens] * n
        per = [min(b, limit - L) for b in per]
        for i in range(n):
            if per[i] <= 0:
                reason[i] = "length"
        budget = max(per + [0])
        logits, cache, full = self.forward(ids, mask, last_only=True, cache_capacity=L + budget)
        last = logits[:, -1, :]
        for step in range(budget):
            if all(r is not None for r in reason):
                break
            logp = torch.log_softmax(last.float() / (temperature if temperature > 0 else 1.0), dim=-1)
            if temperature > 0:
                nxt = torch.multinomial(logp.exp(), 1, generator=generator).squeeze(1)
            else:
                nxt = logp.argmax(-1)
            chosen = logp.gather(1, nxt[:, None]).squeeze(1)
            nl, cl = nxt.tolist(), chosen.tolist()
            live = [i for i in range(n) if reason[i] is None]
            for i in live:
                outs[i].append(nl[i])
                lps[i].append(cl[i])
                if nl[i] in stop_ids:
                    reason[i] = "stop"
                elif len(outs[i]) >= per[i]:
                    reason[i] = "length"
            if all(r is not None for r in reason):
                break
            step_mask = torch.tensor([[1 if reason[i] is None else 0] for i in range(n)], device=dev)
            feed = torch.where(step_mask[:, 0].bool(), nxt, torch.full_like(nxt, pad_id))
            logits, cache, full = self.forward(feed[:, None], step_mask, past=cache, past_mask=full, last_only=True)
            last = logits[:, -1, :]
        return [(outs[i], lps[i], reason[i] or "length") for i in range(n)]


class GPT(Sampler, nn.Module):
    def __init__(self, c):
        super().__init__()
        self.config = c
        self.tok_emb = nn.Embedding(c.vocab_size, c.d_model)
        self.pos_emb = None if c.rope else nn.Embedding(c.max_len, c.d_model)
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.n_layer))
        self.ln_f = nn.LayerNorm(c.d_model)
        self.apply(self._init)
        for b in self.blocks:  # GPT-2's scaled init of residual projections
            nn.init.normal_(b.proj.weight, std=0.02 / math.sqrt(2 * c.n_layer))
            nn.init.normal_(b.out.weight, std=0.02 / math.sqrt(2 * c.n_layer))

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, std=0.02)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, std=0.02)

    def forward(self, ids, attn_mask=None, past=None, past_mask=None, last_only=False, cache_capacity=0):
        """ids (B,T); attn_mask (B,T) 1 on real tokens (left padding allowed);
        past: the KV cache of earlier calls with its mask past_mask (B,Tp).
        Returns (logits (B,T,V), or (B,1,V) of the last position when
        last_only, cache, full mask). cache_capacity is a hint this model
        does not use (its cache grows by concatenation)."""
        full, pos, allowed = attention_mask(ids, attn_mask, past_mask, self.config.max_len)
        x = self.tok_emb(ids)
        rot = None
        if self.pos_emb is not None:
            x = x + self.pos_emb(pos)
        else:
            rot = rotary(pos, self.config.d_model // self.config.n_head)
        cache = []
        for i, b in enumerate(self.blocks):
            x, kv = b(x, allowed, None if past is None else past[i], rot)
            cache.append(kv)
        if last_only:  # sampling needs the last position only: no (B,T,V) tensor
            x = x[:, -1:]
        logits = self.ln_f(x) @ self.tok_emb.weight.t()
        return logits, cache, full
