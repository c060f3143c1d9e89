"""Synthesizes the CPU demonstration's tasks from the `store` example
environment: a copy of envs/store whose task list is replaced by a family of
cancellation requests, one per (order, reason, phrasing).

The family spans the seed's 8 open (pending or processing) orders × 4
reasons × 2 wordings × 3 phrasings × 4 greetings = 768 tasks; each task's
`setup` overlay sets its order to pending. Ground truth: one cancel_order
call with the reason the phrasing implies (one call keeps sequences short
enough for a CPU run); checks: the order is
cancelled for that reason and no other order changed. Task ids are
`train-…` or `heldout-…`: a quarter of the tasks, drawn at random, are held
out, so a held-out task is a combination of order, reason, wording and
phrasing the policy never trained on. (A split by order, where held-out
tasks name orders no training task names, was tried first: the small model
trained from scratch then has to copy an id it never saw, and after SFT it
solved 3 % of them; it memorises ids instead of copying them. With all 28
orders and a random split it still picked the order at chance after 12 SFT
epochs: 18 examples per order and epoch were too few for it to tie the id
in the instruction to the id in the call within a CPU budget; 8 orders give
72.)
"""

import json
import os
import random
import re
import shutil

REASONS = {
    "no longer needed": ["I no longer need it", "I don't need it anymore"],
    "ordered by mistake": ["I ordered it by mistake", "it was a mistake"],
    "found better price": ["I found a better price", "it is cheaper elsewhere"],
    "delivery too slow": ["the delivery is too slow", "shipping takes too long"],
}
PHRASINGS = [
    "Please cancel order {oid}, {why}.",
    "I need order {oid} cancelled: {why}.",
    "Cancel my order {oid} please, {why}.",
]
GREETINGS = ["", "Hi! ", "Hello, ", "Good morning. "]
ORDER_RE = re.compile(r"\('(#W\d+)', '(C\d+)', '(\w+)'")


def orders(store_dir):
    """The seed's open orders (pending or processing)."""
    with open(os.path.join(store_dir, "seed.sql")) as f:
        return [(o, c) for o, c, st in ORDER_RE.findall(f.read()) if st in ("pending", "processing")]


def tasks(store_dir, heldout_fraction=0.25, seed=0):
    rng = random.Random(seed)
    out = []
    for oid, _ in sorted(orders(store_dir)):
        for reason, whys in sorted(REASONS.items()):
            for wi, why in enumerate(whys):
              for pi, ph in enumerate(PHRASINGS):
                for gi, hello in enumerate(GREETINGS):
                    split = "heldout" if rng.random() < heldout_fraction else "train"
                    tid = "%s-%s-%s-%d%d%d" % (split, oid[1:], reason.split()[0], wi, pi, gi)
                    out.append({
                        "id": tid,
                        "instruction": hello + ph.format(oid=oid, why=why),
                        "setup": "UPDATE orders SET status = 'pending' WHERE order_id = '%s';" % oid,
                        "calls": [{"name": "cancel_order", "arguments": {"order_id": oid, "reason": reason}}],
                        "checks": [
                            {"name": "cancelled for the right reason",
                             "sql": "SELECT status = 'cancelled' AND cancel_reason = '%s' FROM main.orders WHERE order_id = '%s'"
                                    % (reason, oid)},
                            {"name": "other orders untouched",
                             "sql": "SELECT COUNT(*) = 0 FROM (SELECT * FROM main.orders WHERE order_id <> '%s' "
                                    "EXCEPT SELECT * FROM init.orders)" % oid},
                        ],
                    })
    return out


def write(store_dir, out_dir, heldout_fraction=0.25, seed=0):
    """Copy the environment (tools, schema, seed, rules) and write the task
    family as tasks.jsonl. Returns the tasks."""
    if os.path.exists(out_dir):
        shutil.rmtree(out_dir)
    shutil.copytree(store_dir, out_dir, ignore=shutil.ignore_patterns("tasks.yaml", "tasks.jsonl", "*_test.go"))
    ts = tasks(store_dir, heldout_fraction, seed)
    with open(os.path.join(out_dir, "env.yaml")) as f:
        y = f.read()
    y = re.sub(r"(?m)^name: .*$", "name: store-cancel", y, count=1)
    with open(os.path.join(out_dir, "env.yaml"), "w") as f:
        f.write(y)
    with open(os.path.join(out_dir, "tasks.jsonl"), "w") as f:
        for t in ts:
            f.write(json.dumps(t) + "\n")
    return ts
