#!/usr/bin/env python3
"""Writes testdata/cases_ref.jsonl: the error and quirk cases of the airline
port, with the outputs and final state diffs of τ-bench's own airline tools.

Each case is a fresh episode on the shipped data: earlier calls set up the
state a later call needs. The calls go through τ-bench's Env.step wrapper
(an exception becomes "Error: <e>"), and an output is the tool's return value
(None where the tool returns nothing). The state diff lists, per collection,
every record that differs from the shipped data by type-aware value (5 and 5.0
differ, key order does not), in its final key order.

    python3 gen/cases.py --taubench PATH/TO/tau-bench   (run from envs/taubench-airline)

PATH is a checkout of sierra-research/tau-bench (commit 59a200c6d575d5951); only its
tau_bench/envs/tool.py and tau_bench/envs/airline/tools/ are imported.
"""

import argparse
import copy
import importlib
import json
import os
import sys
import types

U = "mei_hernandez_8984"  # gift_card_5309492 (98), certificate_7502997 (250), credit_card_6082923
GIFT, CERT, CARD = "gift_card_5309492", "certificate_7502997", "credit_card_6082923"
P1 = [{"first_name": "Mei", "last_name": "Hernandez", "dob": "1981-01-01"}]
P2 = P1 + [{"first_name": "Ana", "last_name": "Lee", "dob": "1990-02-02"}]
LEG = [{"flight_number": "HAT002", "date": "2024-05-20"}]  # LGA→PHX, economy 175


def book(flights=LEG, cabin="economy", passengers=P1, payments=None, insurance="no", nonfree=0, user=U):
    if payments is None:
        payments = [{"payment_id": CARD, "amount": 175}]
    return ("book_reservation", {"user_id": user, "origin": "LGA", "destination": "PHX",
                                 "flight_type": "one_way", "cabin": cabin, "flights": flights,
                                 "passengers": passengers, "payment_methods": payments,
                                 "total_baggages": nonfree, "nonfree_baggages": nonfree,
                                 "insurance": insurance})


def bags(rid, total, nonfree, pid):
    return ("update_reservation_baggages", {"reservation_id": rid, "total_baggages": total,
                                            "nonfree_baggages": nonfree, "payment_id": pid})


def fly(rid, cabin, flights, pid):
    return ("update_reservation_flights", {"reservation_id": rid, "cabin": cabin,
                                           "flights": [{"flight_number": f, "date": d} for f, d in flights],
                                           "payment_id": pid})


R9 = [("HAT034", "2024-05-28"), ("HAT026", "2024-05-28"), ("HAT247", "2024-05-30"), ("HAT232", "2024-05-30")]
AX = [("HAT115", "2024-05-08"), ("HAT192", "2024-05-08"), ("HAT188", "2024-05-14"), ("HAT131", "2024-05-14")]

