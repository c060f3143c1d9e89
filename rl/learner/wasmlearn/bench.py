"""Throughput of the Llama/Qwen decoder (llama.py) with random weights:
generation tokens/s at several batch sizes (the server's path: Sampler with
a KV cache, bf16 autocast on CUDA), one GRPO update's tokens/s (the
trainer's path), peak memory, MFU against a given peak, and optionally a
profile of where the time goes.

    /usr/bin/python3 -m wasmlearn bench --preset qwen3-0.6b --device cuda --batches 1,16,64,256
    /usr/bin/python3 -m wasmlearn bench --preset tiny --device cpu     # seconds: checks the script

One JSON object per measurement on stdout; nothing is downloaded.
"""

import json
import platform
import random
import time

import torch

from . import device as devmod
from .llama import LlamaConfig, LlamaForCausalLM
from .trainer import Trainer

PRESETS = {
    # Qwen3-0.6B's shape (0.6B parameters with its 151,936-token vocabulary);
    # context cut to 4k for the measurement
    "qwen3-0.6b": dict(vocab_size=151936, hidden_size=1024, intermediate_size=3072, num_hidden_layers=28,
                       num_attention_heads=16, num_key_value_heads=8, head_dim=128,
                       max_position_embeddings=4096, tie_word_embeddings=True, model_type="qwen3"),
    "tiny": dict(vocab_size=512, hidden_size=64, intermediate_size=192, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512, model_type="qwen3"),
}


class _Tok:  # what Trainer needs of a tokenizer
    pad_id = 0


def _sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def _reset_peak(dev):
    if dev.type == "cuda":
        torch.cuda.reset_peak_memory_stats(dev)


def _peak(dev):
    return round(torch.cuda.max_memory_allocated(dev) / 2**30, 3) if dev.type == "cuda" else None


def bench_generate(model, dev, batch, prompt_len, new_tokens, rng):
    V = model.config.vocab_size
    prompts = [[rng.randrange(1, V) for _ in range(prompt_len)] for _ in range(batch)]
    gen = torch.Generator(device=dev.type if dev.type == "cuda" else "cpu").manual_seed(0)
    _reset_peak(dev)
    _sync(dev)
    t0 = time.time()
    with devmod.autocast(dev):
        outs = model.generate(prompts, new_tokens, stop_ids=(), temperature=1.0, generator=gen)
    _sync(dev)
    dt = time.time() - t0
    n = sum(len(o[0]) for o in outs)
    return {"what": "generate", "batch": batch, "prompt_len": prompt_len, "new_tokens": new_tokens,
            "seconds": round(dt, 3), "gen_tokens_per_s": round(n / dt, 1),
            "prefill_plus_decode_tokens_per_s": round((n + batch * prompt_len) / dt, 1), "peak_gib": _peak(dev)}


def bench_update(model, dev, batch, seq_len, micro, rng, peak_tflops):
    V = model.config.vocab_size
    samples = []
    for i in range(batch):
        ids = [rng.randrange(1, V) for _ in range(seq_len)]
        half = seq_len // 2  # prompt, then the policy's own tokens
        samples.append({"ids": ids, "mask": [0] * half + [1] * (seq_len - half), "adv": 1.0 if i % 2 else -1.0})
    tr = Trainer(model, _Tok(), dev, lr=1e-6)
    tr.grpo_update(samples[:micro], batch_size=micro)  # warm-up (allocator, kernels)
    _reset_peak(dev)
    _sync(dev)
    t0 = time.time()
    st = tr.grpo_update(samples, batch_size=micro)
    _sync(dev)
    dt = time.time() - t0
    total = batch * seq_len
    n = sum(p.numel() for p in model.parameters())
    # old logprobs: one forward (2N per token); the update: forward + backward (6N), +2N when checkpointing
    flops = total * n * (2 + 6 + (2 if model.gradient_checkpointing else 0))
    out = {"what": "grpo_update", "sequences": batch, "seq_len": seq_len, "micro_batch": micro,
           "grad_ckpt": model.gradient_checkpointing, "seconds": round(dt, 3),
           "policy_tokens_per_s": round(st["update_tokens"] / dt, 1), "all_tokens_per_s": round(total / dt, 1),
           "model_tflops": round(flops / dt / 1e12, 2), "peak_gib": _peak(dev)}
    if peak_tflops:
        out["mfu"] = round(flops / dt / 1e12 / peak_tflops, 4)
    return out


