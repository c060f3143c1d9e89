#!/usr/bin/env python3
"""Measures synthesized environments for docs/SYNTHESIS.md's table.

    python3 synth/testdata/corpus/measure.py envs/sakila envs/chinook ...

Per environment directory (as `wasmenv synth from-db` writes it): its tools
and the size of their OpenAI schemas (synth-summary.json: tools,
schema_bytes, the JSON the rollout sends), its domain actions (each passed
the smoke stage's succeed-and-refuse check, or it would not be there), the
ground truth's median calls, the share of tasks that change two or more
rows (two or more change checks), the share of policy tasks (a refusal:
the right result is no change), and how many candidates the gates dropped
because an answer rule accepted a spray, a pasted output or a candidate
list ("wrong"). Prints a Markdown table.
"""
import json
import os
import statistics
import sys


def measure(d):
    s = json.load(open(os.path.join(d, "synth-summary.json")))
    tasks = [json.loads(l) for l in open(os.path.join(d, "tasks.jsonl")) if l.strip()]
    calls = [len(t.get("calls") or []) for t in tasks]
    multi = sum(1 for t in tasks if sum(1 for c in t.get("checks", []) if not c.get("guard")) >= 2)
    policy = sum(1 for t in tasks if "-refuse-" in t["id"])
    kinds = s.get("tools_by_kind", {})
    gates = s.get("tasks", {}).get("gates", {})
    return {
        "env": os.path.basename(os.path.normpath(d)),
        "tools": s.get("tools", 0),
        "schema_kb": s.get("schema_bytes", 0) / 1024,
        "actions": kinds.get("action", 0),
        "tasks": len(tasks),
        "median_calls": statistics.median(calls) if calls else 0,
        "multi_row": 100 * multi / max(len(tasks), 1),
        "policy": 100 * policy / max(len(tasks), 1),
        "wrong_dropped": gates.get("dropped", {}).get("wrong", 0),
    }


def main(dirs):
    print("| env | tools | schema KB | actions (rules tested) | tasks | median calls | % multi-row writes | % policy tasks | gamed rules dropped by the gates |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in dirs:
        m = measure(d)
        print("| {env} | {tools} | {schema_kb:.1f} | {actions} | {tasks} | {median_calls:g} | {multi_row:.0f}% | {policy:.0f}% | {wrong_dropped} |".format(**m))


if __name__ == "__main__":
    main(sys.argv[1:])
