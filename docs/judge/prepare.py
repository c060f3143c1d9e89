#!/usr/bin/env python3
"""What an LLM judge reads of one bundle (docs/SYNTHESIS.md, "Judged"): the tools an
agent sees, the rules, the schema, the first rows of every table and 25 tasks sampled at
random (instruction, ground-truth calls, checks, answer).

usage (from the repository root):
    go build -o /tmp/wasmenv ./cmd/wasmenv && /tmp/wasmenv build envs/chinook -o /tmp/chinook.wasm
    python3 docs/judge/prepare.py /tmp/wasmenv /tmp/chinook.wasm /tmp/judge/chinook 7
then give a judge (a subagent) docs/judge/PROMPT.md and that folder."""
import json, os, random, subprocess, sys

wasmenv, bundle, out = sys.argv[1:4]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
os.makedirs(out, exist_ok=True)
info = json.loads(subprocess.check_output([wasmenv, "inspect", bundle, "--json"]))
tools = [{"name": t["name"], "description": t.get("description", ""), "inputSchema": t.get("inputSchema")}
         for t in info["manifest"]["tools"]]
with open(os.path.join(out, "tools.json"), "w") as f:
    json.dump(tools, f, indent=1, ensure_ascii=False)
with open(os.path.join(out, "rules.txt"), "w") as f:
    f.write(info["manifest"].get("rules", "") or "(none)")
tasks = json.loads(subprocess.check_output([wasmenv, "tasks", bundle, "--json"]))
sample = random.Random(seed).sample(tasks, min(25, len(tasks)))
with open(os.path.join(out, "tasks.json"), "w") as f:
    json.dump(sample, f, indent=1, ensure_ascii=False)
subprocess.check_call(["go", "run", "./internal/judgeprep", bundle, out])
print(out, len(tools), "tools", len(tasks), "tasks")
