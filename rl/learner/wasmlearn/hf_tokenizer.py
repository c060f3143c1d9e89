"""The learner's word tokenizer and chat template in the files transformers
reads: tokenizer.json (the `tokenizers` library's format), and
tokenizer_config.json with a Jinja `chat_template`.

The word tokenizer maps onto a BPE model with no merges, `ignore_merges`
(a piece found whole in the vocabulary is one token; tokenizers >= 0.19)
and `byte_fallback` (any other piece becomes its UTF-8 bytes as <0xNN>
tokens), after a Split pre-tokenizer with the same regular expression. That
is this tokenizer's rule exactly: a piece that is a word is one token,
anything else is bytes (single characters are never words here, and the
only multi-character pieces are ASCII, so a piece cut into characters
finds none of them in the vocabulary). The specials are added tokens.

The chat template renders what template.Template renders when it cuts
nothing (max_system_tokens and max_tool_tokens None): the token budgets
are a count of this tokenizer's tokens, which Jinja cannot see. Two other
differences: text equal to a special token's (say "<|end|>" inside a user
message) is that special token to transformers and plain text here; and
tool-call arguments given as a string are copied as they are, where the
learner re-serialises them (the same text when they come from this
learner's server, which writes them canonically).
"""

import json

from .tokenizer import PIECE


def tokenizer_json(tok):
    vocab = {s: i for i, s in enumerate(tok.specials)}
    vocab.update({"<0x%02X>" % b: tok.byte_base + b for b in range(256)})
    vocab.update(tok.word_id)
    if len(vocab) != tok.vocab_size:
        raise ValueError("a word collides with a special or byte token name")
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": s, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for i, s in enumerate(tok.specials)],
        "normalizer": None,
        "pre_tokenizer": {"type": "Split", "pattern": {"Regex": PIECE.pattern}, "behavior": "Isolated",
                          "invert": False},
        "post_processor": None,
        "decoder": {"type": "Sequence", "decoders": [{"type": "ByteFallback"}, {"type": "Fuse"}]},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": True, "ignore_merges": True,
                  "vocab": vocab, "merges": []},
    }


# The template of template.Template, uncut. `tools_style` is set by the
# first line; the rest follows render() branch by branch.
CHAT_TEMPLATE = """{%- set style = '@STYLE@' -%}
{%- macro tools_block() -%}
<tools>{%- for t in tools -%}
{%- set fn = t['function'] if t['function'] is defined else t -%}
{%- if not loop.first %}{{ '\\n' }}{% endif -%}
{%- if style == 'json' -%}{{ fn | tojson }}
{%- elif style == 'names' -%}{{ fn['name'] }}
{%- else -%}
{%- set params = fn['parameters'] if fn['parameters'] is defined and fn['parameters'] else {} -%}
{%- set props = params['properties'] if params['properties'] is defined and params['properties'] else {} -%}
{%- set req = params['required'] if params['required'] is defined and params['required'] else [] -%}
{{ fn['name'] }}({%- for k, v in props.items() -%}{%- if not loop.first %}, {% endif -%}{{ k }}{%- if k not in req %}?{% endif -%}{%- endfor -%})
{%- endif -%}
{%- endfor -%}</tools>
{%- endmacro -%}
{%- macro text(c) -%}
{%- if c is string -%}{{ c }}{%- elif c is iterable and c is not mapping -%}{%- for p in c -%}{%- if p['text'] is defined -%}{{ p['text'] }}{%- endif -%}{%- endfor -%}{%- elif c is none or c is undefined -%}{%- else -%}{{ c }}{%- endif -%}
{%- endmacro -%}
<bos>
{%- set ns = namespace(sys=false) -%}
{%- set has_tools = tools is defined and tools -%}
{%- for m in messages -%}
{%- if m['role'] in ['system', 'developer'] and not ns.sys -%}
<|system|>{{ text(m['content']) }}{%- if has_tools -%}{{ tools_block() }}{%- endif -%}<|end|>
{%- set ns.sys = true -%}
{%- else -%}
{%- if not ns.sys and has_tools -%}<|system|>{{ tools_block() }}<|end|>{%- endif -%}
{%- set ns.sys = ns.sys or has_tools -%}
{%- if m['role'] in ['system', 'developer', 'user'] -%}<|user|>{{ text(m['content']) }}<|end|>
{%- elif m['role'] == 'tool' -%}<|tool|>{{ text(m['content']) }}<|end|>
{%- elif m['role'] == 'assistant' -%}<|assistant|>{{ text(m['content']) }}
{%- if m['tool_calls'] is defined and m['tool_calls'] -%}{%- for c in m['tool_calls'] -%}
{%- set fn = c['function'] if c['function'] is defined else c -%}
{%- set args = fn['arguments'] if fn['arguments'] is defined else {} -%}
<tool_call>{{ '{"name": ' }}{{ fn['name'] | tojson }}{{ ', "arguments": ' }}{%- if args is string -%}{{ args if args.strip() else '{}' }}{%- else -%}{{ args | tojson }}{%- endif -%}}</tool_call>
{%- endfor -%}{%- endif -%}<|end|>
{%- endif -%}
{%- endif -%}
{%- endfor -%}
{%- if not ns.sys and has_tools -%}<|system|>{{ tools_block() }}<|end|>{%- endif -%}
{%- if add_generation_prompt -%}<|assistant|>{%- endif -%}"""


def tokenizer_config(tok, template, max_len):
    return {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": "<bos>", "eos_token": "<|end|>", "pad_token": "<pad>", "unk_token": None,
        "add_bos_token": False, "add_eos_token": False, "clean_up_tokenization_spaces": False,
        "model_max_length": max_len,
        "added_tokens_decoder": {str(i): {"content": s, "lstrip": False, "normalized": False, "rstrip": False,
                                          "single_word": False, "special": True}
                                 for i, s in enumerate(tok.specials)},
        "chat_template": CHAT_TEMPLATE.replace("@STYLE@", template.tools_style),
        "wasmlearn_template": template.config(),
    }


def dumps(obj):
    return json.dumps(obj, ensure_ascii=False, indent=1).encode()
