"""Checkpoints: one directory holding the tokenizer, the model and template
configs, and ckpt.pt (weights, optimizer, step, RNG states). Every file is
written to a temp name and renamed, so a crash never leaves half a
checkpoint; `latest` points at the newest step directory."""

import dataclasses
import io
import json
import os

import torch

from .model import GPT, ModelConfig
from .template import Template
from .tokenizer import Tokenizer, atomic_write


def save(dirpath, model, tok, template, optimizer=None, step=0, extra=None):
    os.makedirs(dirpath, exist_ok=True)
    tok.save(os.path.join(dirpath, "tokenizer.json"))
    meta = {"model": dataclasses.asdict(model.config), "template": template.config(),
            "step": step, "extra": extra or {}}
    state = {"model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
             "optimizer": optimizer.state_dict() if optimizer is not None else None,
             "step": step, "torch_rng": torch.get_rng_state()}
    buf = io.BytesIO()
    torch.save(state, buf)
    atomic_write(os.path.join(dirpath, "ckpt.pt"), buf.getvalue())
    atomic_write(os.path.join(dirpath, "meta.json"), json.dumps(meta, indent=1).encode())


def load(dirpath, device="cpu", optimizer_factory=None):
    """Returns (model, tok, template, optimizer or None, meta)."""
    with open(os.path.join(dirpath, "meta.json")) as f:
        meta = json.load(f)
    tok = Tokenizer.load(os.path.join(dirpath, "tokenizer.json"))
    template = Template(tok, **meta["template"])
    model = GPT(ModelConfig(**meta["model"]))
    state = torch.load(os.path.join(dirpath, "ckpt.pt"), map_location="cpu")
    model.load_state_dict(state["model"])
    model.to(device)
    opt = None
    if optimizer_factory is not None:
        opt = optimizer_factory(model)
        if state.get("optimizer") is not None:
            opt.load_state_dict(state["optimizer"])
    if state.get("torch_rng") is not None:
        torch.set_rng_state(state["torch_rng"])
    return model, tok, template, opt, meta
