"""A word-level tokenizer built from the environments' own vocabulary.

Text is cut into pieces by one regular expression (an optional leading space
plus an identifier: a letter or underscore followed by letters, digits and
underscores; one digit; one other symbol; or one whitespace character).
Symbols never absorb the space before them, so `order #W1013` in a sentence
and `"#W1013"` in JSON share the tokens `#`, `W1013`: the pattern an
induction head copies. A piece seen often enough in the corpus (tool
names, schema keys, words of rules, tasks and data, identifiers of the data
such as W1013 or card_4417) is one token; any other piece falls back to its
UTF-8 bytes, so every string round-trips exactly and no token is "unknown".
Numbers are cut into single digits. An identifier of the data being one
token lets a small model copy it from the instruction in one step (with
digit-by-digit ids, the demonstration's 225k-parameter model copied them
wrong most of the time after SFT).
"""

import collections
import json
import os
import re
import tempfile

PIECE = re.compile(r" ?[A-Za-z_][A-Za-z_0-9]*| ?[0-9]|[^\sA-Za-z0-9]|\s")

# Special tokens of the chat template. Their text never comes out of encode():
# encode() only produces them when asked to (template markers are added by id).
SPECIALS = [
    "<pad>", "<bos>", "<eos>",
    "<|system|>", "<|user|>", "<|assistant|>", "<|tool|>", "<|end|>",
    "<tools>", "</tools>", "<tool_call>", "</tool_call>",
]
N_BYTES = 256


class Tokenizer:
    """Pieces → ids: specials first, then the 256 bytes, then the words."""

    def __init__(self, words):
        self.words = list(words)
        self.specials = list(SPECIALS)
        self.byte_base = len(self.specials)
        self.word_base = self.byte_base + N_BYTES
        self.word_id = {w: self.word_base + i for i, w in enumerate(self.words)}
        self.special_id = {s: i for i, s in enumerate(self.specials)}

    # ids of the specials, by name without brackets where handy
    def sid(self, name):
        return self.special_id[name]

    @property
    def vocab_size(self):
        return self.word_base + len(self.words)

    @property
    def pad_id(self):
        return self.special_id["<pad>"]

    @property
    def eos_id(self):
        return self.special_id["<eos>"]

    def encode(self, text):
        ids = []
        for piece in PIECE.findall(text):
            i = self.word_id.get(piece)
            if i is not None:
                ids.append(i)
            else:
                ids.extend(self.byte_base + b for b in piece.encode("utf-8"))
        return ids

    def decode(self, ids, errors="replace"):
        """Ids back to text. Specials are written as their text; bytes are
        joined before UTF-8 decoding so multi-byte characters come back whole."""
        out, pending = [], bytearray()
        for i in ids:
            i = int(i)
            if self.byte_base <= i < self.word_base:
                pending.append(i - self.byte_base)
                continue
            if pending:
                out.append(pending.decode("utf-8", errors=errors))
                pending = bytearray()
            if i < self.byte_base:
                out.append(self.specials[i])
            elif i < self.vocab_size:
                out.append(self.words[i - self.word_base])
            else:
                raise ValueError("token id %d out of range (vocab %d)" % (i, self.vocab_size))
        if pending:
            out.append(pending.decode("utf-8", errors=errors))
        return "".join(out)

    def token_text(self, i):
        """The text of one token for logprobs output (a lone byte of a
        multi-byte character is shown as its escape)."""
        if self.byte_base <= i < self.word_base:
            b = bytes([i - self.byte_base])
            try:
                return b.decode("utf-8")
            except UnicodeDecodeError:
                return "bytes:\\x%02x" % b[0]
        return self.decode([i])

    @classmethod
    def build(cls, texts, min_count=2, max_words=8000):
        """Count pieces over the corpus; keep those seen min_count times
        (single-character pieces are covered by bytes already, except the
        space-prefixed ones which save a token each)."""
        counts = collections.Counter()
        for t in texts:
            counts.update(PIECE.findall(t))
        keep = [p for p, c in counts.items()
                if c >= min_count and len(p.encode("utf-8")) > 1]
        keep.sort(key=lambda p: (-counts[p], p))
        return cls(sorted(keep[:max_words]))

    def to_dict(self):
        return {"format": "wasmlearn-words-1", "specials": self.specials, "words": self.words}

    @classmethod
    def from_dict(cls, d):
        if d.get("format") != "wasmlearn-words-1":
            raise ValueError("unknown tokenizer format %r" % d.get("format"))
        if d.get("specials") != SPECIALS:
            raise ValueError("tokenizer specials differ from this version's")
        return cls(d["words"])

    def save(self, path):
        atomic_write(path, json.dumps(self.to_dict()).encode())

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls.from_dict(json.load(f))


def atomic_write(path, data):
    """Write to a temp file in the same directory, fsync, then rename."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def corpus_from_env_dirs(dirs):
    """Every text file of the environment source dirs (env.yaml rules,
    schema.sql, seed.sql, tasks, tool code): tool names, schema keys and the
    words and names of the data."""
    texts = []
    for root in dirs:
        for dirpath, _, files in os.walk(root):
            for name in sorted(files):
                if name.endswith((".yaml", ".yml", ".sql", ".go", ".json", ".jsonl", ".md")):
                    with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                        texts.append(f.read())
    return texts
