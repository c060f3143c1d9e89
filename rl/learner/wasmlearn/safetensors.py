"""The safetensors file format, read and written by hand.

Hugging Face's `safetensors` package is not in Debian (what CI installs), and
the format is small: an 8-byte little-endian header length N, N bytes of
JSON ({name: {"dtype", "shape", "data_offsets": [begin, end]}, optional
"__metadata__": {str: str}}), then the raw little-endian tensor bytes, each
tensor's bytes at [begin, end) of that data area. Reading never unpickles
anything: a file can only yield tensors and strings, which is why
checkpoints use it instead of torch.save/torch.load (a pickle runs code).

Every header field is checked before any tensor is built: known dtype,
shape of non-negative integers, offsets inside the file, sized exactly for
the shape, no two tensors overlapping, no bytes unaccounted for.
"""

import json
import os
import sys

import numpy as np
import torch

from .tokenizer import atomic_write

# safetensors dtype name → torch dtype, element size
DTYPES = {
    "F64": (torch.float64, 8), "F32": (torch.float32, 4), "F16": (torch.float16, 2),
    "BF16": (torch.bfloat16, 2), "I64": (torch.int64, 8), "I32": (torch.int32, 4),
    "I16": (torch.int16, 2), "I8": (torch.int8, 1), "U8": (torch.uint8, 1), "BOOL": (torch.bool, 1),
}
NAMES = {dt: name for name, (dt, _) in DTYPES.items()}

MAX_HEADER = 100 << 20  # the reference implementation's limit


class FormatError(ValueError):
    """The file is not a valid safetensors file (the message says why)."""


if sys.byteorder != "little":  # the format is little-endian; so is every machine we run on
    raise ImportError("wasmlearn.safetensors assumes a little-endian machine")


def _raw(t):
    """A tensor's bytes in memory order (little-endian here)."""
    t = t.detach().cpu().contiguous()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: same bits as int16
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def dumps(tensors, metadata=None):
    """{name: tensor} (+ {str: str} metadata) → bytes."""
    header, blobs, off = {}, [], 0
    if metadata:
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise TypeError("safetensors metadata maps strings to strings")
        header["__metadata__"] = dict(metadata)
    for name in sorted(tensors):
        t = tensors[name]
        if name == "__metadata__" or not isinstance(name, str):
            raise ValueError("bad tensor name %r" % (name,))
        if t.dtype not in NAMES:
            raise TypeError("%s: dtype %s has no safetensors name" % (name, t.dtype))
        b = _raw(t)
        header[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "data_offsets": [off, off + len(b)]}
        blobs.append(b)
        off += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)  # the data area starts 8-aligned, as the reference writer does
    return len(h).to_bytes(8, "little") + h + b"".join(blobs)


def save(path, tensors, metadata=None):
    """Writes atomically (temp file + rename)."""
    atomic_write(path, dumps(tensors, metadata))


def loads(buf):
    """bytes → ({name: tensor}, metadata). Tensors own their memory."""
    tensors, meta = _parse(memoryview(buf))
    return tensors, meta


def load(path):
    """Reads a file → ({name: tensor}, metadata)."""
    size = os.path.getsize(path)
    buf = bytearray(size)
    with open(path, "rb") as f:
        if f.readinto(buf) != size:
            raise FormatError("%s: short read" % path)
    try:
        return _parse(memoryview(buf))
    except FormatError as e:
        raise FormatError("%s: %s" % (path, e)) from None


def read_metadata(path):
    """Only the header's __metadata__ (no tensor is read)."""
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise FormatError("%s: shorter than the 8-byte header length" % path)
        n = int.from_bytes(head, "little")
        if n > MAX_HEADER:
            raise FormatError("%s: header of %d bytes (limit %d)" % (path, n, MAX_HEADER))
        raw = f.read(n)
    header = _header(raw, n)
    return header.pop("__metadata__", None) or {}


def _header(raw, n):
    if len(raw) != n:
        raise FormatError("header length %d beyond the end of the file" % n)
    try:
        header = json.loads(bytes(raw).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise FormatError("header is not JSON: %s" % e) from None
    except RecursionError:  # JSON nested deeper than Python's stack: a format error too
        raise FormatError("header nests too deep") from None
    if not isinstance(header, dict):
        raise FormatError("header is not a JSON object")
    meta = header.get("__metadata__")
    if meta is not None and not (isinstance(meta, dict) and all(isinstance(v, str) for v in meta.values())):
        raise FormatError("__metadata__ must map strings to strings")
    return header


def _parse(mv):
    if len(mv) < 8:
        raise FormatError("shorter than the 8-byte header length")
    n = int.from_bytes(mv[:8], "little")
    if n > MAX_HEADER:
        raise FormatError("header of %d bytes (limit %d)" % (n, MAX_HEADER))
    header = _header(mv[8:8 + n], n)
    meta = header.pop("__metadata__", None) or {}
    data = mv[8 + n:]
    spans = []
    for name, e in header.items():
        if not isinstance(e, dict) or set(e) - {"dtype", "shape", "data_offsets"}:
            raise FormatError("%s: entry is not {dtype, shape, data_offsets}" % name)
        if e.get("dtype") not in DTYPES:
            raise FormatError("%s: unknown dtype %r" % (name, e.get("dtype")))
        shape, offs = e.get("shape"), e.get("data_offsets")
        if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
            raise FormatError("%s: shape %r is not a list of non-negative integers" % (name, shape))
        if not (isinstance(offs, list) and len(offs) == 2 and all(type(o) is int for o in offs)
                and 0 <= offs[0] <= offs[1] <= len(data)):
            raise FormatError("%s: data_offsets %r outside the %d data bytes" % (name, offs, len(data)))
        dt, size = DTYPES[e["dtype"]]
        numel = 1
        for d in shape:
            numel *= d
        if numel * size != offs[1] - offs[0]:
            raise FormatError("%s: %d bytes for shape %s of %s" % (name, offs[1] - offs[0], shape, e["dtype"]))
        spans.append((offs[0], offs[1], name))
    spans.sort()
    end = 0
    for b, e, name in spans:
        if b != end:
            raise FormatError("%s: data at %d, expected %d (overlap or gap)" % (name, b, end))
        end = e
    if end != len(data):
        raise FormatError("%d trailing bytes after the last tensor" % (len(data) - end))
    out = {}
    for b, e, name in spans:
        dt, _ = DTYPES[header[name]["dtype"]]
        shape = header[name]["shape"]
        view_dt = torch.int16 if dt == torch.bfloat16 else dt
        np_dt = {torch.float64: np.float64, torch.float32: np.float32, torch.float16: np.float16,
                 torch.int16: np.int16, torch.int64: np.int64, torch.int32: np.int32,
                 torch.int8: np.int8, torch.uint8: np.uint8, torch.bool: np.bool_}[view_dt]
        arr = np.frombuffer(data[b:e], dtype=np_dt).copy()  # owns its bytes
        t = torch.from_numpy(arr).reshape(shape)
        if dt == torch.bfloat16:
            t = t.view(torch.bfloat16)
        out[name] = t
    return out, meta
