"""The arena's CPU demonstration (issue 22, docs/ARENA.md), one command:

    cd rl/learner && WASMLEARN_THREADS=1 /usr/bin/python3 -m wasmlearn arena-demo \\
        --wasmenv /tmp/wasmenv --out /tmp/arena-demo --doc ../../docs/ARENA.md

The arena environment is synthesized by `synth from-db` from
arena_home.sql, a deliberately small smart-home database (three tables,
one-word names): the small policy trained from scratch cannot copy long
identifiers (docs/TRAINING.md), and on the store environment's tasks it
stays at 0. Per seed: the same database with another seed gives the SFT
set, minus every task the arena will evaluate; the small learner is
SFT-trained on its ground truth (the shared start). Then two arms run
`wasmenv arena` from that same checkpoint, with the same arena seed (so the
same fresh evaluation tasks and, in round 1, the same candidate pool): arm `targeted` hands the round's targeted bundle
to GRPO, arm `control` the untargeted bundle of the same size drawn from the
same pool. `--trainer` is this module's `arena-train` hook: it continues
the arm's run (`wasmlearn train --resume`), then reloads the arm's server
(`/admin/reload`), which the arena evaluates next round. The last arena
round is evaluation only, so R rounds are R−1 rounds of training.

Round 1 evaluates the same SFT policy on the same tasks in both arms: the
difference between the arms there is the evaluation's own noise, reported
beside the binomial standard error. Everything goes to OUT; a rerun skips
what is finished (the arena resumes itself). OUT/results.json holds the
numbers; `wasmenv arena plot` draws them.
"""

import json
import os
import secrets
import shutil
import subprocess
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from . import arena_report
from .arena_report import read_jsonl
from .tokenizer import atomic_write

BEGIN, END = "<!-- arena-demo:begin -->", "<!-- arena-demo:end -->"
ARMS = ("targeted", "control")
PY = "/usr/bin/python3"
LEARNER = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def add_args(s):
    s.add_argument("--wasmenv", required=True)
    s.add_argument("--out", default="runs/arena-demo")
    s.add_argument("--seeds", default="0,1,2")
    s.add_argument("--jobs", type=int, default=3, help="seeds (then arms) run side by side")
    s.add_argument("--rounds", type=int, default=3, help="arena rounds; the last is evaluation only")
    s.add_argument("--eval-tasks", type=int, default=30, help="fresh arena tasks per round")
    s.add_argument("--group", type=int, default=8, help="samples per arena task")
    s.add_argument("--targeted", type=int, default=16, help="targeted (and control) tasks per round")
    s.add_argument("--max-chain", type=int, default=2, help="synthesis: most tool calls per task")
    s.add_argument("--write-share", type=float, default=0.5, help="synthesis: share of write tasks")
    s.add_argument("--max-turns", type=int, default=4)
    s.add_argument("--sft-tasks", type=int, default=150, help="tasks drawn for the SFT set (arena tasks removed)")
    s.add_argument("--sft-epochs", type=int, default=30)
    s.add_argument("--grpo-rounds", type=int, default=10, help="GRPO rounds per arena round")
    s.add_argument("--grpo-group", type=int, default=8)
    s.add_argument("--reward", default="envfactory", help="GRPO reward (arena success is all checks passed)")
    s.add_argument("--port", type=int, default=18700, help="first port of the arms' servers (fixed, so a rerun resumes)")
    s.add_argument("--doc", default="")
    s.add_argument("--img", default="")
    s.add_argument("--repo", default=os.path.join(LEARNER, "..", ".."))


# The small model and its training recipe: docs/TRAINING.md's demonstration,
# with tool outputs cut later (an answer may sit deeper in a row) and a
# longer context for chains of two calls.
MODEL = ["--d-model", "64", "--layers", "2", "--heads", "4", "--max-len", "768", "--max-tool-tokens", "40",
         "--sft-lr", "3e-3", "--sft-batch", "8"]
GRPO = ["--lr", "3e-4", "--ppo-epochs", "2", "--batch", "32", "--beta", "0.05", "--max-tokens", "64"]


def run(cmd, log, **kw):
    with open(log, "a") as f:
        f.write("$ %s\n" % " ".join(cmd))
        f.flush()
        p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, **kw)
    if p.returncode != 0:
        raise RuntimeError("%s exited with %d (log: %s)" % (" ".join(cmd[:4]), p.returncode, log))


