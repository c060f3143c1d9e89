"""GRPO with TRL on a wasmenv environment, through environment_factory.

    go build -o wasmenv ./cmd/wasmenv        # as the README does
    ./wasmenv build testdata/envs/mini -o mini.wasm
    ./wasmenv serve mini.wasm --addr 127.0.0.1:8080 &
    python3 examples/trl/train_grpo.py --url http://127.0.0.1:8080 --env mini

Everything up to the trainer runs with the wasmenv client alone (it checks
the server, the tasks and one episode); the training itself needs
    pip install ./clients/python "trl" "transformers>=5.2" datasets jmespath
and a model whose chat template supports tool calls.
"""

import argparse
import sys


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default="http://127.0.0.1:8080")
    p.add_argument("--env", default=None, help="environment name (default: the only one served)")
    p.add_argument("--token", default=None)
    p.add_argument("--model", default="Qwen/Qwen3-0.6B")
    p.add_argument("--seeds", type=int, default=4, help="seeds per task")
    p.add_argument("--output-dir", default="grpo-wasmenv")
    a = p.parse_args(argv)

    from wasmenv_client.trl import environment_factory, rows, task_reward

    Env = environment_factory(a.url, a.env, token=a.token)
    # One row per task and seed: the environment's rules as the system
    # message and an empty user message, which TRL fills with what reset()
    # returns (the task's instruction, or a simulated user's opening).
    data = rows(Env, seeds=a.seeds)
    probe = Env()
    opening = probe.reset(**data[0])
    tools = sorted(n for n in dir(probe) if not n.startswith("_") and n != "reset")
    print("environment %s: %d tools (%s), %d rows" % (Env._env, len(tools), ", ".join(tools), len(data)))
    print("first task: %s (no answer scores %s)" % (opening, task_reward([""], [probe])[0]))
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
        environment_factory=Env,
        # The task's score, the completion's final answer included.
        reward_funcs=[task_reward],
        args=GRPOConfig(output_dir=a.output_dir, num_generations=8, max_completion_length=1024,
                        per_device_train_batch_size=8, logging_steps=1),
    )
    trainer.train()
    return 0


if __name__ == "__main__":
    sys.exit(main())
