"""Checkpoints: one directory holding the tokenizer, the model and template
configs (meta.json), the weights (model.safetensors) and, for resuming, the
optimizer and RNG state (optimizer.safetensors).

The small GPT keeps its config in meta.json and its tokenizer in
tokenizer.json. A Llama/Qwen model (llama.py) is written in the Hugging Face
layout (hf.py: config.json, generation_config.json, model.safetensors under
HF's names), its word tokenizer as wasmlearn_tokenizer.json and, for
transformers, as tokenizer.json + tokenizer_config.json with the chat
template (hf_tokenizer.py).

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

from . import hf, hf_tokenizer
from . import safetensors as st
from .llama import LlamaConfig, LlamaForCausalLM
from .model import GPT, ModelConfig
from .template import Template
from .tokenizer import Tokenizer, atomic_write

WEIGHTS = "model.safetensors"
OPTIMIZER = "optimizer.safetensors"
TOKENIZERS = ("wasmlearn_tokenizer.json", "tokenizer.json")  # HF layout, small model


class PickleRefused(ValueError):
    """The directory holds a pickle checkpoint (ckpt.pt) and no safetensors."""


def save(dirpath, model, tok, template, optimizer=None, step=0, extra=None):
    os.makedirs(dirpath, exist_ok=True)
    meta = {"format": "wasmlearn-2", "template": template.config(), "step": step, "extra": extra or {}}
    if isinstance(model, LlamaForCausalLM):
        tok.save(os.path.join(dirpath, TOKENIZERS[0]))
        meta["arch"] = "hf"
        hf.write(dirpath, model, bos_id=template.BOS, eos_ids=template.stop_ids, pad_id=tok.pad_id)
        atomic_write(os.path.join(dirpath, "tokenizer.json"), hf_tokenizer.dumps(hf_tokenizer.tokenizer_json(tok)))
        atomic_write(os.path.join(dirpath, "tokenizer_config.json"),
                     hf_tokenizer.dumps(hf_tokenizer.tokenizer_config(tok, template, model.config.max_len)))
    else:
        tok.save(os.path.join(dirpath, TOKENIZERS[1]))
        meta.update(arch="gpt", model=dataclasses.asdict(model.config))
        st.save(os.path.join(dirpath, WEIGHTS), model.state_dict(), {"format": "pt"})
    if optimizer is not None:
        tensors, smeta = optimizer_tensors(optimizer.state_dict())
        tensors["rng.torch"] = torch.get_rng_state()
        smeta["step"] = str(step)
        st.save(os.path.join(dirpath, OPTIMIZER), tensors, smeta)
    atomic_write(os.path.join(dirpath, "meta.json"), json.dumps(meta, indent=1).encode())


def load_weights(dirpath):
    """(meta, tok, template, state_dict) without building a model."""
    meta, tok, template = read_meta(dirpath)
    return meta, tok, template, read_state(dirpath, meta)


def read_meta(dirpath):
    """(meta, tok, template) of a checkpoint directory: its configs, and no
    tensor read (read_state reads them)."""
    wpath = os.path.join(dirpath, WEIGHTS)
    if not os.path.exists(wpath) and not os.path.exists(os.path.join(dirpath, hf.INDEX)):
        if os.path.exists(os.path.join(dirpath, "ckpt.pt")):
            raise PickleRefused("%s holds a pickle checkpoint (ckpt.pt): pickles can run code, so they "
                                "are not loaded; save it again with this version (model.safetensors)" % dirpath)
        raise FileNotFoundError("%s: no %s" % (dirpath, WEIGHTS))
    if not os.path.exists(os.path.join(dirpath, "meta.json")) and hf.is_hf_dir(dirpath):
        raise ValueError("%s is a Hugging Face checkpoint without the learner's meta.json and word tokenizer: "
                         "its weights load (checkpoint.load_hf_model), its own BPE tokenizer and chat template "
                         "are not read by this version" % dirpath)
    with open(os.path.join(dirpath, "meta.json")) as f:
        meta = json.load(f)
    if not isinstance(meta, dict):
        raise ValueError("%s/meta.json is not an object" % dirpath)
    tpaths = [os.path.join(dirpath, n) for n in TOKENIZERS if os.path.exists(os.path.join(dirpath, n))]
    if not tpaths:
        raise FileNotFoundError("%s: no wasmlearn tokenizer (%s)" % (dirpath, " or ".join(TOKENIZERS)))
    tok = Tokenizer.load(tpaths[0])
    tcfg = meta.get("template") or {}
    if not isinstance(tcfg, dict):
        raise ValueError("%s/meta.json: template is not an object" % dirpath)
    template = Template(tok, **tcfg)
    if meta.get("arch") == "hf":
        meta["model"] = dataclasses.asdict(hf.read_config(dirpath))
    elif not isinstance(meta.get("model"), dict):
        raise ValueError("%s/meta.json: no model config" % dirpath)
    return meta, tok, template


def read_state(dirpath, meta):
    """The state dict of a checkpoint whose meta read_meta returned."""
    if meta.get("arch") == "hf":
        return hf.read_weights(dirpath, LlamaConfig(**meta["model"]))
    state, _ = st.load(os.path.join(dirpath, WEIGHTS))
    return state


ARCHS = ("gpt", "qwen3", "llama", "qwen2")


def new_model(arch, vocab_size, d_model, layers, heads, max_len, kv_heads=0, ffn=0):
    """A freshly initialised model: the small GPT (arch gpt) or a Llama-family
    decoder (kv_heads 0: heads // 2 when even, else heads; ffn 0: 3·d_model)."""
    if arch == "gpt":
        return GPT(ModelConfig(vocab_size=vocab_size, d_model=d_model, n_layer=layers, n_head=heads, max_len=max_len))
    if arch not in ARCHS:
        raise ValueError("arch %r: one of %s" % (arch, ", ".join(ARCHS)))
    kv = kv_heads or (heads // 2 if heads % 2 == 0 else heads)
    return LlamaForCausalLM(LlamaConfig(vocab_size=vocab_size, hidden_size=d_model, num_hidden_layers=layers,
                                        num_attention_heads=heads, num_key_value_heads=kv,
                                        intermediate_size=ffn or 3 * d_model, max_position_embeddings=max_len,
                                        model_type=arch))


def load_hf_model(dirpath, device="cpu"):
    """A Hugging Face Llama/Qwen directory (config.json + safetensors, e.g.
    one a user brings) → the model alone: its BPE tokenizer is not read."""
    c = hf.read_config(dirpath)
    model = LlamaForCausalLM(c)
    state = hf.read_weights(dirpath, c)
    check_state(model, state)
    model.load_state_dict(state)
    return model.to(device)


def check_state(model, state):
    """ValueError unless state has exactly the model's tensors and shapes."""
    want = model.state_dict()
    missing, extra = set(want) - set(state), set(state) - set(want)
    if missing or extra:
        raise ValueError("weights do not fit the model: missing %s, unexpected %s"
                         % (sorted(missing)[:5], sorted(extra)[:5]))
    for k, v in want.items():
        if tuple(state[k].shape) != tuple(v.shape) or not state[k].is_floating_point():
            raise ValueError("%s: %s %s, the model has %s" % (k, state[k].dtype, tuple(state[k].shape), tuple(v.shape)))


def config_of(meta):
    """(model class, config) of a checkpoint's meta, without building the
    model: a caller compares the config first (it may ask for any size)."""
    arch = meta.get("arch", "gpt")
    try:
        if arch == "hf":
            return LlamaForCausalLM, LlamaConfig(**meta["model"])
        if arch == "gpt":
            return GPT, ModelConfig(**meta["model"])
    except TypeError as e:
        raise ValueError("bad model config: %s" % e) from None
    raise ValueError("unknown model arch %r" % arch)


def build(meta):
    cls, config = config_of(meta)
    return cls(config)


def load(dirpath, device="cpu", optimizer_factory=None):
    """Returns (model, tok, template, optimizer or None, meta)."""
    meta, tok, template, state = load_weights(dirpath)
    model = build(meta)
    check_state(model, state)
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
