"""NeMo Gym JSONL rows for the tasks of a served wasmenv environment.

    python3 examples/nemo-gym/make_dataset.py --url http://127.0.0.1:8080 --env mini -o train.jsonl

A row is NeMo Gym's run request: responses_create_params (as input what
`wasmenv rollout` sends, the environment's rules as the system message and
the task's instruction as the user's; the bundle's tools as Responses API
function tools)
plus "task" and "seed", which /seed_session (or /reset) reads to choose the
episode.

When the server plays a simulated user (`wasmenv serve --user`), the
instruction is the user's private goal and the server never hands it out:
the rows' input is the rules alone, and the user's opening comes from the
server's /reset. Such rows are for NeMo Gym's gymnasium_agent (the
wasmenv_gymnasium_agent of wasmenv_resources_server/configs/wasmenv.yaml),
which lets the server own the conversation; simple_agent cannot talk to a
user. Standard library only.
"""

import argparse
import json
import sys


def rows(client, env, seeds):
    from wasmenv_client.core import opening_messages

    rules = client.env_info(env).get("rules", "")
    tools = [{"type": "function", "name": t["name"], "description": t.get("description", ""),
              "parameters": t.get("inputSchema") or {"type": "object", "properties": {}}, "strict": False}
             for t in client.tools(env)]
    out = []
    for t in client.tasks(env):
        # "" when the server plays the user: the goal stays on the server,
        # and the user's opening comes from /reset.
        prompt = opening_messages(rules, t["instruction"]) if t["instruction"] else system_only(rules)
        for seed in range(seeds):
            out.append({"responses_create_params": {"input": prompt, "tools": tools},
                        "task": t["id"], "seed": seed})
    return out


def system_only(rules):
    """The input of a row whose user speaks from the server: the rules."""
    return [{"role": "system", "content": rules}] if rules else []


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default="http://127.0.0.1:8080")
    p.add_argument("--env", required=True)
    p.add_argument("--token", default=None)
    p.add_argument("--seeds", type=int, default=4)
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args(argv)
    from wasmenv_client import Client
    data = rows(Client(a.url, token=a.token), a.env, a.seeds)
    with open(a.output, "w", encoding="utf-8") as f:
        for r in data:
            f.write(json.dumps(r) + "\n")
    print("%d rows -> %s" % (len(data), a.output))
    if data and all(m["role"] == "system" for m in data[0]["responses_create_params"]["input"]):
        print("the server plays a simulated user: train with wasmenv_gymnasium_agent (gymnasium_agent), "
              "not simple_agent", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
