"""The hand-written safetensors reader/writer: round trip, the published
layout, and hostile headers refused with FormatError (never a crash)."""

import json
import os
import struct
import tempfile
import unittest

import fixtures  # noqa: F401  (sys.path)
import torch

from wasmlearn import safetensors as st


def raw(header, data=b""):
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data


class RoundTripTest(unittest.TestCase):
    def test_every_dtype(self):
        g = torch.Generator().manual_seed(0)
        ts = {
            "f32": torch.randn(3, 5, generator=g), "f64": torch.randn(2, generator=g, dtype=torch.float64),
            "f16": torch.randn(4, 2, generator=g).half(), "bf16": torch.randn(7, generator=g).bfloat16(),
            "i64": torch.arange(-3, 3), "i32": torch.arange(5, dtype=torch.int32),
            "u8": torch.arange(256, dtype=torch.uint8), "bool": torch.tensor([True, False, True]),
            "scalar": torch.tensor(2.5), "empty": torch.zeros(0, 4),
            "strided": torch.randn(4, 6, generator=g).t(),
        }
        out, meta = st.loads(st.dumps(ts, {"format": "pt"}))
        self.assertEqual(meta, {"format": "pt"})
        self.assertEqual(set(out), set(ts))
        for k, t in ts.items():
            self.assertEqual(out[k].dtype, t.dtype, k)
            self.assertEqual(out[k].shape, t.shape, k)
            self.assertTrue(torch.equal(out[k], t), k)

    def test_layout_matches_the_spec(self):
        """Header length, JSON header, then the little-endian bytes."""
        b = st.dumps({"a": torch.tensor([1.0, 2.0]), "b": torch.tensor([3], dtype=torch.int64)})
        n = struct.unpack("<Q", b[:8])[0]
        self.assertEqual((8 + n) % 8, 0)
        h = json.loads(b[8:8 + n])
        self.assertEqual(h["a"], {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]})
        self.assertEqual(h["b"], {"dtype": "I64", "shape": [1], "data_offsets": [8, 16]})
        self.assertEqual(b[8 + n:], struct.pack("<2f", 1.0, 2.0) + struct.pack("<q", 3))

    def test_file_and_metadata_only(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "x.safetensors")
            st.save(p, {"w": torch.ones(2, 2)}, {"k": "v"})
            self.assertEqual(st.read_metadata(p), {"k": "v"})
            out, _ = st.load(p)
            self.assertTrue(torch.equal(out["w"], torch.ones(2, 2)))


class HostileTest(unittest.TestCase):
    def test_refused(self):
        ok = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
        cases = {
            "short": b"\x01\x00",
            "huge header": struct.pack("<Q", 1 << 40) + b"{}",
            "header past end": struct.pack("<Q", 100) + b"{}",
            "not json": struct.pack("<Q", 3) + b"{x}",
            "not utf-8": struct.pack("<Q", 2) + b"\xff\xfe",
            "array": raw([1, 2]),
            "unknown dtype": raw({"a": dict(ok, dtype="F128")}, b"\0" * 8),
            "negative dim": raw({"a": dict(ok, shape=[-2])}, b"\0" * 8),
            "bool dim": raw({"a": dict(ok, shape=[True, 2])}, b"\0" * 8),
            "float dim": raw({"a": dict(ok, shape=[2.0])}, b"\0" * 8),
            "offsets outside": raw({"a": dict(ok, data_offsets=[0, 8])}, b"\0" * 4),
            "offsets reversed": raw({"a": dict(ok, data_offsets=[8, 0])}, b"\0" * 8),
            "size mismatch": raw({"a": dict(ok, shape=[3])}, b"\0" * 8),
            "overlap": raw({"a": ok, "b": ok}, b"\0" * 8),
            "gap": raw({"a": dict(ok, data_offsets=[4, 12])}, b"\0" * 12),
            "trailing": raw({"a": ok}, b"\0" * 9),
            "entry not object": raw({"a": 3}),
            "extra key": raw({"a": dict(ok, code="x")}, b"\0" * 8),
            "bad metadata": raw({"__metadata__": {"k": 1}}),
            "huge shape": raw({"a": dict(ok, shape=[1 << 62, 1 << 62])}, b"\0" * 8),
        }
        for name, b in cases.items():
            with self.assertRaises(st.FormatError, msg=name):
                st.loads(b)


if __name__ == "__main__":
    unittest.main()
