"""Shared test material: a tokenizer built from the store example environment
and a small tool-use conversation in OpenAI chat format."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

import torch  # noqa: E402

from wasmlearn.model import GPT, ModelConfig  # noqa: E402
from wasmlearn.template import Template  # noqa: E402
from wasmlearn.tokenizer import Tokenizer, corpus_from_env_dirs  # noqa: E402

torch.set_num_threads(int(os.environ.get("WASMLEARN_THREADS") or os.cpu_count() or 1))

TOOLS = [
    {"type": "function", "function": {"name": "find_customer_by_email", "description": "Find a customer.",
                                      "parameters": {"type": "object", "properties": {"email": {"type": "string"}},
                                                     "required": ["email"]}}},
    {"type": "function", "function": {"name": "cancel_order", "description": "Cancel an order.",
                                      "parameters": {"type": "object",
                                                     "properties": {"order_id": {"type": "string"},
                                                                    "reason": {"type": "string"}},
                                                     "required": ["order_id", "reason"]}}},
]

CONVO = [
    {"role": "system", "content": "You are a customer-support agent for an online store."},
    {"role": "user", "content": "Hi, this is Olivia Chen (olivia.chen@example.com). Cancel order #W1002, ordered by mistake."},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c0", "type": "function", "function": {"name": "find_customer_by_email",
                                                      "arguments": "{\"email\": \"olivia.chen@example.com\"}"}}]},
    {"role": "tool", "tool_call_id": "c0", "content": "{\"customer_id\": \"C1001\"}"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "cancel_order",
                                                      "arguments": "{\"order_id\": \"#W1002\", \"reason\": \"ordered by mistake\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "{\"status\": \"cancelled\"}"},
    {"role": "assistant", "content": "Done: order #W1002 is cancelled."},
]

_TOK = None


def store_tokenizer():
    global _TOK
    if _TOK is None:
        _TOK = Tokenizer.build(corpus_from_env_dirs([os.path.join(REPO, "envs", "store")]))
    return _TOK


def small_model(tok, d=64, layers=2, heads=2, max_len=512, seed=0):
    torch.manual_seed(seed)
    return GPT(ModelConfig(vocab_size=tok.vocab_size, d_model=d, n_layer=layers, n_head=heads, max_len=max_len))


def template(tok):
    return Template(tok)
