"""GRPO with TRL on a wasmenv environment, through environment_factory.

    wasmenv build testdata/envs/mini -o mini.wasm
    wasmenv serve mini.wasm --addr 127.0.0.1:8080 &
    python3 examples/trl/train_grpo.py --url http://127.0.0.1:8080 --env mini

Everything up to the trainer runs with the wasmenv client alone (it checks
the server, the tasks and one episode); the training itself needs
    pip install ./clients/python "trl" "transformers>=5.2" datasets jmespath
and a model whose chat template supports tool calls.
"""

import argparse
import sys


def rows(client, env, seeds):
    """One dataset row per task and seed: the prompt, and the task and seed
    that reset() reads. reset() appends the task's instruction to the prompt."""
    out = []
    for t in client.tasks(env):
        for seed in range(seeds):
            out.append({"prompt": [{"role": "user", "content": "Use the tools to do this task."}],
                        "task": t["id"], "seed": seed})
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default="http://127.0.0.1:8080")
    p.add_argument("--env", default=None, help="environment name (default: the only one served)")
    p.add_argument("--token", default=None)
    p.add_argument("--model", default="Qwen/Qwen3-0.6B")
    p.add_argument("--seeds", type=int, default=4, help="seeds per task")
    p.add_argument("--output-dir", default="grpo-wasmenv")
    a = p.parse_args(argv)

    from wasmenv_client import Client
    from wasmenv_client.trl import environment_factory

    client = Client(a.url, token=a.token)
    Env = environment_factory(a.url, a.env, token=a.token)
    env_name = a.env or client.envs()[0]["name"]
    data = rows(client, env_name, a.seeds)
    probe = Env()
    instruction = probe.reset(**data[0])
    tools = sorted(n for n in dir(probe) if not n.startswith("_") and n not in ("reset", "get_reward"))
    print("environment %s: %d tools (%s), %d rows" % (env_name, len(tools), ", ".join(tools), len(data)))
    print("first task: %s (untouched state scores %s)" % (instruction, probe.get_reward()))
    del probe

    try:
        from datasets import Dataset
        from trl import GRPOConfig, GRPOTrainer
    except ImportError as e:
        print("to train, install TRL: pip install trl 'transformers>=5.2' datasets jmespath (%s)" % e,
              file=sys.stderr)
        return 2
    trainer = GRPOTrainer(
        model=a.model,
        train_dataset=Dataset.from_list(data),
        environment_factory=Env,  # get_reward() is the reward: no reward_funcs needed
        args=GRPOConfig(output_dir=a.output_dir, num_generations=8, max_completion_length=1024,
                        per_device_train_batch_size=8, logging_steps=1),
    )
    trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())
