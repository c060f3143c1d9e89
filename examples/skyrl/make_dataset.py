"""SkyRL dataset rows for the tasks of a served wasmenv environment.

    python3 examples/skyrl/make_dataset.py --url http://127.0.0.1:8080 --env mini -o train.parquet

SkyRL's dataset (skyrl/train/dataset/dataset.py) pops "prompt" and
"env_class" from a row and hands the rest to the environment as extras:
here the task and seed, and where the server is, so that every Ray worker
finds it. The prompt is what `wasmenv rollout` sends: the environment's rules
as the system message, the task's instruction as the user's. On a server
that plays a simulated user (--user) the instruction is the user's secret:
the prompt is left empty, and the environment's init() fills it with the
rules and the user's opening. Parquet needs pandas and pyarrow (SkyRL has both); --format jsonl
needs nothing.
"""

import argparse
import json
import sys


def rows(client, url, env, seeds):
    from wasmenv_client.core import opening_messages

    rules = client.env_info(env).get("rules", "")
    out = []
    for t in client.tasks(env):
        prompt = opening_messages(rules, t["instruction"]) if t["instruction"] else []
        for seed in range(seeds):
            out.append({
                "data_source": "wasmenv/" + env,
                "prompt": prompt,
                "env_class": "wasmenv",
                "task": t["id"], "seed": seed,
                "wasmenv_url": url, "wasmenv_env": env,
            })
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default="http://127.0.0.1:8080")
    p.add_argument("--env", required=True)
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--format", choices=("parquet", "jsonl"), default="parquet")
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args(argv)
    from wasmenv_client import Client
    data = rows(Client(a.url), a.url, a.env, a.seeds)
    if a.format == "jsonl":
        with open(a.output, "w", encoding="utf-8") as f:
            for r in data:
                f.write(json.dumps(r) + "\n")
    else:
        try:
            import pandas as pd
        except ImportError:
            print("parquet needs pandas and pyarrow (SkyRL has them); or use --format jsonl", file=sys.stderr)
            return 2
        pd.DataFrame(data).to_parquet(a.output)
    print("%d rows -> %s" % (len(data), a.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