ENV = "home"


def synth(a, base, out_dir, n, seed, bundle=None):
    cmd = [a.wasmenv, "synth", "from-db", base, "--name", ENV, "-o", out_dir, "--tasks", str(n),
           "--seed", str(seed), "--max-chain", str(a.max_chain), "--write-share", str(a.write_share)]
    if bundle:
        cmd += ["--bundle", bundle]
    run(cmd, out_dir + ".log")
    with open(os.path.join(out_dir, "tasks.jsonl")) as f:
        return [json.loads(l) for l in f if l.strip()]


def task_keys(t):
    return {"i:" + t["instruction"], "c:" + json.dumps(t.get("calls") or [], sort_keys=True)}


def prepare_seed(a, base, s):
    """The SFT set (minus the arena's tasks of every round) and the SFT
    checkpoint every arm of seed s starts from."""
    d = os.path.join(a.out, "seed%d" % s)
    if os.path.exists(os.path.join(d, "sft", "ckpt-sft", "meta.json")):
        return
    os.makedirs(d, exist_ok=True)
    arena = set()
    for n in range(1, a.rounds + 1):  # the arena's own seeds (rl/arena: Seed+1000n+1)
        for t in synth(a, base, os.path.join(d, "arena-tasks-%d" % n), a.eval_tasks, s + 1000 * n + 1):
            arena |= task_keys(t)
    ts = synth(a, base, os.path.join(d, "sft-env"), a.sft_tasks, 50_000 + s, os.path.join(d, "sft.wasm"))
    keep = [t["id"] for t in ts if not (task_keys(t) & arena)]
    atomic_write(os.path.join(d, "sft-tasks.json"),
                 json.dumps({"drawn": len(ts), "kept": len(keep), "ids": keep}).encode())
    run([PY, "-m", "wasmlearn", "train", "--bundle", os.path.join(d, "sft.wasm"),
         "--env-dir", os.path.join(d, "sft-env"), "--wasmenv", a.wasmenv, "--out", os.path.join(d, "sft"),
         "--seed", str(s), "--train-tasks", ",".join(keep), "--eval-tasks", keep[0], "--eval-group", "1",
         "--rounds", "0", "--sft-epochs", str(a.sft_epochs), "--max-turns", str(a.max_turns)] + MODEL + GRPO,
        os.path.join(d, "sft.log"), cwd=LEARNER)


def wait_health(url, proc, timeout=300):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if proc.poll() is not None:
            raise RuntimeError("server exited with %d" % proc.returncode)
        try:
            with urllib.request.urlopen(url.rsplit("/v1", 1)[0] + "/health", timeout=5) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    raise RuntimeError("server at %s not healthy after %ds" % (url, timeout))


def serve(ckpt, port, s, log, env=None):
    srv = subprocess.Popen([PY, "-m", "wasmlearn", "serve", "--ckpt", ckpt, "--port", str(port), "--max-tokens", "64",
                            "--seed", str(s)], cwd=LEARNER, env=env, stdout=log, stderr=subprocess.STDOUT)
    return srv


def stop(srv):
    srv.terminate()
    try:
        srv.wait(30)
    except subprocess.TimeoutExpired:
        srv.kill()


def run_baseline(a, s, port):
    """The SFT policy, never trained further, on every later round's
    arena tasks (the same tasks the arms were evaluated on, read from the
    targeted arm's rollouts): what the rounds' task mix alone does."""
    d = os.path.join(a.out, "seed%d" % s)
    out = os.path.join(d, "baseline")
    os.makedirs(out, exist_ok=True)
    todo = [n for n in range(2, a.rounds + 1) if not os.path.exists(os.path.join(out, "round-%d.jsonl" % n))]
    if not todo:
        return
    url = "http://127.0.0.1:%d/v1" % port
    log = open(os.path.join(out, "server.log"), "a")
    srv = serve(os.path.join(d, "sft", "ckpt-sft"), port, s, log)
    try:
        wait_health(url, srv)
        for n in todo:
            rd = os.path.join(d, "targeted", "arena", "round-%d" % n)
            ids = sorted({r["task"] for r in read_jsonl(os.path.join(rd, "rollouts.jsonl")) if r.get("task")})
            dst = os.path.join(out, "round-%d.jsonl" % n)
            run([a.wasmenv, "rollout", os.path.join(rd, "eval", ENV + ".wasm"), "--policy", "openai", "--base-url", url,
                 "--model", "wasmlearn", "--group", str(a.group), "--tasks", ",".join(ids), "--max-turns",
                 str(a.max_turns), "--seed", str(s + 1000 * n + 1), "-q", "-o", dst + ".tmp.jsonl"],
                os.path.join(out, "rollout.log"), env=dict(os.environ, OPENAI_API_KEY="none"))
            os.replace(dst + ".tmp.jsonl", dst)
    finally:
        stop(srv)
        log.close()


