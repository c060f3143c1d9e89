"""A NeMo Gym resources server that is `wasmenv serve`.

NeMo Gym starts each server of its config by running the server's
entrypoint (this file) with NEMO_GYM_CONFIG_PATH naming the server's
section, and reaches it at that section's host and port. This entrypoint
reads them and replaces itself with
    wasmenv serve BUNDLE --nemo-gym-root ENV --addr HOST:PORT
whose root routes (/seed_session, /TOOL, /verify for simple_agent; /reset,
/step, /close for gymnasium_agent; GET / for liveness) are NeMo Gym's. The
section names the bundle and the environment, and optionally the simulated
user (user, user_base_url, user_model); the wasmenv binary is $WASMENV_BIN
or `wasmenv` on PATH.
"""

import os
import shutil
import sys


def command(section, binary=None):
    """The wasmenv command line for a server section {host, port, bundle, env}."""
    missing = [k for k in ("host", "port", "bundle", "env") if section.get(k) in (None, "")]
    if missing:
        raise ValueError("the wasmenv resources server's config needs %s" % ", ".join(missing))
    binary = binary or os.environ.get("WASMENV_BIN") or shutil.which("wasmenv") or "wasmenv"
    argv = [binary, "serve", str(section["bundle"]), "--nemo-gym-root", str(section["env"]),
            "--addr", "%s:%s" % (section["host"], section["port"])]
    # The simulated user, as `wasmenv serve --user` plays it (for
    # gymnasium_agent): user none|scripted|openai, user_base_url, user_model.
    for key in ("user", "user_base_url", "user_model"):
        if section.get(key) not in (None, ""):
            argv += ["--" + key.replace("_", "-"), str(section[key])]
    return argv


def main():
    try:
        from nemo_gym.global_config import (NEMO_GYM_CONFIG_PATH_ENV_VAR_NAME, get_first_server_config_dict,
                                            get_global_config_dict)
    except ImportError as e:
        print("this entrypoint runs under NeMo Gym: %s" % e, file=sys.stderr)
        return 2
    from omegaconf import OmegaConf
    section = get_first_server_config_dict(get_global_config_dict(), os.environ[NEMO_GYM_CONFIG_PATH_ENV_VAR_NAME])
    argv = command(OmegaConf.to_container(section, resolve=True))
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    sys.exit(main())
