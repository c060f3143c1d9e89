#!/usr/bin/env python3
"""τ-bench retail, re-created the way τ-bench runs it: the benchmark baseline.

τ-bench (sierra-research/tau-bench, MIT, Sierra) keeps the retail state as the
dicts json.load gives for users.json, products.json and orders.json, reloads the
three files from disk on every env.reset() (its load_data()), runs each tool as
`invoke(data, **kwargs)` returning a string, turns exceptions into
"Error: <exception>" in env.step(), and scores an episode by hashing the whole
data (get_data_hash: sha256 of str(to_hashable(data))) and comparing it with
the hash reached by replaying the ground-truth actions on freshly loaded data.

This re-creates that approach with the standard library only; the 16 tools follow
TOOLS.md (τ-bench's Python tools). It first verifies itself on the reference episodes
(every output, JSON-equal where both parse; every final state diff; the reward),
then times reset + calls.

    python3 bench/taubench/baseline.py [--repeat 5] [--state-repeat 1] [--limit N]

prints one JSON object on stdout (times in ns), a summary on stderr; exit status 1
when the verification fails.
"""

import argparse
import json
import os
import platform
import sys
import time
from hashlib import sha256

HERE = os.path.dirname(os.path.abspath(__file__))
ENV_DIR = os.path.join(HERE, "..", "..", "envs", "taubench-retail")

# --- data

def load_data(data_dir):
    """τ-bench's load_data(): the three files, reloaded on every reset."""
    with open(os.path.join(data_dir, "orders.json")) as f:
        orders = json.load(f)
    with open(os.path.join(data_dir, "products.json")) as f:
        products = json.load(f)
    with open(os.path.join(data_dir, "users.json")) as f:
        users = json.load(f)
    return {"users": users, "orders": orders, "products": products}


def to_hashable(item):
    if isinstance(item, dict):
        return tuple((k, to_hashable(v)) for k, v in sorted(item.items()))
    if isinstance(item, list):
        return tuple(to_hashable(e) for e in item)
    if isinstance(item, set):
        return tuple(sorted(to_hashable(e) for e in item))
    return item


def get_data_hash(data):
    """τ-bench's Env.get_data_hash: sha256 of str(to_hashable(data))."""
    return sha256(str(to_hashable(data)).encode("utf-8")).hexdigest()


# --- tools

def calculate(data, expression):
    if not all(ch in "0123456789+-*/(). " for ch in expression):
        return "Error: invalid characters in expression"
    try:
        return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))
    except ZeroDivisionError:
        return "Error: division by zero"  # TOOLS.md's wording for every division
    except Exception as e:
        return f"Error: {e}"


