"""Device setup: CPU threads, and on CUDA the flags a GPU run needs.

On CUDA: TF32 matmuls and convolutions (Ampere and later), bf16 autocast for
forward passes (weights and optimizer state stay fp32), pinned host memory
for batches, and non-blocking copies. On CPU: fp32 and one thread per core.
"""

import contextlib
import os

import torch


def pick(name="auto"):
    if name == "auto":
        name = "cuda" if torch.cuda.is_available() else "cpu"
    dev = torch.device(name)
    if dev.type == "cpu":
        # One thread per core; WASMLEARN_THREADS overrides it on a machine
        # shared with other jobs, where torch's spinning threads otherwise
        # fight them (measured here: 2 threads 11 s/step vs 1 thread 1.4 s
        # at load average 19 on 2 cores).
        torch.set_num_threads(int(os.environ.get("WASMLEARN_THREADS") or os.cpu_count() or 1))
    else:
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        if hasattr(torch, "set_float32_matmul_precision"):  # 1.12+
            torch.set_float32_matmul_precision("high")
    return dev


def autocast(dev):
    """bf16 autocast on CUDA when the GPU supports it; a no-op on CPU."""
    if dev.type == "cuda" and torch.cuda.is_bf16_supported():
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return contextlib.nullcontext()


def to_device(t, dev):
    if dev.type == "cuda":
        return t.pin_memory().to(dev, non_blocking=True)
    return t


def memory_stats(dev):
    if dev.type == "cuda":
        return {"max_allocated_mib": torch.cuda.max_memory_allocated(dev) / 2**20}
    return {}
