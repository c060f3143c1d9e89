"""The CPU demonstration, one command:

    cd rl/learner && /usr/bin/python3 -m wasmlearn demo --wasmenv /tmp/wasmenv --out /tmp/demo

Synthesizes the store-cancel tasks from envs/store (demo_env.py), builds the
bundle, runs the whole loop (loop.py) for each seed, printing a line per
seed and round as they finish, then writes the table (held-out success
after SFT and after GRPO, mean ± std over seeds) and the learning curves to
OUT/report.md and the plot to OUT/training-curves.png (matplotlib; skipped
with a note when absent). --doc FILE also splices the report into FILE
between the demo markers (how docs/TRAINING.md's committed copy is made).
"""

import argparse
import json
import os
import statistics
import subprocess
import time

from . import demo_env
from .tokenizer import atomic_write

BEGIN, END = "<!-- demo:begin -->", "<!-- demo:end -->"

# The demonstration's settings (documented in docs/TRAINING.md).
TRAIN = {
    "reason": ["--sft-epochs", "12", "--sft-lr", "3e-3", "--sft-batch", "8", "--rounds", "20", "--group", "16",
               "--eval-group", "8", "--greedy-eval", "--max-turns", "3", "--max-tokens", "64",
               "--d-model", "64", "--layers", "2", "--heads", "4", "--lr", "3e-4", "--ppo-epochs", "2",
               "--batch", "32", "--eval-every", "10", "--beta", "0.05"],
    "orders": ["--sft-epochs", "3", "--sft-lr", "3e-3", "--sft-batch", "8", "--rounds", "8", "--group", "8",
               "--eval-group", "1", "--greedy-eval", "--max-turns", "3", "--max-tokens", "64",
               "--d-model", "64", "--layers", "2", "--heads", "4", "--lr", "1e-3", "--ppo-epochs", "2",
               "--batch", "32", "--eval-every", "4"],
}
# One glob per round over the training tasks: one (phrasing, greeting) of the
# reason family (all reasons and wordings, ~12 tasks), or one (wording,
# phrasing, greeting) of the orders family (~24 tasks).
ROUND_GLOBS = {
    "reason": ",".join("train-*-?%d%d" % (r % 3, r % 4) for r in range(12)),
    "orders": ",".join("train-*-%d%d%d" % ((r // 4) % 2, r % 3, r % 4) for r in range(24)),
}


def main(a):
    repo = os.path.abspath(a.repo)
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    env_dir = os.path.join(out, "store-cancel")
    ts = demo_env.write(os.path.join(repo, "envs", "store"), env_dir, family=a.family)
    bundle = os.path.join(out, "store-cancel.wasm")
    subprocess.run([a.wasmenv, "build", env_dir, "-o", bundle], check=True)
    n_train = sum(t["id"].startswith("train-") for t in ts)
    n_held = len(ts) - n_train
    seeds = [int(s) for s in a.seeds.split(",") if s]
    results = []
    t0 = time.time()
    procs = []
    rounds = int(TRAIN[a.family][TRAIN[a.family].index("--rounds") + 1])
    seen = {}
    print("demo: %d seed(s), %d at a time, %d GRPO rounds each; logs in %s/seed*.log"
          % (len(seeds), max(a.jobs, 1), rounds, out), flush=True)
    for s in seeds:
        run_dir = os.path.join(out, "seed%d" % s)
        if os.path.exists(os.path.join(run_dir, "summary.json")):
            continue
        cmd = ["/usr/bin/python3", "-m", "wasmlearn", "train", "--bundle", bundle, "--env-dir", env_dir,
               "--wasmenv", a.wasmenv, "--out", run_dir, "--seed", str(s),
               "--round-tasks", ROUND_GLOBS[a.family]] + TRAIN[a.family]
        while len([p for p in procs if p.poll() is None]) >= max(a.jobs, 1):
            seen = progress(out, seeds, rounds, seen, t0)
            time.sleep(1)
        log = open(os.path.join(out, "seed%d.log" % s), "w")
        procs.append(subprocess.Popen(cmd, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                      stdout=log, stderr=subprocess.STDOUT))
    while any(p.poll() is None for p in procs):
        seen = progress(out, seeds, rounds, seen, t0)
        time.sleep(1)
    progress(out, seeds, rounds, seen, t0)
    for p in procs:
        if p.wait() != 0:
            raise SystemExit("demo: %s exited with %d (see its log in %s)" % (" ".join(p.args[:6]), p.returncode, out))
    for s in seeds:
        with open(os.path.join(out, "seed%d" % s, "summary.json")) as f:
            results.append(json.load(f))
    # a re-run that finds every seed done reports the wall time of the run that did them
    wall_path = os.path.join(out, "wall.json")
    if procs or not os.path.exists(wall_path):
        # seeds found done without a record: the longest seed bounds the wall time from below
        wall = time.time() - t0 if procs else max(r.get("seconds", 0) for r in results)
        atomic_write(wall_path, json.dumps({"wall_s": wall, "jobs": a.jobs}).encode())
    with open(wall_path) as f:
        w = json.load(f)
    wall, a.jobs = w["wall_s"], w["jobs"]
    curves = {s: read_metrics(os.path.join(out, "seed%d" % s, "metrics.jsonl")) for s in seeds}
    img = a.img or (os.path.join(repo, "docs", "img", "training-curves.png") if a.doc
                    else os.path.join(out, "training-curves.png"))
    plotted = plot(curves, img)
    md = report(results, curves, n_train, n_held, wall, plotted,
                os.path.relpath(img, os.path.dirname(os.path.abspath(a.doc)) if a.doc else out),
                min(max(a.jobs, 1), len(seeds)))
    atomic_write(os.path.join(out, "report.md"), md.encode())
    if a.doc:
        with open(a.doc) as f:
            doc = f.read()
        if BEGIN in doc and END in doc:
            doc = doc[:doc.index(BEGIN)] + md + doc[doc.index(END) + len(END):]
        else:
            doc += "\n" + md
        atomic_write(a.doc, doc.encode())
    print(md)
    print("demo: report in %s" % os.path.join(out, "report.md"), flush=True)


def progress(out, seeds, rounds, seen, t0):
    """Prints one line per seed and finished round or evaluation (from each
    seed's metrics.jsonl); returns what has been printed."""
    for s in seeds:
        path = os.path.join(out, "seed%d" % s, "metrics.jsonl")
        try:
            with open(path) as f:
                lines = f.readlines()
        except OSError:
            continue
        done = seen.get(s, 0)
        for line in lines[done:]:
            if not line.endswith("\n"):
                break  # being written
            done += 1
            try:
                m = json.loads(line)
            except ValueError:
                continue
            phase = m.get("phase")
            if phase == "grpo":
                what = "round %d/%d: train success %.3f" % (m.get("round", 0) + 1, rounds, m.get("success", 0))
            elif phase == "eval":
                what = "held-out success %.3f" % m.get("heldout_success", 0)
            else:
                what = "%s %s" % (phase, m.get("epoch", ""))
            print("demo: seed %d %s (%.1f min)" % (s, what, (time.time() - t0) / 60), flush=True)
        seen[s] = done
    return seen


def read_metrics(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def mean_std(xs, f="%.3f"):
    xs = [x for x in xs if x is not None]
    if not xs:
        return "n/a"
    m = statistics.mean(xs)
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return (f + " ± %.3f") % (m, sd)


def delta(r, k):
    a, b = r.get("sft_" + k), r.get("grpo_" + k)
    return None if a is None or b is None else b - a


def report(results, curves, n_train, n_held, wall, plotted, img_rel, jobs=1):
    L = [BEGIN, "", "### Results (written by `python3 -m wasmlearn demo`)", ""]
    secs = [r.get("seconds", 0) for r in results]
    L.append("Tasks: %d training, %d held-out (combinations never trained on); %d seeds of the whole "
             "run (tokenizer, model init, SFT, GRPO, sampling). One seed's run took %.1f–%.1f min "
             "(%.1f min wall for the whole demo, %d seed(s) side by side) on this machine (2 cores)."
             % (n_train, n_held, len(results), min(secs) / 60, max(secs) / 60, wall / 60, jobs))
    L.append("")
    L.append("| seed | held-out success after SFT | after GRPO | Δ (paired) | greedy after SFT | greedy after GRPO | Δ greedy | run time (s) |")
    L.append("|---|---|---|---|---|---|---|---|")
    for r in results:
        L.append("| %s | %.3f | %.3f | %+.3f | %s | %s | %s | %.0f |" % (
            r["seed"], r["sft_heldout_success"], r["grpo_heldout_success"],
            r["grpo_heldout_success"] - r["sft_heldout_success"],
            fmt(r.get("sft_heldout_success_greedy")), fmt(r.get("grpo_heldout_success_greedy")),
            fmt(delta(r, "heldout_success_greedy"), "%+.3f"), r.get("seconds", 0)))
    L.append("| **mean ± std** | **%s** | **%s** | **%s** | %s | %s | %s | |" % (
        mean_std([r["sft_heldout_success"] for r in results]),
        mean_std([r["grpo_heldout_success"] for r in results]),
        mean_std([delta(r, "heldout_success") for r in results], "%+.3f"),
        mean_std([r.get("sft_heldout_success_greedy") for r in results]),
        mean_std([r.get("grpo_heldout_success_greedy") for r in results]),
        mean_std([delta(r, "heldout_success_greedy") for r in results], "%+.3f")))
    n_eval = results[0].get("sft_heldout_n") if results else None
    L.append("")
    L.append("Sampled success is over %s rollouts per evaluation (every held-out task %s times at temperature 1), "
             "greedy over one rollout per held-out task; Δ is GRPO − SFT on the same seed (the same SFT policy), "
             "its mean ± std over seeds." % (n_eval, (n_eval // n_held) if n_eval and n_held else "n"))
    L.append("")
    L.append("Per round (mean over seeds): training-task success of the round's rollouts, clip fraction, "
             "KL between the policy before and after the round's update (k3), entropy, generation and update tokens/s.")
    L.append("")
    L.append("| round | train success | clip frac | KL(old‖new) | entropy | gen tok/s | update tok/s |")
    L.append("|---|---|---|---|---|---|---|")
    rounds = sorted({m["round"] for c in curves.values() for m in c if m.get("phase") == "grpo"})
    for rd in rounds:
        ms = [m for c in curves.values() for m in c if m.get("phase") == "grpo" and m["round"] == rd]
        avg = lambda k: statistics.mean(m.get(k, 0.0) for m in ms)
        L.append("| %d | %.3f | %.3f | %.4f | %.3f | %.0f | %.0f |" % (rd, avg("success"), avg("clip_frac"),
                                                              avg("policy_kl"), avg("entropy"), avg("gen_tokens_per_s"),
                                                              avg("update_tokens_per_s")))
    L.append("")
    if plotted:
        L.append("![learning curves](%s)" % img_rel)
    else:
        L.append("(no plot: matplotlib is not installed for /usr/bin/python3)")
    L += ["", END]
    return "\n".join(L)


def fmt(x, f="%.3f"):
    return "n/a" if x is None else f % x


def plot(curves, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    for s, ms in sorted(curves.items()):
        g = [m for m in ms if m.get("phase") == "grpo"]
        ax[0].plot([m["round"] for m in g], [m["success"] for m in g], marker="o", label="seed %d" % s)
        ev = [m for m in ms if m.get("phase") == "eval"]
        ax[1].plot([m["round"] + 1 for m in ev], [m["heldout_success"] for m in ev], marker="s", label="seed %d" % s)
        ax[2].plot([m["round"] for m in g], [m.get("entropy", 0) for m in g], marker=".", label="seed %d" % s)
    ax[0].set(title="training tasks: success per GRPO round", xlabel="round", ylabel="success")
    ax[1].set(title="held-out success (0 = after SFT)", xlabel="GRPO rounds done", ylabel="success")
    ax[2].set(title="policy entropy (own tokens)", xlabel="round", ylabel="nats/token")
    for x in ax:
        x.grid(alpha=0.3)
        x.legend(fontsize=7)
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, path)
    return True
