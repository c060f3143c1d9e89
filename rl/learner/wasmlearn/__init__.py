"""wasmlearn: the PyTorch learner of wasmenv.

It owns a small decoder-only policy (or a standard Llama/Qwen3-family
decoder with Hugging Face-layout checkpoints), serves it over the OpenAI chat-completions
protocol (so `wasmenv rollout --policy openai` drives it as it would drive
vLLM), and trains it with SFT (cold start) and GRPO on the rollout engine's
JSONL trajectories. See docs/TRAINING.md.
"""

__all__ = [
    "tokenizer", "template", "model", "llama", "losses", "checkpoint", "safetensors", "hf",
    "hf_tokenizer", "device", "data", "trainer", "policy", "server", "loop", "bench",
]
