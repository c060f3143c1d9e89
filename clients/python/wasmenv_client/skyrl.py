"""SkyRL: a skyrl-gym BaseTextEnv over a served bundle, without importing
skyrl-gym until SkyRL asks for the class.

    from wasmenv_client.skyrl import register
    register()   # env_class "wasmenv"; each row carries "task", "seed" and
                 # where the server is ("wasmenv_url", "wasmenv_env"), or the
                 # skyrl_gym config section "wasmenv" holds {url, env[, token]}

SkyRL's generator (skyrl/train/generators/skyrl_gym_generator.py) makes one
environment per trajectory with skyrl_gym.make(env_class, env_config=...,
extras=row extras + max_turns), calls init(prompt), then step(completion)
until done, then close(). Here:

- init creates the episode for the row's task and seed; the prompt is kept,
  or, when it is empty, becomes the prompt `wasmenv rollout` sends: the
  environment's rules as the system message and the opening (the task's
  instruction, or the simulated user's first message) as the user's;
- step parses the completion's <tool_call> blocks (Hermes / Qwen, the rule
  of the Go rollout engine), runs them in order and returns their results as
  one user message of <tool_response> blocks; a completion without a tool
  call is the final answer, and the episode is scored with it; the last
  allowed turn is scored too. The reward comes once, at the end. On a server
  that plays a simulated user (`wasmenv serve --user`), a completion without
  a tool call goes to the user instead, whose reply is the next observation,
  until the user stops: then the episode is scored, that completion as the
  answer;
- close deletes the episode.

An environment failure gives reward 0.0 (SkyRL wants a number) with
metadata["env_fault"] saying why, so a trainer can drop the trajectory.
"""

import os
import threading
from typing import Any, Dict, List, Optional, Tuple

from .client import Client
from .core import Rollout, bearer_token, strip_reasoning, task_and_seed
from .toolcalls import parse_tool_calls

ENV_ID = "wasmenv"

_clients: Dict[Tuple[str, Optional[str]], Client] = {}
_clients_mu = threading.Lock()


def _client(url: str, token: Optional[str]) -> Client:
    # One Client (a keep-alive connection per thread) for all environments.
    with _clients_mu:
        c = _clients.get((url, token))
        if c is None:
            c = _clients[(url, token)] = Client(url, token=token)
        return c


def _get(cfg: Any, key: str, default: Any = None) -> Any:
    if cfg is None:
        return default
    if isinstance(cfg, dict):
        return cfg.get(key, default)
    try:
        return cfg.get(key, default)  # OmegaConf DictConfig
    except AttributeError:
        return getattr(cfg, key, default)


def _row(extras: Dict[str, Any]) -> Dict[str, Any]:
    row = dict(extras.get("extra_info") or {}) if isinstance(extras.get("extra_info"), dict) else {}
    row.update({k: v for k, v in extras.items() if k in ("task", "seed")})
    return row


class WasmenvTextEnvLogic:
    """What WasmenvTextEnv does, apart from being a skyrl-gym BaseTextEnv."""

    def __init__(self, env_config: Any = None, extras: Optional[Dict[str, Any]] = None):
        extras = extras or {}
        # Where the server is: the skyrl_gym config section, else the row
        # (wasmenv_url, wasmenv_env: a row reaches every Ray worker), else
        # $WASMENV_URL / $WASMENV_ENV / $WASMENV_TOKEN.
        url = _get(env_config, "url") or extras.get("wasmenv_url") or os.environ.get("WASMENV_URL")
        if not url:
            raise ValueError("the wasmenv environment needs the server's url: skyrl_gym config %r, "
                             "the row's wasmenv_url, or $WASMENV_URL" % ENV_ID)
        env = _get(env_config, "env") or extras.get("wasmenv_env") or os.environ.get("WASMENV_ENV")
        token = bearer_token(_get(env_config, "token"), _get(env_config, "token_env"))
        task, seed = task_and_seed(_row(extras))
        self.turns = 0
        self.max_turns = int(extras.get("max_turns") or _get(env_config, "max_turns", 8))
        self.rollout = Rollout(_client(url, token), env, task, seed)
        self.done = False

    def init(self, prompt: List[Dict[str, str]]) -> Tuple[List[Dict[str, str]], Dict[str, Any]]:
        self.rollout.start()
        if not prompt:
            prompt = self.rollout.messages()
        return prompt, {"episode": self.rollout.episode.id if self.rollout.episode else None}

    def step(self, action: str) -> Dict[str, Any]:
        if self.done:
            raise RuntimeError("step after the episode ended")
        self.turns += 1
        calls = parse_tool_calls(action)
        outputs = []
        for c in calls:
            if c.malformed:
                outputs.append("Error: " + c.malformed)
            else:
                outputs.append(self.rollout.call(c.name, c.arguments).content)
        meta: Dict[str, Any] = {"tool_calls": len(calls)}
        more = self.turns < self.max_turns and not self.rollout.env_fault
        if calls and more:
            obs = "\n".join("<tool_response>\n%s\n</tool_response>" % o for o in outputs)
            return {"observations": [{"role": "user", "content": obs}], "reward": 0.0, "done": False,
                    "metadata": meta}
        answer = None if calls else strip_reasoning(action)
        if answer is not None and self.rollout.user and not self.rollout.env_fault:
            reply, stopped = self.rollout.say(answer)
            if not stopped and more:
                return {"observations": [{"role": "user", "content": reply}], "reward": 0.0, "done": False,
                        "metadata": meta}
        self.done = True
        reward = self.rollout.reward(answer)
        if self.rollout.env_fault:
            meta["env_fault"] = self.rollout.env_fault
        return {"observations": [], "reward": reward if reward is not None else 0.0, "done": True,
                "metadata": meta}

    def close(self) -> None:
        self.rollout.close()

    def get_metrics(self) -> Dict[str, Any]:
        return {"turns": self.turns, "tool_calls": self.rollout.calls,
                "env_fault": 1.0 if self.rollout.env_fault else 0.0}


def register(env_id: str = ENV_ID) -> None:
    """Register WasmenvTextEnv in skyrl-gym under env_id."""
    from skyrl_gym.envs.registration import register as skyrl_register
    skyrl_register(id=env_id, entry_point="wasmenv_client.skyrl:WasmenvTextEnv")


def __getattr__(name: str):
    # PEP 562: skyrl-gym's make() loads "wasmenv_client.skyrl:WasmenvTextEnv";
    # only then is skyrl-gym imported and the BaseTextEnv subclass made.
    if name != "WasmenvTextEnv":
        raise AttributeError(name)
    try:
        from skyrl_gym.envs.base_text_env import BaseTextEnv
    except ImportError as e:
        raise ImportError("wasmenv_client.skyrl.WasmenvTextEnv subclasses skyrl-gym's BaseTextEnv: "
                          "install skyrl-gym") from e

    class WasmenvTextEnv(WasmenvTextEnvLogic, BaseTextEnv):
        def __init__(self, env_config: Any = None, extras: Optional[Dict[str, Any]] = None):
            BaseTextEnv.__init__(self)
            WasmenvTextEnvLogic.__init__(self, env_config, extras)

    WasmenvTextEnv.__module__ = __name__
    globals()["WasmenvTextEnv"] = WasmenvTextEnv
    return WasmenvTextEnv