def profile(model, dev, batch, seq_len, rng, rows=15):
    """Top ops of one decode step and of one training forward+backward."""
    from torch.profiler import ProfilerActivity, profile as prof
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
    V = model.config.vocab_size
    ids = torch.tensor([[rng.randrange(1, V) for _ in range(seq_len)] for _ in range(batch)], device=dev)
    key = "cuda_time_total" if dev.type == "cuda" else "cpu_time_total"
    model.eval()
    with torch.no_grad(), devmod.autocast(dev):
        _, cache, full = model(ids, last_only=True)
        with prof(activities=acts) as p:
            model(ids[:, :1], torch.ones_like(ids[:, :1]), past=cache, past_mask=full, last_only=True)
            _sync(dev)
    print(p.key_averages().table(sort_by=key, row_limit=rows))
    model.train()
    with prof(activities=acts) as p:
        with devmod.autocast(dev):
            lg, _, _ = model(ids)
        lg.float().logsumexp(-1).mean().backward()
        _sync(dev)
    model.zero_grad(set_to_none=True)
    print(p.key_averages().table(sort_by=key, row_limit=rows))


def main(a):
    dev = devmod.pick(a.device)
    cfg = dict(PRESETS[a.preset])
    if a.layers:
        cfg["num_hidden_layers"] = a.layers
    torch.manual_seed(0)
    rng = random.Random(0)
    model = LlamaForCausalLM(LlamaConfig(**cfg)).to(dev)
    info = {"what": "setup", "preset": a.preset, "params": sum(p.numel() for p in model.parameters()),
            "device": str(dev), "torch": torch.__version__, "python": platform.python_version(),
            "sdpa": hasattr(torch.nn.functional, "scaled_dot_product_attention")}
    if dev.type == "cuda":
        info["gpu"] = torch.cuda.get_device_name(dev)
        info["bf16"] = torch.cuda.is_bf16_supported()
    else:
        info["threads"] = torch.get_num_threads()
    print(json.dumps(info), flush=True)
    model.eval()
    for b in [int(x) for x in a.batches.split(",") if x]:
        try:
            print(json.dumps(bench_generate(model, dev, b, a.prompt_len, a.new_tokens, rng)), flush=True)
        except RuntimeError as e:  # out of memory at this batch: say so, go on
            print(json.dumps({"what": "generate", "batch": b, "error": str(e)[:300]}), flush=True)
            if dev.type == "cuda":
                torch.cuda.empty_cache()
    model.gradient_checkpointing = a.grad_ckpt
    try:
        print(json.dumps(bench_update(model, dev, a.update_seqs, a.seq_len, a.micro_batch, rng, a.peak_tflops)),
              flush=True)
    except RuntimeError as e:
        print(json.dumps({"what": "grpo_update", "error": str(e)[:300]}), flush=True)
    if a.profile:
        profile(model, dev, min(8, a.update_seqs), min(a.seq_len, 1024), rng)


def add_args(s):
    s.add_argument("--preset", default="tiny", choices=sorted(PRESETS))
    s.add_argument("--layers", type=int, default=0, help="override the preset's layer count")
    s.add_argument("--device", default="auto")
    s.add_argument("--batches", default="1,16,64,256", help="generation batch sizes")
    s.add_argument("--prompt-len", type=int, default=0, help="0: a quarter of the context")
    s.add_argument("--new-tokens", type=int, default=0, help="0: a quarter of the context")
    s.add_argument("--update-seqs", type=int, default=64, help="sequences in the GRPO update")
    s.add_argument("--seq-len", type=int, default=0, help="tokens per update sequence; 0: half the context")
    s.add_argument("--micro-batch", type=int, default=4,
                   help="sequences per forward/backward (the fp32 logits of a 152k vocabulary are ~5 GB per 4x2048)")
    s.add_argument("--grad-ckpt", action="store_true", help="gradient checkpointing in the update")
    s.add_argument("--peak-tflops", type=float, default=0.0,
                   help="the device's dense bf16 peak for MFU (H100 SXM: 989, H200: 989)")
    s.add_argument("--profile", action="store_true")


def finish_args(a):
    ctx = PRESETS[a.preset]["max_position_embeddings"]
    a.prompt_len = a.prompt_len or ctx // 4
    a.new_tokens = a.new_tokens or ctx // 4
    a.seq_len = a.seq_len or ctx // 2
    return a
