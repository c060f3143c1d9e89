"""Command line: /usr/bin/python3 -m wasmlearn {train,demo,serve,sft,grpo,bench} ...

(run from rl/learner, or with rl/learner on PYTHONPATH)."""

import argparse
import json
import os
import random
import sys

import torch


def cmd_serve(a):
    from . import checkpoint, device
    from .server import Policy, Server, load_admin_token
    dev = device.pick(a.device)
    token = os.environ.get("WASMLEARN_ADMIN_TOKEN") or None
    if a.admin_token_file:
        token = load_admin_token(a.admin_token_file)
    try:
        model, tok, tpl, _, meta = checkpoint.load(a.ckpt, dev)
    except (OSError, ValueError) as e:  # a pickle, a Hugging Face dir without the learner's tokenizer, …
        raise SystemExit("wasmlearn serve: cannot load %s: %s" % (a.ckpt, e))
    if a.dtype == "bfloat16":  # half the memory; the server computes logprobs in fp32 either way
        model = model.to(torch.bfloat16)
    policy = Policy(model.eval(), tok, tpl, dev, name=a.model_name, seed=a.seed)
    policy.default_max_tokens = a.max_tokens
    srv = Server(policy, a.host, a.port, max_batch=a.max_batch, batch_wait_s=a.batch_wait_ms / 1000,
                 admin_token=token, max_body_bytes=a.max_body_bytes, read_timeout_s=a.read_timeout_s,
                 max_connections=a.max_connections, max_pending=a.max_pending).start()
    if a.port_file:  # how a parent process learns the port picked for --port 0
        from .tokenizer import atomic_write
        atomic_write(a.port_file, srv.url.encode())
    print("serving %s (step %s) at %s; admin routes %s" % (
        a.ckpt, meta.get("step"), srv.url,
        ("on (token in %s)" % a.admin_token_file if a.admin_token_file else "on (token from WASMLEARN_ADMIN_TOKEN)")
        if token else "off"), flush=True)
    try:
        srv.thread.join()
    except KeyboardInterrupt:
        pass
    finally:
        srv.close()


def cmd_sft(a):
    """SFT on trajectories (JSONL); initialises a model when --init-env-dir is given."""
    from . import checkpoint, data, device
    from .template import Template
    from .tokenizer import Tokenizer, corpus_from_env_dirs
    from .trainer import Trainer
    torch.manual_seed(a.seed)
    dev = device.pick(a.device)
    rows = data.read_jsonl(a.data)
    if a.ckpt:
        model, tok, tpl, _, _ = checkpoint.load(a.ckpt, dev)
    else:
        texts = corpus_from_env_dirs(a.init_env_dir) + [json.dumps(r.get("messages")) for r in rows]
        tok = Tokenizer.build(texts)
        tpl = Template(tok, a.max_system_tokens, a.max_tool_tokens, a.tools_style)
        model = checkpoint.new_model(a.arch, tok.vocab_size, a.d_model, a.layers, a.heads, a.max_len,
                                     a.kv_heads, a.ffn).to(dev)
    if hasattr(model, "gradient_checkpointing"):
        model.gradient_checkpointing = a.grad_ckpt
    tr = Trainer(model, tok, dev, lr=a.lr)
    losses = tr.sft(data.samples(rows, tpl, use_tokens=False), a.epochs, a.batch, rng=random.Random(a.seed))
    checkpoint.save(a.out, model, tok, tpl, tr.opt, step=tr.step)
    print(json.dumps({"first_loss": losses[0], "last_loss": losses[-1], "out": a.out}))


def cmd_grpo(a):
    """One GRPO update on rollout JSONL; prints the update's metrics."""
    from . import checkpoint, data, device
    from .trainer import Trainer, make_optimizer
    dev = device.pick(a.device)
    model, tok, tpl, opt, _ = checkpoint.load(a.ckpt, dev, lambda m: make_optimizer(m, a.lr))
    rows = data.read_jsonl(a.data)
    samples = data.samples(rows, tpl)
    tr = Trainer(model, tok, dev, lr=a.lr, beta=a.beta, optimizer=opt)
    if a.beta:
        tr.set_reference()
    st = tr.grpo_update(samples, epochs=a.ppo_epochs, batch_size=a.batch)
    st["samples"] = len(samples)
    st["samples_from_token_ids"] = sum(1 for r in rows if data.from_turn_tokens(r) is not None)
    checkpoint.save(a.out or a.ckpt, model, tok, tpl, tr.opt, step=tr.step)
    print(json.dumps(st))


def cmd_train(a):
    from .loop import Run
    s = Run(a).main()
    print(json.dumps({k: v for k, v in s.items() if k != "config"}, default=str))


def cmd_bench(a):
    from .bench import finish_args, main
    main(finish_args(a))


def cmd_demo(a):
    from .demo import main
    main(a)


def cmd_arena_demo(a):
    from .arena_demo import main
    main(a)


def cmd_arena_train(a):
    from .arena_demo import train_hook
    train_hook(a)


