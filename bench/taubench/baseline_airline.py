#!/usr/bin/env python3
"""τ-bench airline, re-created the way τ-bench runs it: the benchmark baseline.

τ-bench (sierra-research/tau-bench, MIT, Sierra) keeps the airline state as the
dicts json.load gives for flights.json, reservations.json and users.json,
reloads the three files on every env.reset(), runs each tool as
`invoke(data, **kwargs)` returning a string, turns exceptions into
"Error: <exception>" in env.step(), and scores an episode by hashing the whole
data and comparing it with the hash reached by replaying the ground-truth
actions on freshly loaded data.

This re-creates that approach with the standard library only; the 14 tools
follow envs/taubench-airline/testdata/TOOLS.md. It first verifies itself on the
reference episodes (every output byte for byte; every final state diff; the
reward), then times reset + calls. Same command line and JSON output as
baseline.py (the retail baseline), whose helpers it shares.

    python3 bench/taubench/baseline_airline.py [--repeat 5] [--state-repeat 1] [--limit N]
"""

import argparse
import json
import os
import platform
import sys
import time
from copy import deepcopy

import baseline as common  # hashing, percentiles, state diffs

HERE = os.path.dirname(os.path.abspath(__file__))
ENV_DIR = os.path.join(HERE, "..", "..", "envs", "taubench-airline")
FILES = ("flights.json", "reservations.json", "users.json")


def load_data(data_dir):
    """τ-bench's load_data(): the three files, reloaded on every reset."""
    data = {}
    for name in FILES:
        with open(os.path.join(data_dir, name)) as f:
            data[name[:-5]] = json.load(f)
    return data


# --- tools (TOOLS.md)

def _price_leg(data, leg, n, cabin):
    """The flight checks; prices the leg in place and returns price × n,
    or an error string."""
    number = leg["flight_number"]
    flight = data["flights"].get(number)
    if flight is None:
        return f"Error: flight {number} not found"
    day = flight["dates"].get(leg["date"])
    if day is None:
        return f"Error: flight {number} not found on date {leg['date']}"
    if day["status"] != "available":
        return f"Error: flight {number} not available on date {leg['date']}"
    if day["available_seats"][cabin] < n:
        return f"Error: not enough seats on flight {number}"
    leg["price"] = day["prices"][cabin]
    leg["origin"] = flight["origin"]
    leg["destination"] = flight["destination"]
    return leg["price"] * n


def book_reservation(data, user_id, origin, destination, flight_type, cabin, flights,
                     passengers, payment_methods, total_baggages, nonfree_baggages, insurance):
    reservations, users = data["reservations"], data["users"]
    user = users.get(user_id)
    if user is None:
        return "Error: user not found"
    rid = next((r for r in ("HATHAT", "HATHAU") if r not in reservations), "HATHAV")
    legs = deepcopy(flights)
    n = len(passengers)
    total = 0
    for leg in legs:
        cost = _price_leg(data, leg, n, cabin)
        if isinstance(cost, str):
            return cost
        total += cost
    if insurance == "yes":
        total += 30 * n
    total += 50 * nonfree_baggages
    methods = user["payment_methods"]
    for p in payment_methods:
        pid, amount = p["payment_id"], p["amount"]
        if pid not in methods:
            return f"Error: payment method {pid} not found"
        if methods[pid]["source"] in ("gift_card", "certificate") and methods[pid]["amount"] < amount:
            return f"Error: not enough balance in payment method {pid}"
    paid = sum(p["amount"] for p in payment_methods)
    if paid != total:
        return f"Error: payment amount does not add up, total price is {total}, but paid {paid}"
    for p in payment_methods:
        method = methods[p["payment_id"]]  # a certificate listed twice raises here
        if method["source"] == "gift_card":
            method["amount"] -= p["amount"]
        elif method["source"] == "certificate":
            del methods[p["payment_id"]]
    reservations[rid] = {
        "reservation_id": rid, "user_id": user_id, "origin": origin, "destination": destination,
        "flight_type": flight_type, "cabin": cabin, "flights": legs, "passengers": passengers,
        "payment_history": payment_methods, "created_at": "2024-05-15T15:00:00",
        "total_baggages": total_baggages, "nonfree_baggages": nonfree_baggages, "insurance": insurance,
    }
    user["reservations"].append(rid)
    return json.dumps(reservations[rid])


def calculate(data, expression):
    if any(ch not in "0123456789+-*/(). " for ch in expression):
        return "Error: invalid characters in expression"
    try:
        return str(round(float(eval(expression, {"__builtins__": None}, {})), 2))
    except Exception as e:
        return f"Error: {e}"


def cancel_reservation(data, reservation_id):
    res = data["reservations"].get(reservation_id)
    if res is None:
        return "Error: reservation not found"
    history = res["payment_history"]
    history.extend([{"payment_id": p["payment_id"], "amount": -p["amount"]} for p in history])
    res["status"] = "cancelled"
    return json.dumps(res)


