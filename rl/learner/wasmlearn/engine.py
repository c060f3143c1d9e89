"""Drives the Go rollout engine (`wasmenv rollout`) as a subprocess and
reads back its JSONL trajectories (docs/ROLLOUT.md)."""

import os
import subprocess
import time

from .data import read_jsonl


class EngineError(RuntimeError):
    pass


class Engine:
    def __init__(self, wasmenv, bundle, max_turns=4, reward="binary", turn_max_tokens=0, extra_args=None, log=None):
        self.wasmenv, self.bundle = wasmenv, bundle
        self.max_turns, self.reward = max_turns, reward
        self.turn_max_tokens = turn_max_tokens
        self.extra = list(extra_args or [])
        self.log = log

    def rollout(self, out_path, tasks, group, policy="openai", base_url=None, model="wasmlearn", seed=0):
        """Runs one `wasmenv rollout`; returns (rows, seconds)."""
        cmd = [self.wasmenv, "rollout", self.bundle, "--policy", policy, "--group", str(group),
               "--tasks", tasks, "--max-turns", str(self.max_turns), "--reward", self.reward,
               "--seed", str(seed), "-q", "-o", out_path] + self.extra
        if policy == "openai":
            cmd += ["--base-url", base_url, "--model", model]
            if self.turn_max_tokens:
                cmd += ["--turn-max-tokens", str(self.turn_max_tokens)]
        env = dict(os.environ)
        env.setdefault("OPENAI_API_KEY", "none")
        t0 = time.time()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        dt = time.time() - t0
        if p.returncode != 0:
            raise EngineError("%s failed (%d): %s" % (" ".join(cmd), p.returncode,
                                                        p.stderr.decode(errors="replace")[-2000:]))
        if self.log:
            self.log(p.stdout.decode(errors="replace").strip().splitlines()[-3:])
        return read_jsonl([out_path]), dt


def success(rows):
    """Fraction of rollouts that solved their task (all checks passed)."""
    ok = [float((r.get("reward_components") or {}).get("all_passed", 0.0)) for r in rows]
    return sum(ok) / len(ok) if ok else 0.0


def mean_reward(rows):
    return sum(float(r.get("reward", 0.0)) for r in rows) / len(rows) if rows else 0.0