def add_arch_args(s):
    from .checkpoint import ARCHS
    s.add_argument("--arch", default="gpt", choices=ARCHS,
                   help="gpt: the small CPU model; qwen3/llama/qwen2: the standard decoder (llama.py), "
                        "checkpoints in the Hugging Face layout")
    s.add_argument("--kv-heads", type=int, default=0, help="key/value heads (GQA) of qwen3/llama/qwen2; 0: heads/2")
    s.add_argument("--ffn", type=int, default=0, help="MLP width of qwen3/llama/qwen2; 0: 3 x d-model")
    s.add_argument("--grad-ckpt", action="store_true",
                   help="gradient checkpointing (qwen3/llama/qwen2): recompute each layer in the backward pass")


def main(argv=None):
    p = argparse.ArgumentParser(prog="wasmlearn")
    sub = p.add_subparsers(dest="cmd", required=True)

    s = sub.add_parser("serve", help="serve a checkpoint over OpenAI chat completions")
    s.add_argument("--ckpt", required=True)
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--port-file", default="")
    s.add_argument("--admin-token-file", default="",
                   help="file of the bearer token for /admin/ routes (created with mode 0600 and a fresh "
                        "token when absent); WASMLEARN_ADMIN_TOKEN also sets it; without either, admin routes are off")
    s.add_argument("--model-name", default="wasmlearn")
    s.add_argument("--max-batch", type=int, default=256)
    s.add_argument("--batch-wait-ms", type=float, default=20)
    s.add_argument("--max-tokens", type=int, default=256)
    s.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"],
                   help="weights as served (bfloat16: half the memory; on CUDA, autocast is bf16 either way)")
    s.add_argument("--max-body-bytes", type=int, default=8 << 20, help="request body limit (413 above)")
    s.add_argument("--read-timeout-s", type=float, default=30.0,
                   help="deadline to receive a request body; also each header read and keep-alive idle (408)")
    s.add_argument("--max-connections", type=int, default=512, help="open connections at once (503 beyond)")
    s.add_argument("--max-pending", type=int, default=4096, help="sequences waiting for generation (503 beyond)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--device", default="auto")
    s.set_defaults(fn=cmd_serve)

    s = sub.add_parser("sft", help="SFT on trajectories")
    s.add_argument("--data", action="append", required=True)
    s.add_argument("--ckpt", default="")
    s.add_argument("--init-env-dir", action="append", default=[])
    s.add_argument("--out", required=True)
    s.add_argument("--epochs", type=int, default=20)
    s.add_argument("--batch", type=int, default=16)
    s.add_argument("--lr", type=float, default=1e-3)
    s.add_argument("--d-model", type=int, default=64)
    s.add_argument("--layers", type=int, default=2)
    s.add_argument("--heads", type=int, default=2)
    s.add_argument("--max-len", type=int, default=512)
    add_arch_args(s)
    s.add_argument("--max-system-tokens", type=int, default=16)
    s.add_argument("--max-tool-tokens", type=int, default=48)
    s.add_argument("--tools-style", default="compact", help="compact, names or json")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--device", default="auto")
    s.set_defaults(fn=cmd_sft)

    s = sub.add_parser("grpo", help="one GRPO update on rollout JSONL")
    s.add_argument("--data", action="append", required=True)
    s.add_argument("--ckpt", required=True)
    s.add_argument("--out", default="")
    s.add_argument("--lr", type=float, default=3e-4)
    s.add_argument("--beta", type=float, default=0.0)
    s.add_argument("--ppo-epochs", type=int, default=1)
    s.add_argument("--batch", type=int, default=32)
    s.add_argument("--device", default="auto")
    s.set_defaults(fn=cmd_grpo)

    from .loop import add_args
    s = sub.add_parser("train", help="the whole loop: oracle SFT data, SFT, GRPO rounds, held-out eval")
    add_args(s)
    s.set_defaults(fn=cmd_train)

    from .bench import add_args as bench_args
    s = sub.add_parser("bench", help="generation and GRPO-update throughput of the Llama/Qwen decoder (random weights)")
    bench_args(s)
    s.set_defaults(fn=cmd_bench)

    s = sub.add_parser("demo", help="the CPU demonstration: 3 seeds, table and curves into docs/TRAINING.md")
    s.add_argument("--wasmenv", required=True)
    s.add_argument("--out", default="runs/demo")
    s.add_argument("--seeds", default="0,1,2")
    s.add_argument("--jobs", type=int, default=1, help="seeds run side by side (one process each)")
    s.add_argument("--family", default="reason", choices=["reason", "orders"], help="demo task family (demo_env.py)")
    s.add_argument("--doc", default="")
    s.add_argument("--img", default="")
    s.add_argument("--repo", default=os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    s.set_defaults(fn=cmd_demo)

    from . import arena_demo
    s = sub.add_parser("arena-demo", help="the arena's CPU demonstration: targeted vs untargeted tasks, paired "
                                          "(docs/ARENA.md)")
    arena_demo.add_args(s)
    s.set_defaults(fn=cmd_arena_demo)
    s = sub.add_parser("arena-train", help="wasmenv arena --trainer hook of arena-demo (one arm's GRPO rounds)")
    arena_demo.add_hook_args(s)
    s.set_defaults(fn=cmd_arena_train)

    a = p.parse_args(argv)
    a.fn(a)


if __name__ == "__main__":
    sys.exit(main())
