"""SkyRL's PPO/GRPO entrypoint with the wasmenv environment registered, as
SkyRL's own examples register theirs (examples/train/multiply/main_multiply.py).

    python3 examples/skyrl/main_wasmenv.py data.train_data="['train.parquet']" \\
        environment.env_class=wasmenv generator.max_turns=8 ...

Needs SkyRL (skyrl-train, skyrl-gym, Ray, vLLM) and pip install ./clients/python.
"""

import sys


def main() -> int:
    try:
        import ray
        from skyrl.train.config import SkyRLTrainConfig
        from skyrl.train.entrypoints.main_base import BasePPOExp, validate_cfg
        from skyrl.train.utils import initialize_ray
    except ImportError as e:
        print("to train, install SkyRL (skyrl-train with skyrl-gym): %s" % e, file=sys.stderr)
        return 2

    @ray.remote(num_cpus=1)
    def entrypoint(cfg):
        from wasmenv_client.skyrl import register
        register()  # env_class "wasmenv", inside the task as SkyRL's examples do
        BasePPOExp(cfg).run()

    cfg = SkyRLTrainConfig.from_cli_overrides(sys.argv[1:])
    validate_cfg(cfg)
    initialize_ray(cfg)
    ray.get(entrypoint.remote(cfg))
    return 0


if __name__ == "__main__":
    sys.exit(main())
