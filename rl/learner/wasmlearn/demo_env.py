"""Synthesizes the CPU demonstration's tasks from the `store` example
environment: a copy of envs/store whose task list is replaced by a family of
cancellation requests, one per (order, reason, wording, phrasing, greeting),
e.g. "Hi! It was a mistake, so please cancel order #W1002.".

Ground truth: one cancel_order call with the reason the wording implies;
checks: the order is cancelled for that reason and no other order changed.
Each task's `setup` overlay sets its order to pending. Task ids are
`train-…` or `heldout-…`: a quarter of the tasks, drawn at random, are held
out, so a held-out task is a combination the policy never trained on.

Two families:
- `reason` (the demonstration): one order, #W1002; 4 reasons × 4 wordings ×
  3 phrasings × 4 greetings = 192 tasks. The policy must read the reason
  from the wording.
- `orders`: the seed's 8 open orders × 4 reasons × 2 wordings × 3 phrasings ×
  4 greetings = 768 tasks; the policy must also copy the order id. The
  demonstration's 200k-parameter model trained from scratch did not learn
  to copy the id within a CPU budget (it picked the order at chance after
  3–12 SFT epochs, and GRPO could not lift it; docs/TRAINING.md has the
  numbers), so it is kept for larger models and longer runs.
"""

import json
import os
import random
import re
import shutil

REASONS = {
    "no longer needed": ["I no longer need it", "I don't need it anymore", "I changed my mind about it",
                         "I have no use for it now"],
    "ordered by mistake": ["I ordered it by mistake", "it was a mistake", "I clicked buy by accident",
                           "I never meant to order it"],
    "found better price": ["I found a better price", "it is cheaper elsewhere", "another shop sells it for less",
                           "I saw a lower price online"],
    "delivery too slow": ["the delivery is too slow", "shipping takes too long", "it will arrive too late",
                          "the delivery date is too far away"],
}
# The order id comes last in every phrasing.
PHRASINGS = [
    "{Why}, so please cancel order {oid}.",
    "{Why}. I need you to cancel order {oid}.",
    "{Why}; please cancel my order {oid}.",
]
GREETINGS = ["", "Hi! ", "Hello, ", "Good morning. "]
ORDER_RE = re.compile(r"\('(#W\d+)', '(C\d+)', '(\w+)'")


def orders(store_dir):
    """The seed's open orders (pending or processing)."""
    with open(os.path.join(store_dir, "seed.sql")) as f:
        return [o for o, c, st in ORDER_RE.findall(f.read()) if st in ("pending", "processing")]


def tasks(store_dir, family="reason", heldout_fraction=0.25, seed=0):
    rng = random.Random(seed)
    if family == "reason":
        ods, wordings = ["#W1002"], 4
    elif family == "orders":
        ods, wordings = sorted(orders(store_dir)), 2
    else:
        raise ValueError("family must be reason or orders")
    out = []
    for oid in ods:
        for reason, whys in sorted(REASONS.items()):
            for wi, why in enumerate(whys[:wordings]):
                for pi, ph in enumerate(PHRASINGS):
                    for gi, hello in enumerate(GREETINGS):
                        split = "heldout" if rng.random() < heldout_fraction else "train"
                        out.append(task("%s-%s-%s-%d%d%d" % (split, oid[1:], reason.split()[0], wi, pi, gi),
                                        hello + ph.format(oid=oid, Why=why[0].upper() + why[1:]), oid, reason))
    return out


def task(tid, instruction, oid, reason):
    return {
        "id": tid,
        "instruction": instruction,
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
    }


def write(store_dir, out_dir, family="reason", heldout_fraction=0.25, seed=0):
    """Copy the environment (tools, schema, seed, rules) and write the task
    family as tasks.jsonl. Returns the tasks."""
    if os.path.exists(out_dir):
        shutil.rmtree(out_dir)
    shutil.copytree(store_dir, out_dir, ignore=shutil.ignore_patterns("tasks.yaml", "tasks.jsonl", "*_test.go"))
    ts = tasks(store_dir, family, heldout_fraction, seed)
    with open(os.path.join(out_dir, "env.yaml")) as f:
        y = f.read()
    y = re.sub(r"(?m)^name: .*$", "name: store-cancel", y, count=1)
    with open(os.path.join(out_dir, "env.yaml"), "w") as f:
        f.write(y)
    with open(os.path.join(out_dir, "tasks.jsonl"), "w") as f:
        for t in ts:
            f.write(json.dumps(t) + "\n")
    return ts
