"""Times a τ-bench retail tool under native CPython the way τ-bench runs it:
the Python port's function (testdata/taubench-retail/tools/retail.py) over
the data as dicts loaded from the JSON files, the arguments decoded from
JSON as a call's are. bench_retail.py DATA_DIR TOOL ARGS_JSON N -> the
median ns of N timed calls (after N/10 untimed ones).

A write tool runs each time on fresh copies of the records it may change
(the order named by order_id, its user and the user named by user_id: what
a retail tool writes), made outside the timing; the rest of the data is
shared, as τ-bench's deep copy per episode would leave it."""

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
stand_in.data = {}
sys.modules["wasmenv"] = stand_in
sys.path.insert(0, os.path.join(here, "..", "taubench-retail", "tools"))
import retail  # noqa: E402

fn = getattr(retail, tool)
write = tool.startswith(("cancel", "exchange", "modify", "return"))
kwargs = json.loads(args)


def fresh():
    """The data a call starts from: shared for a read, for a write with its
    records copied."""
    if not write:
        return db
    orders, users = dict(db["orders"]), dict(db["users"])
    order = orders.get(kwargs.get("order_id"))
    if order is not None:
        orders[kwargs["order_id"]] = copy.deepcopy(order)
        if order["user_id"] in users:
            users[order["user_id"]] = copy.deepcopy(users[order["user_id"]])
    if kwargs.get("user_id") in users:
        users[kwargs["user_id"]] = copy.deepcopy(users[kwargs["user_id"]])
    return {"users": users, "products": db["products"], "orders": orders}


times = []
for i in range(n + n // 10):
    stand_in.data.clear()
    stand_in.data.update(fresh())
    start = time.perf_counter_ns()
    fn(**json.loads(args))
    took = time.perf_counter_ns() - start
    if i >= n // 10:
        times.append(took)
times.sort()
print(times[len(times) // 2])