def cancel_pending_order(data, order_id, reason):
    orders = data["orders"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "pending":
        return "Error: non-pending order cannot be cancelled"
    if reason not in ("no longer needed", "ordered by mistake"):
        return "Error: invalid reason"
    refunds = []
    for payment in order["payment_history"]:
        pm_id = payment["payment_method_id"]
        refunds.append({"transaction_type": "refund", "amount": payment["amount"],
                        "payment_method_id": pm_id})
        if "gift_card" in pm_id:
            pm = data["users"][order["user_id"]]["payment_methods"][pm_id]
            pm["balance"] += payment["amount"]
            pm["balance"] = round(pm["balance"], 2)
    order["status"] = "cancelled"
    order["cancel_reason"] = reason
    order["payment_history"].extend(refunds)
    return json.dumps(order)


def _check_item_ids(order, item_ids, err):
    """The "item ids exist" check; returns an error string or None."""
    all_ids = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > all_ids.count(item_id):
            return err(item_id)
    return None


def _price_difference(data, order, item_ids, new_item_ids):
    """Σ(new − old) in list order, or an error string."""
    products = data["products"]
    diff = 0
    for item_id, new_id in zip(item_ids, new_item_ids):
        item = [it for it in order["items"] if it["item_id"] == item_id][0]
        variants = products[item["product_id"]]["variants"]
        if not (new_id in variants and variants[new_id]["available"]):
            return f"Error: new item {new_id} not found or available"
        diff += variants[new_id]["price"] - item["price"]
    return diff


def exchange_delivered_order_items(data, order_id, item_ids, new_item_ids, payment_method_id):
    orders, users = data["orders"], data["users"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "delivered":
        return "Error: non-delivered order cannot be exchanged"
    err = _check_item_ids(order, item_ids, lambda i: f"Error: {i} not found")
    if err:
        return err
    if len(item_ids) != len(new_item_ids):
        return "Error: the number of items to be exchanged should match"
    diff = _price_difference(data, order, item_ids, new_item_ids)
    if isinstance(diff, str):
        return diff
    diff = round(diff, 2)
    methods = users[order["user_id"]]["payment_methods"]
    if payment_method_id not in methods:
        return "Error: payment method not found"
    pm = methods[payment_method_id]
    if pm["source"] == "gift_card" and pm["balance"] < diff:
        return "Error: insufficient gift card balance to pay for the price difference"
    order["status"] = "exchange requested"
    order["exchange_items"] = sorted(item_ids)
    order["exchange_new_items"] = sorted(new_item_ids)
    order["exchange_payment_method_id"] = payment_method_id
    order["exchange_price_difference"] = diff
    return json.dumps(order)


def find_user_id_by_email(data, email):
    for user_id, profile in data["users"].items():
        if profile["email"].lower() == email.lower():
            return user_id
    return "Error: user not found"


def find_user_id_by_name_zip(data, first_name, last_name, zip):
    for user_id, profile in data["users"].items():
        if (profile["name"]["first_name"].lower() == first_name.lower()
                and profile["name"]["last_name"].lower() == last_name.lower()
                and profile["address"]["zip"] == zip):
            return user_id
    return "Error: user not found"


def get_order_details(data, order_id):
    if order_id in data["orders"]:
        return json.dumps(data["orders"][order_id])
    return "Error: order not found"


def get_product_details(data, product_id):
    if product_id in data["products"]:
        return json.dumps(data["products"][product_id])
    return "Error: product not found"


def get_user_details(data, user_id):
    if user_id in data["users"]:
        return json.dumps(data["users"][user_id])
    return "Error: user not found"


def list_all_product_types(data):
    names = {p["name"]: p["product_id"] for p in data["products"].values()}
    return json.dumps(dict(sorted(names.items())))


def _address(address1, address2, city, state, country, zip):
    return {"address1": address1, "address2": address2, "city": city,
            "state": state, "country": country, "zip": zip}


def modify_pending_order_address(data, order_id, address1, address2, city, state, country, zip):
    orders = data["orders"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "pending":
        return "Error: non-pending order cannot be modified"
    order["address"] = _address(address1, address2, city, state, country, zip)
    return json.dumps(order)


def modify_pending_order_items(data, order_id, item_ids, new_item_ids, payment_method_id):
    products, orders, users = data["products"], data["orders"], data["users"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "pending":
        return "Error: non-pending order cannot be modified"
    err = _check_item_ids(order, item_ids, lambda i: f"Error: {i} not found")
    if err:
        return err
    if len(item_ids) != len(new_item_ids):
        return "Error: the number of items to be exchanged should match"
    diff = _price_difference(data, order, item_ids, new_item_ids)
    if isinstance(diff, str):
        return diff
    methods = users[order["user_id"]]["payment_methods"]
    if payment_method_id not in methods:
        return "Error: payment method not found"
    pm = methods[payment_method_id]
    if pm["source"] == "gift_card" and pm["balance"] < diff:
        return "Error: insufficient gift card balance to pay for the new item"
    order["payment_history"].append({
        "transaction_type": "payment" if diff > 0 else "refund",
        "amount": abs(diff),
        "payment_method_id": payment_method_id,
    })
    if pm["source"] == "gift_card":
        pm["balance"] -= diff
        pm["balance"] = round(pm["balance"], 2)
    for item_id, new_id in zip(item_ids, new_item_ids):
        item = [it for it in order["items"] if it["item_id"] == item_id][0]
        variant = products[item["product_id"]]["variants"][new_id]
        item["item_id"] = new_id
        item["price"] = variant["price"]
        item["options"] = variant["options"]
    order["status"] = "pending (item modified)"
    return json.dumps(order)


def modify_pending_order_payment(data, order_id, payment_method_id):
    orders = data["orders"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "pending":
        return "Error: non-pending order cannot be modified"
    methods = data["users"][order["user_id"]]["payment_methods"]
    if payment_method_id not in methods:
        return "Error: payment method not found"
    history = order["payment_history"]
    if len(history) > 1 or history[0]["transaction_type"] != "payment":
        return "Error: there should be exactly one payment for a pending order"
    old_id = history[0]["payment_method_id"]
    if old_id == payment_method_id:
        return "Error: the new payment method should be different from the current one"
    amount = history[0]["amount"]
    pm = methods[payment_method_id]
    if pm["source"] == "gift_card" and pm["balance"] < amount:
        return "Error: insufficient gift card balance to pay for the order"
    history.extend([
        {"transaction_type": "payment", "amount": amount, "payment_method_id": payment_method_id},
        {"transaction_type": "refund", "amount": amount, "payment_method_id": old_id},
    ])
    if pm["source"] == "gift_card":
        pm["balance"] -= amount
        pm["balance"] = round(pm["balance"], 2)
    if "gift_card" in old_id:
        old = methods[old_id]
        old["balance"] += amount
        old["balance"] = round(old["balance"], 2)
    return json.dumps(order)


def modify_user_address(data, user_id, address1, address2, city, state, country, zip):
    users = data["users"]
    if user_id not in users:
        return "Error: user not found"
    users[user_id]["address"] = _address(address1, address2, city, state, country, zip)
    return json.dumps(users[user_id])


def return_delivered_order_items(data, order_id, item_ids, payment_method_id):
    orders = data["orders"]
    if order_id not in orders:
        return "Error: order not found"
    order = orders[order_id]
    if order["status"] != "delivered":
        return "Error: non-delivered order cannot be returned"
    if payment_method_id not in data["users"][order["user_id"]]["payment_methods"]:
        return "Error: payment method not found"
    if ("gift_card" not in payment_method_id
            and payment_method_id != order["payment_history"][0]["payment_method_id"]):
        return "Error: payment method should be either the original payment method or a gift card"
    err = _check_item_ids(order, item_ids, lambda i: "Error: some item not found")
    if err:
        return err
    order["status"] = "return requested"
    order["return_items"] = sorted(item_ids)
    order["return_payment_method_id"] = payment_method_id
    return json.dumps(order)


def think(data, thought):
    return ""


def transfer_to_human_agents(data, summary):
    return "Transfer successful"


TOOLS = {f.__name__: f for f in [
    calculate, cancel_pending_order, exchange_delivered_order_items,
    find_user_id_by_email, find_user_id_by_name_zip, get_order_details,
    get_product_details, get_user_details, list_all_product_types,
    modify_pending_order_address, modify_pending_order_items,
    modify_pending_order_payment, modify_user_address,
    return_delivered_order_items, think, transfer_to_human_agents,
]}
WRITE_TOOLS = {"cancel_pending_order", "exchange_delivered_order_items", "modify_user_address",
               "modify_pending_order_address", "modify_pending_order_items",
               "modify_pending_order_payment", "return_delivered_order_items"}
TERMINATE_TOOLS = {"transfer_to_human_agents"}


def step(data, name, kwargs):
    """τ-bench's Env.step for a tool action: exceptions become "Error: <e>"."""
    tool = TOOLS.get(name)
    if tool is None:
        return f"Unknown action {name}"
    try:
        return tool(data, **kwargs)
    except Exception as e:
        return f"Error: {e}"


def calculate_reward(data, data_dir, calls):
    """τ-bench's calculate_reward for a state task: hash the episode's data,
    reload, replay the ground-truth actions (minus terminate tools), hash again."""
    got = get_data_hash(data)
    gt = load_data(data_dir)
    for c in calls:
        if c["name"] not in TERMINATE_TOOLS:
            step(gt, c["name"], c["arguments"])
    return 1.0 if get_data_hash(gt) == got else 0.0


# --- verification

def same_output(got, want):
    """JSON-equal where both parse as JSON, else the exact string."""
    try:
        return json.loads(got) == json.loads(want)
    except ValueError:
        return got == want


def state_diff(data, init):
    """{collection: {key: record or None}} for every record that differs."""
    out = {}
    for coll, recs in data.items():
        d = {k: v for k, v in recs.items() if init[coll].get(k) != v}
        d.update({k: None for k in init[coll] if k not in recs})
        if d:
            out[coll] = d
    return out


def load_refs(paths, limit):
    eps = []
    for p in paths:
        with open(p) as f:
            eps.extend(json.loads(line) for line in f if line.strip())
    return eps[:limit] if limit else eps


def verify(eps, data_dir):
    init = load_data(data_dir)
    res = {"episodes": len(eps), "outputs": 0, "outputs_matched": 0,
           "diffs_matched": 0, "rewards_ok": 0, "mismatches": []}
    for ep in eps:
        data = load_data(data_dir)
        for i, c in enumerate(ep["calls"]):
            got = step(data, c["name"], c["arguments"])
            res["outputs"] += 1
            if same_output(got, ep["outputs"][i]):
                res["outputs_matched"] += 1
            else:
                res["mismatches"].append(f"{ep['id']} call {i} {c['name']}: got {got[:200]!r}")
        want = {k: v for k, v in ep["state_diff"].items() if v}
        if state_diff(data, init) == want:
            res["diffs_matched"] += 1
        else:
            res["mismatches"].append(f"{ep['id']}: state diff differs")
        if calculate_reward(data, data_dir, ep["calls"]) == 1.0:
            res["rewards_ok"] += 1
    res["ok"] = (res["outputs_matched"] == res["outputs"]
                 and res["diffs_matched"] == res["episodes"]
                 and res["rewards_ok"] == res["episodes"])
    return res


# --- timing

def pct(samples, p):
    """Nearest-rank percentile (the same definition as the Go side)."""
    if not samples:
        return 0
    s = sorted(samples)
    k = -(-p * len(s) // 100)  # ceil
    return s[max(0, min(len(s), int(k)) - 1)]


def summary(samples):
    return {"n": len(samples), "p50_ns": pct(samples, 50), "p99_ns": pct(samples, 99),
            "mean_ns": sum(samples) // len(samples) if samples else 0}


def bench(eps, data_dir, repeat, state_repeat):
    clock = time.perf_counter_ns
    resets, calls, reads, writes, totals, per_tool = [], [], [], [], [], {}
    for _ in range(repeat):
        start = clock()
        for ep in eps:
            t0 = clock()
            data = load_data(data_dir)
            t1 = clock()
            resets.append(t1 - t0)
            for c in ep["calls"]:
                name, kwargs = c["name"], c["arguments"]
                t0 = clock()
                step(data, name, kwargs)
                dt = clock() - t0
                calls.append(dt)
                (writes if name in WRITE_TOOLS else reads).append(dt)
                per_tool.setdefault(name, []).append(dt)
        totals.append(clock() - start)
    hashes, rewards = [], []
    for _ in range(state_repeat):
        for ep in eps:
            data = load_data(data_dir)
            for c in ep["calls"]:
                step(data, c["name"], c["arguments"])
            t0 = clock()
            get_data_hash(data)
            t1 = clock()
            calculate_reward(data, data_dir, ep["calls"])
            t2 = clock()
            hashes.append(t1 - t0)
            rewards.append(t2 - t1)
    return {
        "reset": summary(resets), "call": summary(calls),
        "call_read": summary(reads), "call_write": summary(writes),
        "total_ns": totals, "hash": summary(hashes), "reward": summary(rewards),
        "tools": {k: summary(v) for k, v in sorted(per_tool.items())},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ENV_DIR, "data"))
    ap.add_argument("--refs", default=",".join(
        os.path.join(ENV_DIR, "testdata", n) for n in ("test_ref.jsonl", "dev_ref.jsonl")))
    ap.add_argument("--repeat", type=int, default=5, help="timed passes over all episodes")
    ap.add_argument("--state-repeat", type=int, default=1,
                    help="passes timing get_data_hash and calculate_reward")
    ap.add_argument("--limit", type=int, default=0, help="only the first N episodes")
    ap.add_argument("--verify-only", action="store_true")
    args = ap.parse_args()

    eps = load_refs(args.refs.split(","), args.limit)
    v = verify(eps, args.data)
    print(f"baseline verification: {v['outputs_matched']}/{v['outputs']} outputs, "
          f"{v['diffs_matched']}/{v['episodes']} state diffs, "
          f"{v['rewards_ok']}/{v['episodes']} rewards", file=sys.stderr)
    for m in v["mismatches"][:20]:
        print("  mismatch:", m, file=sys.stderr)
    out = {"python": platform.python_version(), "implementation": platform.python_implementation(),
           "data_bytes": sum(os.path.getsize(os.path.join(args.data, n))
                             for n in ("orders.json", "products.json", "users.json")),
           "verify": v}
    if v["ok"] and not args.verify_only:
        out["bench"] = bench(eps, args.data, args.repeat, args.state_repeat)
        b = out["bench"]
        print(f"reset p50 {b['reset']['p50_ns'] / 1e6:.2f} ms, call p50 "
              f"{b['call']['p50_ns'] / 1e3:.1f} µs, total {min(b['total_ns']) / 1e9:.2f} s",
              file=sys.stderr)
    json.dump(out, sys.stdout)
    print()
    return 0 if v["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
