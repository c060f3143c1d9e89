"""The arena demonstration's report (arena_demo.py writes results.json;
this turns it into the markdown spliced into docs/ARENA.md)."""

import json
import math
import os
import statistics
import subprocess

from . import data

ARMS = ("targeted", "control")


def mean_std(xs, f="%.3f"):
    if not xs:
        return "n/a"
    sd = statistics.stdev(xs) if len(xs) > 1 else 0.0
    return (f % statistics.mean(xs)) + " ± " + ("%.3f" % sd)


def noise(res):
    """The evaluation's noise: round 1 evaluates the same SFT policy on the
    same tasks in both arms, so targeted − control there is noise alone;
    and the binomial standard error of one figure and of a paired
    difference at the round-1 success level."""
    d1, ses = [], []
    for s in res["seeds"]:
        t, c = (s["arms"][arm]["rounds"][0] for arm in ARMS)
        d1.append(t["success"] - c["success"])
        for r in (t, c):
            p, n = r["success"], max(r["rollouts"], 1)
            ses.append(math.sqrt(max(p * (1 - p), 0.0) / n))
    se = statistics.mean(ses) if ses else 0.0
    return d1, se


def markdown(res, img_rel):
    st = res["settings"]
    seeds = res["seeds"]
    R = st["rounds"]
    L = ["### Results (written by `python3 -m wasmlearn arena-demo`)", ""]
    n_roll = seeds[0]["arms"]["targeted"]["rounds"][0]["rollouts"] if seeds else 0
    L.append("Arena: `home` (`synth from-db` on `arena_home.sql`, chains of at most %d calls, write share %g), "
             "%d fresh tasks drawn per round × %d samples at temperature 1 (%d rollouts per figure in round 1, fewer later: "
             "the tasks earlier rounds used are dropped); %d targeted (or "
             "control) tasks per round, %d GRPO rounds of group %d on them per arena round (reward `%s`); "
             "SFT on %s ground-truth trajectories of the same database (every task the arena evaluates removed). "
             "%d seeds; %.1f min wall for everything (%d jobs side by side, 2-core shared machine)."
             % (st["max_chain"], st["write_share"], st["eval_tasks"], st["group"], n_roll, st["targeted"],
                st["grpo_rounds"], st["grpo_group"], st["reward"],
                "/".join(str(s["sft_tasks"]) for s in seeds), len(seeds), res["wall_s"] / 60, st["jobs"]))
    L.append("")
    head = "| seed |"
    rule = "|---|"
    for n in range(1, R + 1):
        what = "SFT policy" if n == 1 else "after %d training round%s" % (n - 1, "s" if n > 2 else "")
        head += " round %d (%s): targeted | control | Δ |" % (n, what)
        rule += "---|---|---|"
    L += [head, rule]
    cols = {}
    for s in seeds:
        row = "| %d |" % s["seed"]
        for n in range(R):
            t = s["arms"]["targeted"]["rounds"][n]["success"]
            c = s["arms"]["control"]["rounds"][n]["success"]
            cols.setdefault(n, []).append((t, c, t - c))
            row += " %.3f | %.3f | %+.3f |" % (t, c, t - c)
        L.append(row)
    row = "| **mean ± std** |"
    for n in range(R):
        ts, cs, ds = zip(*cols[n])
        row += " %s | %s | **%s** |" % (mean_std(list(ts)), mean_std(list(cs)), mean_std(list(ds), "%+.3f"))
    L.append(row)
    L.append("")
    if all("sft_baseline" in s for s in seeds):
        L.append("Each round draws other tasks (and fewer: the fresh filter drops what earlier rounds used), so "
                 "levels move with the task mix; the SFT policy, never trained further, evaluated on the same "
                 "tasks is the baseline (mean ± std over seeds):")
        L.append("")
        L.append("| round | rollouts per figure | SFT policy: success | targeted | control | SFT policy: first tool right | targeted | control |")
        L.append("|---|---|---|---|---|---|---|---|")
        for n in range(R):
            b = [s["sft_baseline"][n] for s in seeds]
            arm = lambda a, k: mean_std([s["arms"][a]["rounds"][n].get(k, 0.0) for s in seeds])
            L.append("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
                n + 1, "/".join(str(x["rollouts"]) for x in b), mean_std([x["success"] for x in b]),
                arm("targeted", "success"), arm("control", "success"), mean_std([x.get("first_tool", 0.0) for x in b]),
                arm("targeted", "first_tool"), arm("control", "first_tool")))
        L.append("")
    shared = [x for s in seeds for x in s.get("shared_training_tasks", [])]
    if shared:
        L.append("The two arms' training sets overlap: the targeted and the control pick share %s of their %s tasks "
                 "(per seed and round), since both are drawn from the same candidate pool, which the fresh filter "
                 "keeps small on this database." % ("/".join(str(x["shared"]) for x in shared),
                                                    "/".join(sorted({str(x["targeted"]) for x in shared}))))
        L.append("")
    d1, se = noise(res)
    L.append("Noise: round 1 evaluates the same SFT policy on the same tasks in both arms, so its Δ (%s) is "
             "the evaluation's own noise (the server's sampling order varies with request batching); the "
             "binomial standard error of one figure at these success levels is %.3f, of a paired Δ %.3f "
             "(rollouts of one task are correlated, so the true noise is larger)."
             % (", ".join("%+.3f" % d for d in d1), se, se * math.sqrt(2)))
    L.append("")
    L.append("Partial progress, per round, mean over seeds (targeted / control): the share of rollouts whose first "
             "call is the ground truth's first tool, and the first call exactly (tool and arguments); the mean "
             "fraction of checks passed; format errors per rollout.")
    L.append("")
    L.append("| round | first tool right | first call right | checks fraction | format errors |")
    L.append("|---|---|---|---|---|")
    for n in range(R):
        def both(k, f="%.3f"):
            return " / ".join(f % statistics.mean(s["arms"][a]["rounds"][n].get(k, 0.0) for s in seeds) for a in ARMS)
        fe = " / ".join("%.3f" % statistics.mean(s["arms"][a]["rounds"][n]["format_errors"] /
                                                 max(s["arms"][a]["rounds"][n]["rollouts"], 1) for s in seeds)
                        for a in ARMS)
        L.append("| %d | %s | %s | %s | %s |" % (n + 1, both("first_tool"), both("first_call"), both("checks_fraction"), fe))
    L.append("")
    L.append("GRPO on the handed-off tasks, per arm (mean over seeds and rounds): success of the training "
             "rollouts, samples with a non-zero advantage (the only ones that move the policy):")
    L.append("")
    L.append("| arm | training success | samples with signal | KL(old‖new) per round |")
    L.append("|---|---|---|---|")
    for a in ARMS:
        g = [m for s in seeds for m in s["arms"][a]["grpo"]]
        if not g:
            L.append("| %s | n/a | n/a | n/a |" % a)
            continue
        sig = sum(m.get("samples_with_signal") or 0 for m in g)
        tot = sum(m.get("samples") or 0 for m in g)
        kl = [m["policy_kl"] for m in g if m.get("policy_kl") is not None]
        L.append("| %s | %.3f | %d of %d | %s |" % (a, statistics.mean(m.get("success") or 0 for m in g), sig, tot,
                                                  ("%.4f" % statistics.mean(kl)) if kl else "n/a"))
    L.append("")
    if img_rel:
        L.append("![arena demonstration](%s)" % img_rel)
    else:
        L.append("(no plot: `wasmenv arena plot` failed)")
    L.append("")
    return "\n".join(L)


