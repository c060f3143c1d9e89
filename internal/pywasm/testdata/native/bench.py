"""Times a pylibrary tool call under native CPython (the baseline of
BenchmarkPythonToolCall): bench.py ENV_DIR TOOL ARGS_JSON N -> ns per call.

Like a wasmenv call it includes decoding the JSON arguments and encoding
the result (json.dumps)."""

import json
import os
import sys
import time

env, tool, args, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(1, env)
import wasmenv  # noqa: E402  the stand-in

for f in ("schema.sql", "seed.sql"):
    with open(os.path.join(env, f)) as fh:
        wasmenv.db.executescript(fh.read())
import importlib  # noqa: E402

fn = None
for name in sorted(os.listdir(os.path.join(env, "tools"))):
    if name.endswith(".py"):
        mod = importlib.import_module("tools." + name[:-3])
        fn = fn or getattr(mod, tool, None)
best = None
for _ in range(5):
    start = time.perf_counter_ns()
    for _ in range(n):
        r = fn(**json.loads(args))
        out = r if isinstance(r, str) else json.dumps(r)
    ns = (time.perf_counter_ns() - start) / n
    best = ns if best is None else min(best, ns)
print(int(best))