def get_reservation_details(data, reservation_id):
    res = data["reservations"].get(reservation_id)
    return "Error: user not found" if res is None else json.dumps(res)


def get_user_details(data, user_id):
    user = data["users"].get(user_id)
    return "Error: user not found" if user is None else json.dumps(user)


AIRPORTS = {"SFO": "San Francisco", "JFK": "New York", "LAX": "Los Angeles", "ORD": "Chicago",
            "DFW": "Dallas", "DEN": "Denver", "SEA": "Seattle", "ATL": "Atlanta", "MIA": "Miami",
            "BOS": "Boston", "PHX": "Phoenix", "IAH": "Houston", "LAS": "Las Vegas", "MCO": "Orlando",
            "EWR": "Newark", "CLT": "Charlotte", "MSP": "Minneapolis", "DTW": "Detroit",
            "PHL": "Philadelphia", "LGA": "LaGuardia"}


def list_all_airports(data):
    return json.dumps(AIRPORTS)


def _hit(flight, day):
    hit = {k: v for k, v in flight.items() if k != "dates"}
    hit.update(day)
    return hit


def search_direct_flight(data, origin, destination, date):
    hits = []
    for f in data["flights"].values():
        if f["origin"] == origin and f["destination"] == destination:
            day = f["dates"].get(date)
            if day is not None and day["status"] == "available":
                hits.append(_hit(f, day))
    return json.dumps(hits)


def search_onestop_flight(data, origin, destination, date):
    flights = data["flights"].values()
    hits = []
    for a in flights:
        if a["origin"] != origin:
            continue
        for b in flights:
            if b["destination"] != destination or b["origin"] != a["destination"]:
                continue
            date2 = f"2024-05-{int(date[-2:]) + 1}" if "+1" in a["scheduled_arrival_time_est"] else date
            if a["scheduled_arrival_time_est"] > b["scheduled_departure_time_est"]:
                continue
            if (date in a["dates"] and date2 in b["dates"]
                    and a["dates"][date]["status"] == "available"
                    and b["dates"][date2]["status"] == "available"):
                first = _hit(a, a["dates"][date])
                first["date"] = date
                second = _hit(b, b["dates"][date])
                second["date"] = date2
                hits.append([first, second])
    return json.dumps(hits)


def send_certificate(data, user_id, amount):
    user = data["users"].get(user_id)
    if user is None:
        return "Error: user not found"
    for pid in ("certificate_3221322", "certificate_3221323", "certificate_3221324"):
        if pid not in user["payment_methods"]:
            user["payment_methods"][pid] = {"source": "certificate", "amount": amount, "id": pid}
            return f"Certificate {pid} added to user {user_id} with amount {amount}."
    return None


def think(data, thought):
    return ""


def transfer_to_human_agents(data, summary):
    return "Transfer successful"


def _update_payment_error(method, total):
    if method is None:
        return "Error: payment method not found"
    if method["source"] == "certificate":
        return "Error: certificate cannot be used to update reservation"
    if method["source"] == "gift_card" and method["amount"] < total:
        return "Error: gift card balance is not enough"
    return None


def update_reservation_baggages(data, reservation_id, total_baggages, nonfree_baggages, payment_id):
    res = data["reservations"].get(reservation_id)
    if res is None:
        return "Error: reservation not found"
    fee = 50 * max(0, nonfree_baggages - res["nonfree_baggages"])
    method = data["users"][res["user_id"]]["payment_methods"].get(payment_id)
    err = _update_payment_error(method, fee)
    if err:
        return err
    res["total_baggages"] = total_baggages
    res["nonfree_baggages"] = nonfree_baggages
    if method["source"] == "gift_card":
        method["amount"] -= fee
    if fee != 0:
        res["payment_history"].append({"payment_id": payment_id, "amount": fee})
    return json.dumps(res)


def update_reservation_flights(data, reservation_id, cabin, flights, payment_id):
    res = data["reservations"].get(reservation_id)
    if res is None:
        return "Error: reservation not found"
    n = len(res["passengers"])
    total = 0
    legs = deepcopy(flights)
    for leg in legs:
        kept = None
        if cabin == res["cabin"]:
            kept = next((f for f in res["flights"] if f["flight_number"] == leg["flight_number"]
                         and f["date"] == leg["date"]), None)
        if kept is not None:
            total += kept["price"] * n
            leg["price"], leg["origin"], leg["destination"] = kept["price"], kept["origin"], kept["destination"]
            continue
        cost = _price_leg(data, leg, n, cabin)
        if isinstance(cost, str):
            return cost
        total += cost
    total -= sum(f["price"] for f in res["flights"]) * n
    method = data["users"][res["user_id"]]["payment_methods"].get(payment_id)
    err = _update_payment_error(method, total)
    if err:
        return err
    if method["source"] == "gift_card":
        method["amount"] -= total
    res["flights"] = legs
    if total != 0:
        res["payment_history"].append({"payment_id": payment_id, "amount": total})
    return json.dumps(res)