def bundle_task_ids(wasmenv, path):
    """The task ids of a bundle (`wasmenv tasks`: one task a line, its id first)."""
    out = subprocess.run([wasmenv, "tasks", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
    return {line.split("\t", 1)[0] for line in out.stdout.decode().splitlines() if line.strip()}


def read_jsonl(path):
    """Records of a plain JSONL file (tasks, metrics); rollout files are
    read with data.read_jsonl, which restores their full view."""
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


def results(a, seeds, arms=ARMS):
    """Per seed and arm: each round's arena success (all checks passed),
    mean checks fraction, rollouts; the tasks trained on; GRPO metrics."""
    out = {"settings": {k: v for k, v in vars(a).items() if isinstance(v, (int, float, str)) and k not in ("fn",)},
           "seeds": []}
    with open(os.path.join(a.out, "wall.json")) as f:
        out["wall_s"] = json.load(f)["wall_s"]
    for s in seeds:
        d = os.path.join(a.out, "seed%d" % s)
        with open(os.path.join(d, "sft-tasks.json")) as f:
            sft = json.load(f)
        rec = {"seed": s, "sft_tasks": sft["kept"], "arms": {}}
        for arm in arms:
            rounds = []
            for n in range(1, a.rounds + 1):
                rd = os.path.join(d, arm, "arena", "round-%d" % n)
                with open(os.path.join(rd, "round.json")) as f:
                    rj = json.load(f)
                rows = data.read_jsonl([os.path.join(rd, "rollouts.jsonl")])
                rows = [r for r in rows if r.get("task")]
                comp = [r.get("reward_components") or {} for r in rows]
                truth = {t["id"]: t.get("calls") or [] for t in read_jsonl(os.path.join(d, "arena-tasks-%d" % n, "tasks.jsonl"))}
                tool_ok, call_ok = first_call(rows, truth)
                rounds.append({"round": n, "success": rj["arena_success_rate"], "rollouts": len(rows),
                               "first_tool": tool_ok, "first_call": call_ok,
                               "checks_fraction": statistics.mean(c.get("checks_fraction", 0.0) for c in comp)
                               if comp else 0.0,
                               "format_errors": sum(1 for r in rows if r.get("format_error")),
                               "trained_tasks": (rj.get("control_tasks") if arm == "control"
                                                 else rj.get("targeted_tasks")) or {}})
            grpo = [m for m in read_jsonl(os.path.join(d, arm, "learn", "metrics.jsonl")) if m.get("phase") == "grpo"]
            rec["arms"][arm] = {"rounds": rounds, "grpo": [{k: m.get(k) for k in (
                "round", "success", "reward", "samples_with_signal", "samples", "policy_kl", "entropy",
                "format_error_rate", "rollout_seconds")} for m in grpo]}
        base_rounds = [rec["arms"]["targeted"]["rounds"][0]]  # round 1 is the SFT policy in both arms
        for n in range(2, a.rounds + 1):
            rows = data.read_jsonl([os.path.join(d, "baseline", "round-%d.jsonl" % n)])
            truth = {t["id"]: t.get("calls") or [] for t in read_jsonl(os.path.join(d, "arena-tasks-%d" % n, "tasks.jsonl"))}
            tool_ok, call_ok = first_call(rows, truth)
            base_rounds.append({"round": n, "rollouts": len(rows), "first_tool": tool_ok, "first_call": call_ok,
                                "success": statistics.mean(float((r.get("reward_components") or {}).get("all_passed", 0))
                                                           for r in rows) if rows else 0.0})
        rec["sft_baseline"] = base_rounds
        # the two arms' training sets: how much they share
        rec["shared_training_tasks"] = []
        for n in range(1, a.rounds):
            t = bundle_task_ids(a.wasmenv, os.path.join(d, "targeted", "arena", "round-%d" % n, "targeted", "home.wasm"))
            c = bundle_task_ids(a.wasmenv, os.path.join(d, "control", "arena", "round-%d" % n, "control", "home.wasm"))
            rec["shared_training_tasks"].append({"round": n, "targeted": len(t), "control": len(c), "shared": len(t & c)})
        out["seeds"].append(rec)
    return out


def first_call(rows, truth):
    """Of the rollouts whose task needs a call: the share whose first call
    is the ground truth's first tool, and the share whose first call is the
    ground truth's first call exactly (tool and arguments). Partial
    progress that the all-or-nothing success does not show."""
    tool = call = n = 0
    for r in rows:
        want = truth.get(r.get("task"))
        if not want:
            continue
        n += 1
        got = next((tc.get("function") or {} for m in r.get("messages") or []
                    if m.get("role") == "assistant" for tc in (m.get("tool_calls") or [])), None)
        if got is None or got.get("name") != want[0].get("name"):
            continue
        tool += 1
        args = got.get("arguments")
        try:
            args = json.loads(args) if isinstance(args, str) and args.strip() else (args or {})
        except ValueError:
            continue
        if json.dumps(args, sort_keys=True) == json.dumps(want[0].get("arguments") or {}, sort_keys=True):
            call += 1
    return (tool / n, call / n) if n else (0.0, 0.0)
