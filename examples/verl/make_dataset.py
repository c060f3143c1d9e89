"""verl dataset rows for the tasks of a served wasmenv environment.

    python3 examples/verl/make_dataset.py --url http://127.0.0.1:8080 --env mini -o train.parquet

Each row is one task and seed: the task's instruction as the prompt, the
ToolAgentLoop as its agent ("agent_name": "tool_agent"), and in
extra_info.tools_kwargs the task and seed every tool's create() reads
(verl passes a tool only its own entry). Parquet needs pandas and pyarrow
(verl has both); --format jsonl needs nothing.
"""

import argparse
import json
import sys


def rows(client, env, seeds):
    tools = [t["name"] for t in client.tools(env)]
    out = []
    for t in client.tasks(env):
        for seed in range(seeds):
            ck = {"create_kwargs": {"task": t["id"], "seed": seed}}
            out.append({
                "data_source": "wasmenv/" + env,
                "agent_name": "tool_agent",
                "prompt": [{"role": "user", "content": t["instruction"]}],
                "ability": "tool_use",
                "reward_model": {"style": "rule", "ground_truth": ""},
                "extra_info": {"index": len(out), "task": t["id"], "seed": seed, "need_tools_kwargs": True,
                               "tools_kwargs": {name: ck for name in tools}},
            })
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default="http://127.0.0.1:8080")
    p.add_argument("--env", required=True)
    p.add_argument("--token", default=None)
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("--format", choices=("parquet", "jsonl"), default="parquet")
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args(argv)
    from wasmenv_client import Client
    data = rows(Client(a.url, token=a.token), a.env, a.seeds)
    if a.format == "jsonl":
        with open(a.output, "w", encoding="utf-8") as f:
            for r in data:
                f.write(json.dumps(r) + "\n")
    else:
        try:
            import pandas as pd
        except ImportError:
            print("parquet needs pandas and pyarrow (verl has them); or use --format jsonl", file=sys.stderr)
            return 2
        pd.DataFrame(data).to_parquet(a.output)
    print("%d rows -> %s" % (len(data), a.output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