def update_reservation_passengers(data, reservation_id, passengers):
    res = data["reservations"].get(reservation_id)
    if res is None:
        return "Error: reservation not found"
    if len(passengers) != len(res["passengers"]):
        return "Error: number of passengers does not match"
    res["passengers"] = passengers
    return json.dumps(res)


TOOLS = {f.__name__: f for f in [
    book_reservation, calculate, cancel_reservation, get_reservation_details, get_user_details,
    list_all_airports, search_direct_flight, search_onestop_flight, send_certificate, think,
    transfer_to_human_agents, update_reservation_baggages, update_reservation_flights,
    update_reservation_passengers,
]}
WRITE_TOOLS = {"book_reservation", "cancel_reservation", "send_certificate", "update_reservation_baggages",
               "update_reservation_flights", "update_reservation_passengers"}
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
    got = common.get_data_hash(data)
    gt = load_data(data_dir)
    for c in calls:
        if c["name"] not in TERMINATE_TOOLS:
            step(gt, c["name"], deepcopy(c["arguments"]))
    return 1.0 if common.get_data_hash(gt) == got else 0.0


def verify(eps, data_dir):
    """Outputs byte for byte (None as None), state diffs, rewards."""
    init = load_data(data_dir)
    res = {"episodes": len(eps), "outputs": 0, "outputs_matched": 0,
           "diffs_matched": 0, "rewards_ok": 0, "mismatches": []}
    for ep in eps:
        data = load_data(data_dir)
        for i, c in enumerate(ep["calls"]):
            # the arguments are copied: book_reservation stores its lists
            got = step(data, c["name"], deepcopy(c["arguments"]))
            res["outputs"] += 1
            if got == ep["outputs"][i]:
                res["outputs_matched"] += 1
            else:
                res["mismatches"].append(f"{ep['id']} call {i} {c['name']}: got {str(got)[:200]!r}")
        want = {k: v for k, v in ep["state_diff"].items() if v}
        if common.state_diff(data, init) == want:
            res["diffs_matched"] += 1
        else:
            res["mismatches"].append(f"{ep['id']}: state diff differs")
        if calculate_reward(data, data_dir, ep["calls"]) == 1.0:
            res["rewards_ok"] += 1
    res["ok"] = (res["outputs_matched"] == res["outputs"]
                 and res["diffs_matched"] == res["episodes"]
                 and res["rewards_ok"] == res["episodes"])
    return res


def bench(eps, data_dir, repeat, state_repeat):
    clock = time.perf_counter_ns
    resets, calls, reads, writes, totals, per_tool = [], [], [], [], [], {}
    for _ in range(repeat):
        start = clock()
        for ep in eps:
            t0 = clock()
            data = load_data(data_dir)
            resets.append(clock() - t0)
            for c in ep["calls"]:
                name, kwargs = c["name"], deepcopy(c["arguments"])  # copied outside the timer
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
                step(data, c["name"], deepcopy(c["arguments"]))
            t0 = clock()
            common.get_data_hash(data)
            t1 = clock()
            calculate_reward(data, data_dir, ep["calls"])
            t2 = clock()
            hashes.append(t1 - t0)
            rewards.append(t2 - t1)
    s = common.summary
    return {
        "reset": s(resets), "call": s(calls), "call_read": s(reads), "call_write": s(writes),
        "total_ns": totals, "hash": s(hashes), "reward": s(rewards),
        "tools": {k: s(v) for k, v in sorted(per_tool.items())},
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=os.path.join(ENV_DIR, "data"))
    ap.add_argument("--refs", default=os.path.join(ENV_DIR, "testdata", "test_ref.jsonl"))
    ap.add_argument("--repeat", type=int, default=5, help="timed passes over all episodes")
    ap.add_argument("--state-repeat", type=int, default=1,
                    help="passes timing get_data_hash and calculate_reward")
    ap.add_argument("--limit", type=int, default=0, help="only the first N episodes")
    ap.add_argument("--verify-only", action="store_true")
    args = ap.parse_args()

    eps = common.load_refs(args.refs.split(","), args.limit)
    v = verify(eps, args.data)
    print(f"airline baseline verification: {v['outputs_matched']}/{v['outputs']} outputs, "
          f"{v['diffs_matched']}/{v['episodes']} state diffs, "
          f"{v['rewards_ok']}/{v['episodes']} rewards", file=sys.stderr)
    for m in v["mismatches"][:20]:
        print("  mismatch:", m, file=sys.stderr)
    out = {"python": platform.python_version(), "implementation": platform.python_implementation(),
           "data_bytes": sum(os.path.getsize(os.path.join(args.data, n)) for n in FILES),
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