CASES = {
    "unknown-ids": [
        ("get_reservation_details", {"reservation_id": "XXXXXX"}),
        ("get_user_details", {"user_id": "nobody_0000"}),
        ("cancel_reservation", {"reservation_id": "XXXXXX"}),
        bags("XXXXXX", 1, 1, CARD),
        fly("XXXXXX", "economy", [], CARD),
        ("update_reservation_passengers", {"reservation_id": "XXXXXX", "passengers": []}),
        book(user="nobody_0000"),
        ("send_certificate", {"user_id": "nobody_0000", "amount": 100}),
    ],
    "book-flight-checks": [
        book(flights=[{"flight_number": "HAT999", "date": "2024-05-20"}]),
        book(flights=[{"flight_number": "HAT002", "date": "2024-06-01"}]),
        book(flights=[{"flight_number": "HAT002", "date": "2024-05-10"}]),
        book(flights=[{"flight_number": "HAT002", "date": "2024-05-25"}], cabin="business"),
        book(cabin="first"),
        book(flights=LEG + [{"flight_number": "HAT999", "date": "2024-05-20"}],
             payments=[{"payment_id": "credit_card_0000000", "amount": 1}]),
    ],
    "book-payment-checks": [
        book(payments=[{"payment_id": "credit_card_0000000", "amount": 175}]),
        book(payments=[{"payment_id": GIFT, "amount": 100}, {"payment_id": CARD, "amount": 75}]),
        book(payments=[{"payment_id": CERT, "amount": 251}]),
        book(payments=[{"payment_id": CARD, "amount": 170}]),
        book(payments=[{"payment_id": CARD, "amount": 174.5}]),
        book(payments=[{"payment_id": CARD, "amount": 100}, {"payment_id": CARD, "amount": 75.0}]),
    ],
    "book-totals": [
        book(passengers=P2, payments=[{"payment_id": CARD, "amount": 410}], insurance="yes"),
        book(passengers=P2, payments=[{"payment_id": CARD, "amount": 450}], insurance="YES", nonfree=2),
        book(flights=[], passengers=[], payments=[]),
    ],
    "fixed-ids-fourth-overwrites": [book(), book(), book(),
                                    book(payments=[{"payment_id": CARD, "amount": 75}, {"payment_id": CARD, "amount": 100}])],
    "certificate-whole-cancel-refunds-nothing": [
        book(payments=[{"payment_id": CERT, "amount": 100}, {"payment_id": GIFT, "amount": 75}]),
        ("cancel_reservation", {"reservation_id": "HATHAT"}),
        ("cancel_reservation", {"reservation_id": "HATHAT"}),
        ("get_user_details", {"user_id": U}),
    ],
    "certificate-twice-partial": [
        book(payments=[{"payment_id": GIFT, "amount": 25}, {"payment_id": CERT, "amount": 75},
                       {"payment_id": CERT, "amount": 75}]),
        ("get_reservation_details", {"reservation_id": "HATHAT"}),
    ],
    "float-payment": [book(payments=[{"payment_id": GIFT, "amount": 0.5}, {"payment_id": CARD, "amount": 174.5}]),
                      ("cancel_reservation", {"reservation_id": "HATHAT"})],
    "send-certificate": [
        ("send_certificate", {"user_id": U, "amount": 150}),
        ("send_certificate", {"user_id": U, "amount": 150.0}),
        ("send_certificate", {"user_id": U, "amount": 99.5}),
        ("send_certificate", {"user_id": U, "amount": 100}),
    ],
    "baggages": [
        bags("79G8A9", 2, 0, CERT),
        bags("79G8A9", 2, 0, "gift_card_0000000"),
        bags("79G8A9", 5, 3, GIFT),
        bags("79G8A9", 3, 1, GIFT),
        bags("79G8A9", 1, 0, GIFT),
        bags("07S7FC", 9, 2, CARD),
    ],
    "update-flights-payment-checks": [
        fly("R9QDGB", "business", R9, GIFT),
        fly("R9QDGB", "business", R9, CERT),
        fly("R9QDGB", "business", R9, "credit_card_0000000"),
        fly("R9QDGB", "business", R9 + [("HAT999", "2024-05-30")], "credit_card_0000000"),
    ],
    "update-flights-cabin-not-updated": [fly("R9QDGB", "business", R9, CARD)],
    "update-flights-kept-segments": [fly("R9QDGB", "economy", R9[:2] + [("HAT002", "2024-05-20")], CARD)],
    "update-flights-refund-raises-gift-card": [fly("79G8A9", "economy", [("HAT292", "2024-05-16"), ("HAT088", "2024-05-16")], GIFT)],
    "update-flights-kept-not-checked": [
        fly("AXYDVC", "business", AX, "gift_card_2103866"),
        fly("AXYDVC", "economy", AX, "gift_card_2103866"),
    ],
    "update-passengers": [
        ("update_reservation_passengers", {"reservation_id": "R9QDGB", "passengers": P2}),
        ("update_reservation_passengers", {"reservation_id": "07S7FC", "passengers": P2}),
    ],
    "searches": [
        ("search_direct_flight", {"origin": "LGA", "destination": "PHX", "date": "2024-05-20"}),
        ("search_direct_flight", {"origin": "LGA", "destination": "PHX", "date": "2024-05-10"}),
        ("search_onestop_flight", {"origin": "LGA", "destination": "SFO", "date": "2024-05-20"}),
        ("search_onestop_flight", {"origin": "LGA", "destination": "SFO", "date": "2024-05-05"}),
        ("search_onestop_flight", {"origin": "LGA", "destination": "SFO", "date": "2024-05-xx"}),
        ("search_onestop_flight", {"origin": "JFK", "destination": "JFK", "date": "2024-05-xx"}),
        ("list_all_airports", {}),
        ("think", {"thought": "x"}),
        ("transfer_to_human_agents", {"summary": "x"}),
    ],
    "calculate": [("calculate", {"expression": e}) for e in [
        "2 + 2", "10 / 3", "1 / 0", "1.0 / 0", "1 // 0", "1.5 // 0", "2.675 * 1", "()", "2 ** 10000",
        "(1 + 2", "abc", "0 ** -1", "-7 // 2", "1200 * 0.1"]],
}


def load_tools(root):
    for name in ["tau_bench", "tau_bench.envs", "tau_bench.envs.airline"]:
        m = types.ModuleType(name)
        m.__path__ = [os.path.join(root, *name.split("."))]
        sys.modules[name] = m
    pkg = importlib.import_module("tau_bench.envs.airline.tools")
    return {t.get_info()["function"]["name"]: t for t in pkg.ALL_TOOLS}


def step(tools, data, name, kwargs):
    try:
        return tools[name].invoke(data=data, **copy.deepcopy(kwargs))
    except Exception as e:
        return f"Error: {e}"


def canon(v):
    return json.dumps(v, sort_keys=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--taubench", required=True)
    ap.add_argument("--data", default="data")
    ap.add_argument("--out", default="testdata/cases_ref.jsonl")
    args = ap.parse_args()
    tools = load_tools(args.taubench)

    def load():
        return {n: json.load(open(os.path.join(args.data, n + ".json")))
                for n in ("flights", "reservations", "users")}

    init = load()
    with open(args.out, "w") as out:
        for cid, calls in CASES.items():
            data = load()
            outputs = [step(tools, data, n, kw) for n, kw in calls]
            diff = {}
            for coll, recs in data.items():
                d = {k: v for k, v in recs.items() if k not in init[coll] or canon(init[coll][k]) != canon(v)}
                d.update({k: None for k in init[coll] if k not in recs})
                diff[coll] = d
            out.write(json.dumps({"id": cid, "calls": [{"name": n, "arguments": kw} for n, kw in calls],
                                  "outputs": outputs, "state_diff": diff}) + "\n")


if __name__ == "__main__":
    main()
