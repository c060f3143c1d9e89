"""Checkpoints: one directory holding the tokenizer, the model and template
configs (meta.json), the weights (model.safetensors) and, for resuming, the
optimizer and RNG state (optimizer.safetensors).

Nothing is pickled: torch.load runs whatever code a pickle names, so a
checkpoint directory from elsewhere (or one an attacker could write) would
be code execution. Weights and optimizer moments are safetensors (tensors
and strings only, see safetensors.py); the optimizer's non-tensor state
(param groups, scalar entries) is JSON in the file's metadata. A directory
that holds only the old `ckpt.pt` (pickle) is refused with PickleRefused.

Every file is written to a temp name and renamed, so a crash never leaves
half a file.
"""

import dataclasses
import json
import os

import torch

from . import safetensors as st
from .model import GPT, ModelConfig
from .template import Template
from .tokenizer import Tokenizer, atomic_write

WEIGHTS = "model.safetensors"
OPTIMIZER = "optimizer.safetensors"


class PickleRefused(ValueError):
    """The directory holds a pickle checkpoint (ckpt.pt) and no safetensors."""


def save(dirpath, model, tok, template, optimizer=None, step=0, extra=None):
    os.makedirs(dirpath, exist_ok=True)
    tok.save(os.path.join(dirpath, "tokenizer.json"))
    meta = {"format": "wasmlearn-2", "arch": "gpt", "model": dataclasses.asdict(model.config),
            "template": template.config(), "step": step, "extra": extra or {}}
    st.save(os.path.join(dirpath, WEIGHTS), model.state_dict(), {"format": "pt"})
    if optimizer is not None:
        tensors, smeta = optimizer_tensors(optimizer.state_dict())
        tensors["rng.torch"] = torch.get_rng_state()
        smeta["step"] = str(step)
        st.save(os.path.join(dirpath, OPTIMIZER), tensors, smeta)
    atomic_write(os.path.join(dirpath, "meta.json"), json.dumps(meta, indent=1).encode())


def load_weights(dirpath):
    """(meta, tok, template, state_dict) without building a model."""
    wpath = os.path.join(dirpath, WEIGHTS)
    if not os.path.exists(wpath):
        if os.path.exists(os.path.join(dirpath, "ckpt.pt")):
            raise PickleRefused("%s holds a pickle checkpoint (ckpt.pt): pickles can run code, so they "
                                "are not loaded; save it again with this version (model.safetensors)" % dirpath)
        raise FileNotFoundError("%s: no %s" % (dirpath, WEIGHTS))
    with open(os.path.join(dirpath, "meta.json")) as f:
        meta = json.load(f)
    if not isinstance(meta, dict) or not isinstance(meta.get("model"), dict):
        raise ValueError("%s/meta.json: no model config" % dirpath)
    tok = Tokenizer.load(os.path.join(dirpath, "tokenizer.json"))
    template = Template(tok, **(meta.get("template") or {}))
    state, _ = st.load(wpath)
    return meta, tok, template, state


def build(meta):
    arch = meta.get("arch", "gpt")
    if arch != "gpt":
        raise ValueError("unknown model arch %r" % arch)
    try:
        return GPT(ModelConfig(**meta["model"]))
    except TypeError as e:
        raise ValueError("bad model config: %s" % e) from None


def load(dirpath, device="cpu", optimizer_factory=None):
    """Returns (model, tok, template, optimizer or None, meta)."""
    meta, tok, template, state = load_weights(dirpath)
    model = build(meta)
    model.load_state_dict(state)
    model.to(device)
    opt = None
    if optimizer_factory is not None:  # resuming: optimizer moments and the RNG too
        opt = optimizer_factory(model)
        opath = os.path.join(dirpath, OPTIMIZER)
        if os.path.exists(opath):
            tensors, smeta = st.load(opath)
            opt.load_state_dict(optimizer_state(tensors, smeta))
            if "rng.torch" in tensors:
                torch.set_rng_state(tensors["rng.torch"])
    return model, tok, template, opt, meta


def optimizer_tensors(sd):
    """An optimizer state_dict → (tensors, {str: str}): tensors by
    `state.<param index>.<key>`, everything else as JSON in metadata."""
    tensors, scalars = {}, {}
    for idx, s in sd["state"].items():
        for k, v in s.items():
            if torch.is_tensor(v):
                tensors["state.%d.%s" % (idx, k)] = v.detach().cpu()
            else:
                scalars.setdefault(str(idx), {})[k] = v
    groups = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in g.items()} for g in sd["param_groups"]]
    return tensors, {"param_groups": json.dumps(groups), "scalars": json.dumps(scalars)}


def optimizer_state(tensors, meta):
    """The inverse of optimizer_tensors."""
    try:
        groups = json.loads(meta["param_groups"])
        scalars = json.loads(meta.get("scalars") or "{}")
    except (KeyError, ValueError) as e:
        raise ValueError("optimizer file: bad metadata: %s" % e) from None
    for g in groups:
        if isinstance(g.get("betas"), list):
            g["betas"] = tuple(g["betas"])
    state = {}
    for name, t in tensors.items():
        if not name.startswith("state."):
            continue
        _, idx, key = name.split(".", 2)
        state.setdefault(int(idx), {})[key] = t
    for idx, s in scalars.items():
        state.setdefault(int(idx), {}).update(s)
    return {"state": state, "param_groups": groups}
