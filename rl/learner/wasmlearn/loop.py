"""The training loop, one command:

    /usr/bin/python3 -m wasmlearn train --bundle B.wasm --wasmenv ./wasmenv --out runs/x

1. ground truth: `wasmenv rollout --policy oracle` on the training tasks;
2. tokenizer from the environment's text and those trajectories; model init;
3. SFT cold start on the ground-truth trajectories;
4. the learner serves the policy (OpenAI chat completions, in this process);
   held-out evaluation through the engine;
5. GRPO rounds: `wasmenv rollout --policy openai --group G` on training
   tasks → rewards and group-relative advantages (the engine's) → one update
   → the server serves the new weights at once (same module, under a lock);
6. held-out evaluation again; metrics per round in metrics.jsonl, summary.json,
   checkpoints in ckpt-sft/ and ckpt/ (resume with --resume).
"""

import json
import os
import random
import time

import torch

from . import checkpoint, data
from . import device as devmod
from .engine import Engine, mean_reward, success
from .server import Policy, Server
from .template import Template
from .tokenizer import Tokenizer, atomic_write, corpus_from_env_dirs
from .trainer import Trainer


def add_args(p):
    p.add_argument("--bundle", required=True, help="environment bundle (.wasm)")
    p.add_argument("--env-dir", action="append", default=[], help="env source dir(s) for the vocabulary")
    p.add_argument("--wasmenv", default="wasmenv", help="path of the wasmenv binary")
    p.add_argument("--out", required=True, help="run directory")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--device", default="auto")
    p.add_argument("--train-tasks", default="train-*", help="glob of training task ids (SFT data)")
    p.add_argument("--round-tasks", default="", help="comma-separated globs, one per GRPO round in turn "
                                                     "(default: --train-tasks every round)")
    p.add_argument("--eval-tasks", default="heldout-*", help="glob of held-out task ids")
    p.add_argument("--eval-group", type=int, default=1, help="samples per held-out task")
    p.add_argument("--greedy-eval", action="store_true", help="also evaluate at temperature 0")
    p.add_argument("--max-turns", type=int, default=4)
    p.add_argument("--max-tokens", type=int, default=64, help="completion tokens per turn")
    p.add_argument("--reward", default="binary", help="the engine's reward for GRPO rounds: binary, fraction, awm, "
                                                      "envfactory (success is always all checks passed)")
    # model
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--layers", type=int, default=3)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--max-len", type=int, default=512)
    from .__main__ import add_arch_args
    add_arch_args(p)
    p.add_argument("--max-system-tokens", type=int, default=0, help="cut the system prompt (rules) to this many tokens")
    p.add_argument("--max-tool-tokens", type=int, default=12, help="cut each tool output to this many tokens")
    p.add_argument("--tools-style", default="names", help="compact, names or json")
    # SFT
    p.add_argument("--sft-epochs", type=int, default=3)
    p.add_argument("--sft-lr", type=float, default=1e-3)
    p.add_argument("--sft-batch", type=int, default=16)
    # GRPO
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--group", type=int, default=8)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--ppo-epochs", type=int, default=1)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--clip-low", type=float, default=0.2)
    p.add_argument("--clip-high", type=float, default=0.28)
    p.add_argument("--beta", type=float, default=0.0, help="KL coefficient to the SFT policy")
    p.add_argument("--eval-every", type=int, default=0, help="held-out eval every N rounds (0: start and end)")
    p.add_argument("--resume", action="store_true")


