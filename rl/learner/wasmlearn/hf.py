"""The Hugging Face checkpoint layout for the Llama/Qwen family (llama.py):
config.json in the family's field names (Qwen3Config, LlamaConfig,
Qwen2Config), generation_config.json, and the weights as model.safetensors
(or shards listed in model.safetensors.index.json, as transformers writes
models over 5 GB) under HF's parameter names. Reading needs no
transformers: a directory a user brings (e.g. Qwen3-0.6B) loads its
config and weights here.

The learner's word tokenizer is also written as a `tokenizers`
tokenizer.json (hf_tokenizer.py) with tokenizer_config.json and a Jinja chat
template, so AutoTokenizer loads it. What a Hugging Face directory has and
this does not read: a BPE tokenizer of its own and its Jinja template.
"""

import json
import os

from . import safetensors as st
from .llama import FAMILIES, LlamaConfig
from .tokenizer import atomic_write

CONFIG = "config.json"
INDEX = "model.safetensors.index.json"

_FIELDS = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
           "num_key_value_heads", "head_dim", "max_position_embeddings", "rms_norm_eps", "rope_theta",
           "tie_word_embeddings", "attention_bias", "model_type", "initializer_range", "rope_scaling")


def is_hf_dir(dirpath):
    try:
        with open(os.path.join(dirpath, CONFIG)) as f:
            return json.load(f).get("model_type") in FAMILIES
    except (OSError, ValueError, AttributeError):
        return False


def config_to_hf(c, dtype="float32", bos_id=None, eos_ids=(), pad_id=None):
    arch = FAMILIES[c.model_type][0]
    d = {"architectures": [arch], "model_type": c.model_type, "hidden_act": "silu",
         "attention_dropout": 0.0, "use_cache": True, "torch_dtype": dtype}
    for k in _FIELDS:
        d[k] = getattr(c, k)
    if c.model_type == "llama":
        d.update(mlp_bias=False, pretraining_tp=1)
    if c.model_type in ("qwen2", "qwen3"):
        d.update(use_sliding_window=False, sliding_window=None, max_window_layers=c.num_hidden_layers)
    if c.model_type == "qwen2":
        d.pop("attention_bias")  # Qwen2 has q/k/v biases always and no such field
    if bos_id is not None:
        d["bos_token_id"] = bos_id
    if eos_ids:
        d["eos_token_id"] = list(eos_ids) if len(eos_ids) > 1 else eos_ids[0]
    if pad_id is not None:
        d["pad_token_id"] = pad_id
    return d


def config_from_hf(d):
    """config.json (a dict) → LlamaConfig, refusing what llama.py does not
    compute (other activations, RoPE scaling but Llama 3's, sliding
    windows, MLP biases)."""
    if not isinstance(d, dict) or d.get("model_type") not in FAMILIES:
        raise ValueError("config.json: model_type %r is not one of %s"
                         % (d.get("model_type") if isinstance(d, dict) else None, ", ".join(FAMILIES)))
    if d.get("hidden_act", "silu") != "silu":
        raise ValueError("config.json: hidden_act %r (only silu)" % d.get("hidden_act"))
    if d.get("use_sliding_window") or d.get("mlp_bias"):
        raise ValueError("config.json: sliding-window attention and MLP biases are not supported")
    kw = {k: d[k] for k in _FIELDS if d.get(k) is not None}
    kw.setdefault("num_key_value_heads", d.get("num_attention_heads"))
    kw.setdefault("tie_word_embeddings", False)  # transformers' default for these families
    kw.setdefault("rope_theta", 10000.0)
    try:
        return LlamaConfig(**kw)
    except (TypeError, AttributeError) as e:
        raise ValueError("config.json: %s" % e) from None


def read_config(dirpath):
    with open(os.path.join(dirpath, CONFIG)) as f:
        return config_from_hf(json.load(f))


def write(dirpath, model, dtype="float32", bos_id=None, eos_ids=(), pad_id=None):
    """config.json, generation_config.json, model.safetensors."""
    c = model.config
    sd = model.state_dict()
    if c.tie_word_embeddings:
        sd.pop("lm_head.weight", None)
    atomic_write(os.path.join(dirpath, CONFIG),
                 json.dumps(config_to_hf(c, dtype, bos_id, eos_ids, pad_id), indent=1).encode())
    gen = {"do_sample": True, "temperature": 1.0}
    if bos_id is not None:
        gen["bos_token_id"] = bos_id
    if eos_ids:
        gen["eos_token_id"] = list(eos_ids)
    if pad_id is not None:
        gen["pad_token_id"] = pad_id
    atomic_write(os.path.join(dirpath, "generation_config.json"), json.dumps(gen, indent=1).encode())
    st.save(os.path.join(dirpath, "model.safetensors"), sd, {"format": "pt"})


def read_weights(dirpath, config):
    """The state dict of model.safetensors or of the shards an index names,
    checked against the config (lm_head dropped when tied)."""
    ipath = os.path.join(dirpath, INDEX)
    if os.path.exists(ipath):
        with open(ipath) as f:
            wm = json.load(f).get("weight_map")
        if not isinstance(wm, dict) or not all(isinstance(v, str) for v in wm.values()):
            raise ValueError("%s: no weight_map of file names" % ipath)
        sd = {}
        for shard in sorted(set(wm.values())):
            if os.path.basename(shard) != shard or not shard.endswith(".safetensors"):
                raise ValueError("%s: shard %r is not a .safetensors file of this directory" % (ipath, shard))
            part, _ = st.load(os.path.join(dirpath, shard))
            sd.update(part)
    else:
        sd, _ = st.load(os.path.join(dirpath, "model.safetensors"))
    if config.tie_word_embeddings:
        sd.pop("lm_head.weight", None)
    return sd
