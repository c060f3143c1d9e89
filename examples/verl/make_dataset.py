"""verl dataset rows for the tasks of a served wasmenv environment.

    python3 examples/verl/make_dataset.py --url http://127.0.0.1:8080 --env mini -o train.parquet

Each row is one task and seed: as the prompt, what `wasmenv rollout` sends
(the environment's rules as the system message, the task's instruction as
the user's); the ToolAgentLoop as its agent ("agent_name": "tool_agent");
in extra_info.tools_kwargs the task and seed every tool's create() reads
(verl passes a tool only its own entry), and in extra_info.interaction_kwargs
the same for the interaction that scores the final answer. Parquet needs pandas and pyarrow
(verl has both); --format jsonl needs nothing.
"""

import argparse
import json
import sys


def rows(client, env, seeds):
    from wasmenv_client.core import opening_messages
    from wasmenv_client.verl import INTERACTION_NAME

    tools = [t["name"] for t in client.tools(env)]
    rules = client.env_info(env).get("rules", "")
    out = []
    for t in client.tasks(env):
        if not t["instruction"]:
            raise SystemExit("the server plays a simulated user (--user): verl's prompts are fixed in the "
                             "dataset, so serve without --user for verl (docs/INTEGRATIONS.md)")
        for seed in range(seeds):
            ck = {"create_kwargs": {"task": t["id"], "seed": seed}}
            out.append({
                "data_source": "wasmenv/" + env,
                "agent_name": "tool_agent",
                "prompt": opening_messages(rules, t["instruction"]),
                "ability": "tool_use",
                "reward_model": {"style": "rule", "ground_truth": ""},
                "extra_info": {"index": len(out), "task": t["id"], "seed": seed, "need_tools_kwargs": True,
                               "tools_kwargs": {name: ck for name in tools},
                               "interaction_kwargs": {"name": INTERACTION_NAME, "task": t["id"], "seed": seed}},
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