def run_arm(a, base, s, arm, port):
    d = os.path.join(a.out, "seed%d" % s)
    ad = os.path.join(d, arm)
    learn = os.path.join(ad, "learn")
    if os.path.exists(os.path.join(ad, "arena", "round-%d" % a.rounds, "round.json")):
        return
    for sub in ("ckpt", "ckpt-sft"):  # the shared start; ckpt then moves with training
        if not os.path.exists(os.path.join(learn, sub, "meta.json")):
            shutil.rmtree(os.path.join(learn, sub), ignore_errors=True)
            shutil.copytree(os.path.join(d, "sft", "ckpt-sft"), os.path.join(learn, sub))
    url = "http://127.0.0.1:%d/v1" % port
    env = dict(os.environ, WASMLEARN_ADMIN_TOKEN=secrets.token_urlsafe(24), OPENAI_API_KEY="none")
    log = open(os.path.join(ad, "server.log"), "a")
    srv = serve(os.path.join(learn, "ckpt"), port, s, log, env)
    try:
        wait_health(url, srv)
        hook = " ".join([PY, "-m", "wasmlearn", "arena-train", "--arm", arm, "--learn", learn, "--url", url,
                         "--wasmenv", a.wasmenv, "--seed", str(s), "--grpo-rounds", str(a.grpo_rounds),
                         "--last-round", str(a.rounds - 1), "--group", str(a.grpo_group), "--reward", a.reward,
                         "--max-turns", str(a.max_turns)])
        run([a.wasmenv, "arena", "--arena", "%s=%s:smart-home" % (ENV, base), "--policy", "openai", "--base-url", url,
             "--model", "wasmlearn", "--rounds", str(a.rounds), "--eval-tasks", str(a.eval_tasks),
             "--group", str(a.group), "--targeted", str(a.targeted), "--max-turns", str(a.max_turns),
             "--seed", str(s), "--min-gain=-1", "--max-chain", str(a.max_chain),
             "--write-share", str(a.write_share), "--out", os.path.join(ad, "arena"),
             "--trainer", "cd %s && %s" % (LEARNER, hook)], os.path.join(ad, "arena.log"), env=env)
    finally:
        stop(srv)
        log.close()


def main(a):
    a.out = os.path.abspath(a.out)
    a.wasmenv = os.path.abspath(a.wasmenv)
    repo = os.path.abspath(a.repo)
    if a.rounds < 2:
        raise SystemExit("arena-demo: --rounds must be at least 2 (one of training, one of evaluation)")
    os.makedirs(a.out, exist_ok=True)
    base = os.path.join(a.out, ENV + ".sqlite")
    if not os.path.exists(base):
        import sqlite3
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "arena_home.sql")) as f:
            sql = f.read()
        tmp = base + ".tmp"
        if os.path.exists(tmp):
            os.remove(tmp)
        db = sqlite3.connect(tmp)
        db.executescript(sql)
        db.commit()
        db.close()
        os.replace(tmp, base)
    seeds = [int(x) for x in a.seeds.split(",") if x]
    t0 = time.time()
    with ThreadPoolExecutor(max(a.jobs, 1)) as ex:
        for f in [ex.submit(prepare_seed, a, base, s) for s in seeds]:
            f.result()
        print("arena-demo: SFT done (%.1f min)" % ((time.time() - t0) / 60), flush=True)
        jobs = [(s, arm, a.port + 2 * i + j) for i, s in enumerate(seeds) for j, arm in enumerate(ARMS)]
        futs = {ex.submit(run_arm, a, base, s, arm, port): (s, arm) for s, arm, port in jobs}
        for f, (s, arm) in futs.items():
            f.result()
            print("arena-demo: seed %d %s done (%.1f min)" % (s, arm, (time.time() - t0) / 60), flush=True)
        for f in [ex.submit(run_baseline, a, s, a.port + 2 * len(seeds) + i) for i, s in enumerate(seeds)]:
            f.result()
        print("arena-demo: SFT baselines done (%.1f min)" % ((time.time() - t0) / 60), flush=True)
    wall_path = os.path.join(a.out, "wall.json")
    if not os.path.exists(wall_path):
        atomic_write(wall_path, json.dumps({"wall_s": time.time() - t0, "jobs": a.jobs}).encode())
    res = arena_report.results(a, seeds)
    atomic_write(os.path.join(a.out, "results.json"), json.dumps(res, indent=1).encode())
    img = a.img or (os.path.join(repo, "docs", "img", "arena-demo.png") if a.doc
                    else os.path.join(a.out, "arena-demo.png"))
    plotted = subprocess.run([a.wasmenv, "arena", "plot", os.path.join(a.out, "results.json"), "-o", img]).returncode == 0
    md = arena_report.markdown(res, os.path.relpath(img, os.path.dirname(os.path.abspath(a.doc)) if a.doc else a.out)
                               if plotted else None)
    md = BEGIN + "\n\n" + md + "\n" + END
    atomic_write(os.path.join(a.out, "report.md"), md.encode())
    if a.doc:
        with open(a.doc) as f:
            doc = f.read()
        if BEGIN in doc and END in doc:
            doc = doc[:doc.index(BEGIN)] + md + doc[doc.index(END) + len(END):]
        else:
            doc += "\n" + md + "\n"
        atomic_write(a.doc, doc.encode())
    print(md)