class Run:
    def __init__(self, a):
        self.a = a
        os.makedirs(a.out, exist_ok=True)
        self.metrics_path = os.path.join(a.out, "metrics.jsonl")
        self.t0 = time.time()
        self.engine = Engine(a.wasmenv, a.bundle, max_turns=a.max_turns, turn_max_tokens=a.max_tokens,
                             reward=getattr(a, "reward", "binary"))

    def log(self, rec):
        rec = dict(rec, seed=self.a.seed, elapsed_s=round(time.time() - self.t0, 2))
        with open(self.metrics_path, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)

    def path(self, name):
        return os.path.join(self.a.out, name)

    def build_model(self, sft_rows):
        a = self.a
        texts = corpus_from_env_dirs(a.env_dir)
        texts += [json.dumps(r.get("messages"), ensure_ascii=False) for r in sft_rows]
        texts += [json.dumps(r.get("tools"), ensure_ascii=False) for r in sft_rows[:1]]
        tok = Tokenizer.build(texts)
        tpl = Template(tok, a.max_system_tokens, a.max_tool_tokens, a.tools_style)
        model = checkpoint.new_model(getattr(a, "arch", "gpt"), tok.vocab_size, a.d_model, a.layers, a.heads,
                                     a.max_len, getattr(a, "kv_heads", 0), getattr(a, "ffn", 0))
        return model, tok, tpl

    def evaluate(self, server, policy, tag, round_no):
        a = self.a
        out = {}
        rows, dt = self.engine.rollout(self.path("eval-%s.jsonl" % tag), a.eval_tasks, a.eval_group,
                                       base_url=server.url, seed=10_000 + a.seed)
        out["heldout_success"] = success(rows)
        out["heldout_reward"] = mean_reward(rows)
        out["heldout_n"] = len(rows)
        if a.greedy_eval and tag in ("sft", "grpo"):
            policy.override_temperature = 0.0
            try:
                rows, _ = self.engine.rollout(self.path("eval-%s-greedy.jsonl" % tag), a.eval_tasks, 1,
                                              base_url=server.url, seed=20_000 + a.seed)
            finally:
                policy.override_temperature = None
            out["heldout_success_greedy"] = success(rows)
        self.log(dict(out, phase="eval", tag=tag, round=round_no))
        return out

    def main(self):
        a = self.a
        random.seed(a.seed)
        torch.manual_seed(a.seed)
        rng = random.Random(a.seed)
        dev = devmod.pick(a.device)
        ck = self.path("ckpt")
        start_round = 0
        summary = {"seed": a.seed, "config": {k: v for k, v in vars(a).items()
                                                if isinstance(v, (int, float, str, bool, list, type(None)))}}
        if a.resume and os.path.exists(os.path.join(ck, "meta.json")):
            model, tok, tpl, opt, meta = checkpoint.load(ck, dev, lambda m: torch.optim.AdamW(m.parameters(), lr=a.lr))
            trainer = Trainer(model, tok, dev, lr=a.lr, clip_low=a.clip_low, clip_high=a.clip_high,
                              beta=a.beta, optimizer=opt)
            start_round = meta["extra"].get("round", -1) + 1
            summary.update(meta["extra"].get("summary", {}))
            if a.beta:
                sft_model, _, _, _, _ = checkpoint.load(self.path("ckpt-sft"), dev)
                trainer.ref = sft_model.eval()
        else:
            sft_rows, dt = self.engine.rollout(self.path("sft.jsonl"), a.train_tasks, 1, policy="oracle",
                                               seed=a.seed)
            # the engine writes rollouts as they finish: sort them so the
            # vocabulary and the SFT order depend on the seed alone
            sft_rows.sort(key=lambda r: (r.get("task", ""), r.get("index", 0)))
            model, tok, tpl = self.build_model(sft_rows)
            model.to(dev)
            if hasattr(model, "gradient_checkpointing"):
                model.gradient_checkpointing = getattr(a, "grad_ckpt", False)
            self.log({"phase": "setup", "sft_trajectories": len(sft_rows),
                      "oracle_success": success(sft_rows), "vocab": tok.vocab_size,
                      "params": sum(p.numel() for p in model.parameters())})
            trainer = Trainer(model, tok, dev, lr=a.sft_lr)
            samples = data.samples(sft_rows, tpl, use_tokens=False)
            t = time.time()
            trainer.sft(samples, a.sft_epochs, a.sft_batch, rng=rng,
                        log=lambda r: self.log(dict(r, round=-1)))
            summary["sft_seconds"] = time.time() - t
            checkpoint.save(self.path("ckpt-sft"), model, tok, tpl, step=trainer.step)
            for g in trainer.opt.param_groups:  # the RL phase's own learning rate
                g["lr"] = a.lr
            trainer.clip_low, trainer.clip_high, trainer.beta = a.clip_low, a.clip_high, a.beta
            if a.beta:
                trainer.set_reference()
        policy = Policy(model, tok, tpl, dev, seed=a.seed)
        policy.default_max_tokens = a.max_tokens
        server = Server(policy, max_batch=256, batch_wait_s=0.02).start()
        try:
            if start_round == 0:
                ev = self.evaluate(server, policy, "sft", -1)
                summary.update({"sft_" + k: v for k, v in ev.items()})
            globs = [g for g in a.round_tasks.split(",") if g] or [a.train_tasks]
            for r in range(start_round, a.rounds):
                g = globs[r % len(globs)]
                s0 = dict(policy.stats)
                rows, gen_dt = self.engine.rollout(self.path("round-%03d.jsonl" % r), g, a.group,
                                                   base_url=server.url, seed=1000 * (a.seed + 1) + r)
                gen_tokens = policy.stats["generated_tokens"] - s0["generated_tokens"]
                gen_s = policy.stats["generate_seconds"] - s0["generate_seconds"]
                samples = data.samples(rows, tpl)
                signal = [s for s in samples if s["adv"] != 0.0]
                with policy.lock:
                    st = trainer.grpo_update(signal, epochs=a.ppo_epochs, batch_size=a.batch, rng=rng)
                    policy.version += 1
                rec = {"phase": "grpo", "round": r, "tasks": g, "rollouts": len(rows),
                       "reward": mean_reward(rows), "success": success(rows),
                       "format_error_rate": sum(bool(x.get("format_error")) for x in rows) / max(len(rows), 1),
                       "samples_with_signal": len(signal), "samples": len(samples),
                       "rollout_seconds": gen_dt, "gen_tokens": gen_tokens,
                       "gen_tokens_per_s": gen_tokens / gen_s if gen_s > 0 else 0.0}
                rec.update(st)
                self.log(rec)
                if a.eval_every and (r + 1) % a.eval_every == 0 and r + 1 < a.rounds:
                    self.evaluate(server, policy, "round-%03d" % r, r)
                checkpoint.save(ck, model, tok, tpl, trainer.opt, step=trainer.step,
                                extra={"round": r, "summary": summary})
            ev = self.evaluate(server, policy, "grpo", a.rounds - 1)
            summary.update({"grpo_" + k: v for k, v in ev.items()})
            summary["seconds"] = time.time() - self.t0
            atomic_write(self.path("summary.json"), json.dumps(summary, indent=1, default=str).encode())
            return summary
        finally:
            server.close()
