"""SFT and GRPO updates on token samples.

A sample is {"ids": [...], "mask": [...], "adv": float}: the rendered
trajectory, its loss mask (the policy's own tokens) and the group-relative
advantage the engine computed. Sequences longer than the model's context are
cut at the right (their count is reported).
"""

import copy
import random
import time

import torch

from . import device as devmod
from .losses import grpo_loss, masked_mean, sft_loss, token_logprobs


def pad_batch(samples, pad_id, max_len):
    L = min(max(len(s["ids"]) for s in samples), max_len)
    B = len(samples)
    ids = torch.full((B, L), pad_id, dtype=torch.long)
    attn = torch.zeros((B, L), dtype=torch.long)
    lm = torch.zeros((B, L), dtype=torch.long)
    for i, s in enumerate(samples):
        x = s["ids"][:L]
        ids[i, :len(x)] = torch.tensor(x)
        attn[i, :len(x)] = 1
        lm[i, :len(x)] = torch.tensor(s["mask"][:L])
    adv = torch.tensor([float(s.get("adv", 0.0)) for s in samples])
    return ids, attn, lm, adv


class Trainer:
    def __init__(self, model, tok, dev, lr=3e-4, weight_decay=0.0, grad_clip=1.0,
                 clip_low=0.2, clip_high=0.28, beta=0.0, optimizer=None):
        self.model, self.tok, self.dev = model, tok, dev
        self.opt = optimizer or make_optimizer(model, lr, weight_decay)
        self.grad_clip = grad_clip
        self.clip_low, self.clip_high, self.beta = clip_low, clip_high, beta
        self.ref = None
        self.step = 0

    def set_reference(self):
        """Freeze a copy of the current policy as the KL reference."""
        self.ref = copy.deepcopy(self.model).eval()
        for p in self.ref.parameters():
            p.requires_grad_(False)

    def _tensors(self, samples):
        ids, attn, lm, adv = pad_batch(samples, self.tok.pad_id, self.model.config.max_len)
        return [devmod.to_device(t, self.dev) for t in (ids, attn, lm, adv)]

    def _apply(self):
        gn = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
        self.opt.step()
        self.opt.zero_grad(set_to_none=True)
        self.step += 1
        return float(gn)

    def sft_step(self, samples):
        self.model.train()
        ids, attn, lm, _ = self._tensors(samples)
        with devmod.autocast(self.dev):
            logits, _, _ = self.model(ids, attn)
        loss = sft_loss(logits, ids, lm * attn)
        loss.backward()
        self._apply()
        return float(loss)

    def sft(self, samples, epochs, batch_size, rng=None, log=None):
        rng = rng or random.Random(0)
        losses = []
        for ep in range(epochs):
            order = list(samples)
            rng.shuffle(order)
            ep_loss = []
            for i in range(0, len(order), batch_size):
                ep_loss.append(self.sft_step(order[i:i + batch_size]))
            losses.append(sum(ep_loss) / max(len(ep_loss), 1))
            if log:
                log({"phase": "sft", "epoch": ep, "loss": losses[-1]})
        return losses

    @torch.no_grad()
    def _logprobs(self, model, samples, batch_size):
        out = []
        model.eval()
        for i in range(0, len(samples), batch_size):
            ids, attn, _, _ = self._tensors(samples[i:i + batch_size])
            with devmod.autocast(self.dev):
                logits, _, _ = model(ids, attn)
            lp, _ = token_logprobs(logits, ids)
            out.extend(lp[j].float().cpu() for j in range(lp.shape[0]))
        return out

    def grpo_update(self, samples, epochs=1, batch_size=16, rng=None):
        """One GRPO update on a round's samples. old logprobs are recomputed
        with the policy before the update (as verl does; equal to the
        behaviour policy when the server sampled from these weights at
        temperature 1), the reference's when beta > 0 or a reference is set."""
        rng = rng or random.Random(0)
        samples = [s for s in samples if any(s["mask"])]
        if not samples:
            return {}
        t0 = time.time()
        old = self._logprobs(self.model, samples, batch_size)
        ref = self._logprobs(self.ref, samples, batch_size) if self.ref is not None else None
        mism, nm = 0.0, 0
        for s, o in zip(samples, old):
            s["_old"] = o
            for k, v in enumerate(s.get("served_logprobs") or []):
                if v is not None and 1 <= k <= o.shape[0]:
                    mism += abs(float(o[k - 1]) - v)
                    nm += 1
        if ref is not None:
            for s, r in zip(samples, ref):
                s["_ref"] = r
        acc = {"loss": 0.0, "clip_frac": 0.0, "clip_low": 0.0, "clip_high": 0.0,
               "kl": 0.0, "policy_kl": 0.0, "entropy": 0.0, "ratio": 0.0, "grad_norm": 0.0}
        n, tokens = 0, 0
        self.model.train()
        for _ in range(epochs):
            order = list(samples)
            rng.shuffle(order)
            for i in range(0, len(order), batch_size):
                mb = order[i:i + batch_size]
                ids, attn, lm, adv = self._tensors(mb)
                T = ids.shape[1] - 1
                old_lp = torch.zeros(len(mb), T)
                ref_lp = torch.zeros(len(mb), T) if ref is not None else None
                for j, s in enumerate(mb):
                    k = min(T, s["_old"].shape[0])
                    old_lp[j, :k] = s["_old"][:k]
                    if ref_lp is not None:
                        ref_lp[j, :k] = s["_ref"][:k]
                old_lp = old_lp.to(self.dev)
                if ref_lp is not None:
                    ref_lp = ref_lp.to(self.dev)
                with devmod.autocast(self.dev):
                    logits, _, _ = self.model(ids, attn)
                lp, ent = token_logprobs(logits, ids)
                m = (lm * attn)[:, 1:]
                loss, st = grpo_loss(lp, old_lp, adv, m, self.clip_low, self.clip_high,
                                     self.beta, ref_lp)
                loss.backward()
                gn = self._apply()
                n += 1
                tokens += int(m.sum())
                acc["loss"] += float(loss)
                acc["grad_norm"] += gn
                acc["entropy"] += float(masked_mean(ent.detach(), m))
                for k in ("clip_frac", "clip_low", "clip_high", "ratio", "kl", "policy_kl"):
                    if k in st:
                        acc[k] += float(st[k])
        for s in samples:
            s.pop("_old", None)
            s.pop("_ref", None)
        out = {k: v / max(n, 1) for k, v in acc.items()}
        dt = time.time() - t0
        if nm:  # served vs recomputed logprobs of the same tokens: ~0 when the
            # server sampled from these weights at temperature 1
            out["logprob_mismatch"] = mism / nm
        out["update_tokens"] = tokens
        out["update_seconds"] = dt
        out["update_tokens_per_s"] = tokens / dt if dt > 0 else 0.0
        out.update(devmod.memory_stats(self.dev))
        return out


def make_optimizer(model, lr, weight_decay=0.0):
    return torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay, betas=(0.9, 0.95))
