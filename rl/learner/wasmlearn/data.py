"""Trajectories (the rollout engine's JSONL, docs/ROLLOUT.md) → token samples.

When a rollout carries `turn_tokens` (the server returned prompt and
completion token ids), the sample is built from exactly those ids: what the
model saw and what it generated, nothing re-rendered. Consecutive turns are
joined into one sequence when each turn's prompt extends the previous
prompt + completion (the usual case with this learner's template); otherwise
a turn becomes its own sample. Without token data (oracle / ground-truth
trajectories, other servers), the messages are rendered with the template.
Rollouts with `env_error` are dropped: the environment failed, not the agent.
"""

import os
import sys

try:
    from wasmenv_client.rollouts import read_rollouts
except ImportError:  # run from the repository (cd rl/learner), not installed
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "clients", "python"))
    from wasmenv_client.rollouts import read_rollouts


def read_jsonl(paths):
    """Rollout rows in their full view (wasmenv_client.rollouts: a compact
    file's toolset records and left-out values are put back)."""
    rows = []
    for p in paths:
        rows.extend(read_rollouts(p))
    return rows


def from_turn_tokens(row):
    """Samples from turn_tokens, or None when any turn lacks its ids."""
    turns = row.get("turn_tokens") or []
    if not turns or any(not t.get("prompt_token_ids") or not t.get("completion_token_ids") for t in turns):
        return None
    out, cur = [], None
    for t in sorted(turns, key=lambda t: t.get("message", 0)):
        p, c = t["prompt_token_ids"], t["completion_token_ids"]
        lp = t.get("logprobs")
        if lp is not None and len(lp) != len(c):
            lp = None
        if cur is not None and p[:len(cur["ids"])] == cur["ids"]:
            extra = p[len(cur["ids"]):]
            cur["ids"] += extra + c
            cur["mask"] += [0] * len(extra) + [1] * len(c)
            cur["served_logprobs"] += [None] * len(extra) + (lp or [None] * len(c))
            continue
        if cur is not None:
            out.append(cur)
        cur = {"ids": list(p) + list(c), "mask": [0] * len(p) + [1] * len(c),
               "served_logprobs": [None] * len(p) + (lp or [None] * len(c))}
    out.append(cur)
    return out


def samples(rows, template, use_tokens=True, drop_env_errors=True):
    """Rollout rows → [{"ids", "mask", "adv", "reward", "group", ...}]."""
    out = []
    for r in rows:
        if drop_env_errors and r.get("env_error"):
            continue
        ss = from_turn_tokens(r) if use_tokens else None
        if ss is None:
            ids, mask = template.render(r.get("messages") or [], r.get("tools") or [])
            ss = [{"ids": ids, "mask": mask}]
        for s in ss:
            s["adv"] = float(r.get("advantage", 0.0))
            s["reward"] = float(r.get("reward", 0.0))
            s["group"] = r.get("group", "")
            s["task"] = r.get("task", "")
        out.extend(ss)
    return out
