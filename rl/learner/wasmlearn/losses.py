"""SFT and GRPO losses over token sequences.

All losses are token-level means over the policy's own tokens (mask == 1),
the aggregation DAPO recommends: every generated token weighs the same,
whatever the length of its sequence.
"""

import torch


def token_logprobs(logits, ids):
    """logits (B,T,V) of positions 0..T-1, ids (B,T) → logprob of ids[:,1:]
    under logits[:, :-1] (B,T-1), and the entropy of each of those
    distributions (B,T-1). The entropy is a metric: computed without a
    graph, so the backward pass keeps no (B,T,V) tensor for it (with a
    152k vocabulary, two such fp32 tensors are ~10 GB per 4 × 2048 tokens)."""
    lg = logits[:, :-1]
    lg = lg.to(torch.promote_types(lg.dtype, torch.float32))  # fp32 at least
    lse = lg.logsumexp(-1)
    logp = lg.gather(-1, ids[:, 1:, None]).squeeze(-1) - lse
    with torch.no_grad():
        entropy = lse - (torch.softmax(lg, -1) * lg).sum(-1)
    return logp, entropy


def masked_mean(x, mask, denom=None):
    m = mask.to(x.dtype)
    d = m.sum() if denom is None else denom
    return (x * m).sum() / max(float(d), 1.0)


def sft_loss(logits, ids, loss_mask, denom=None):
    """Cross-entropy on the policy's tokens only. loss_mask (B,T) marks the
    tokens to predict (aligned with ids); position 0 is never a target."""
    logp, _ = token_logprobs(logits, ids)
    return masked_mean(-logp, loss_mask[:, 1:], denom)


def grpo_loss(logp, old_logp, advantages, mask, clip_low=0.2, clip_high=0.28,
              beta=0.0, ref_logp=None, denom=None):
    """Token-level clipped surrogate (PPO/GRPO with DAPO's decoupled clips).

    logp, old_logp, ref_logp, mask: (B,N) over target tokens; advantages (B,)
    (one per sequence, broadcast over its tokens). Per token:
        r = exp(logp - old_logp)
        pg = -min(r*A, clip(r, 1-clip_low, 1+clip_high)*A)
        kl = exp(ref - logp) - (ref - logp) - 1        (k3, Schulman 2020)
        loss = pg + beta*kl
    Returns (loss, stats) with stats: clip fractions (low/high/total), mean
    ratio, mean kl (as tensors, detached)."""
    A = advantages[:, None].to(logp.dtype)
    ratio = torch.exp(logp - old_logp)
    clipped = ratio.clamp(1.0 - clip_low, 1.0 + clip_high)
    s1, s2 = ratio * A, clipped * A
    pg = -torch.min(s1, s2)
    per_tok = pg
    m = mask.to(logp.dtype)
    stats = {}
    if beta and ref_logp is not None:
        d = ref_logp - logp
        kl = torch.exp(d) - d - 1.0
        per_tok = per_tok + beta * kl
        stats["kl"] = masked_mean(kl.detach(), m)
    elif ref_logp is not None:
        d = (ref_logp - logp).detach()
        stats["kl"] = masked_mean(torch.exp(d) - d - 1.0, m)
    loss = masked_mean(per_tok, m, denom)
    with torch.no_grad():
        # a token is clipped when the clipped term is the one min() picked and differs
        low = ((ratio < 1.0 - clip_low) & (A < 0)).to(logp.dtype)
        high = ((ratio > 1.0 + clip_high) & (A > 0)).to(logp.dtype)
        stats["clip_low"] = masked_mean(low, m)
        stats["clip_high"] = masked_mean(high, m)
        stats["clip_frac"] = stats["clip_low"] + stats["clip_high"]
        stats["ratio"] = masked_mean(ratio.detach(), m)
        # KL(old ‖ new) of the update itself, k3 from the ratio: how far
        # this step moved the policy (reported even when beta is 0)
        lr_ = (logp - old_logp).detach()
        stats["policy_kl"] = masked_mean(torch.exp(lr_) - 1.0 - lr_, m)
    return loss, stats
