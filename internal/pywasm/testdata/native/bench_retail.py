"""Times a τ-bench retail tool under native CPython the way τ-bench runs it:
the Python port's function (testdata/taubench-retail/tools/retail.py) over
the data as dicts loaded from the JSON files, the arguments decoded from
JSON as a call's are. bench_retail.py DATA_DIR TOOL ARGS_JSON N -> ns per
call (best of 5). A write tool runs on a fresh deep copy of the data each
time, outside the timing."""

import copy
import json
import os
import sys
import time
import types

data_dir, tool, args, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
here = os.path.dirname(os.path.abspath(__file__))
db = {}
for name in ("users", "products", "orders"):
    with open(os.path.join(data_dir, name + ".json")) as f:
        db[name] = json.load(f)
stand_in = types.ModuleType("wasmenv")
stand_in.data = db
sys.modules["wasmenv"] = stand_in
sys.path.insert(0, os.path.join(here, "..", "taubench-retail", "tools"))
import retail  # noqa: E402

fn = getattr(retail, tool)
write = tool not in ("get_order_details", "get_user_details", "get_product_details", "find_user_id_by_email",
                     "find_user_id_by_name_zip", "list_all_product_types", "calculate", "think")
best = None
for _ in range(5):
    total = 0
    for _ in range(n):
        if write:
            stand_in.data.clear()
            stand_in.data.update(copy.deepcopy(db))
        start = time.perf_counter_ns()
        out = fn(**json.loads(args))
        total += time.perf_counter_ns() - start
    best = total / n if best is None else min(best, total / n)
print(int(best))