def arm_bundle(arm, targeted):
    """The bundle an arm trains on: the round's targeted bundle
    (round-N/targeted/NAME.wasm), or for the control arm the untargeted pick
    of the same size from the same pool, written beside it
    (round-N/control/NAME.wasm)."""
    if arm == "targeted":
        return targeted
    head, name = os.path.split(targeted)
    if os.path.basename(head) != "targeted":
        raise ValueError("not an arena targeted bundle: %s" % targeted)
    return os.path.join(os.path.dirname(head), "control", name)


def train_hook(a):
    """`--trainer` of one arm: continue its run on the round's bundle
    (targeted, or the control drawn beside it), then reload its server."""
    rnd = int(os.environ["WASMENV_ARENA_ROUND"])
    if rnd > a.last_round:
        print("arena-train: round %d is evaluation only" % rnd, flush=True)
        return
    bundles = os.environ["WASMENV_ARENA_BUNDLES"].split()
    if len(bundles) != 1:
        raise SystemExit("arena-train: want one weak environment's bundle, got %d" % len(bundles))
    b = arm_bundle(a.arm, bundles[0])
    if not os.path.exists(b):
        raise SystemExit("arena-train: %s does not exist" % b)
    cmd = [PY, "-m", "wasmlearn", "train", "--resume", "--bundle", b, "--wasmenv", a.wasmenv, "--out", a.learn,
           "--seed", str(a.seed), "--train-tasks", "*", "--eval-tasks", "*", "--eval-group", "1",
           "--rounds", str(a.grpo_rounds * rnd), "--group", str(a.group), "--reward", a.reward,
           "--max-turns", str(a.max_turns)] + GRPO
    p = subprocess.run(cmd, cwd=LEARNER)
    if p.returncode != 0:
        raise SystemExit("arena-train: %s exited with %d" % (" ".join(cmd[:5]), p.returncode))
    req = urllib.request.Request(a.url.rsplit("/v1", 1)[0] + "/admin/reload", method="POST",
                                 data=json.dumps({"path": os.path.join(a.learn, "ckpt")}).encode(),
                                 headers={"Authorization": "Bearer " + os.environ["WASMLEARN_ADMIN_TOKEN"],
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        print("arena-train: round %d trained on %s, server reloaded (%d)" % (rnd, b, r.status), flush=True)


def add_hook_args(s):
    s.add_argument("--arm", required=True, choices=ARMS)
    s.add_argument("--learn", required=True)
    s.add_argument("--url", required=True)
    s.add_argument("--wasmenv", required=True)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--grpo-rounds", type=int, default=10)
    s.add_argument("--last-round", type=int, required=True)
    s.add_argument("--group", type=int, default=8)
    s.add_argument("--reward", default="envfactory")
    s.add_argument("--max-turns", type=int, default=4)
