#!/usr/bin/env python3
"""gguf_q8_blocks.py FILE.gguf MODEL_DIR/weights.safetensors: checks that
every Q8_0 tensor of the GGUF is stored byte for byte as a q8 weight of the
model folder, and that every q8 weight is one of them.

A q8 weight is "<name>" I8 (rows, K) with "<name>_scale" F16 (rows, K / 32)
(import/WeightStore.h); interleaved per block of 32 as (2 scale bytes,
32 int8 bytes) it must equal a GGUF Q8_0 tensor's data exactly (ggml's
block_q8_0 {half d; int8 qs[32]}). Tensors are matched by content (the
import renames them), so a row permutation made by the import would show as
a mismatch; the tests use architectures whose Q8_0 matrices are copied as
they are. Prints "q8 blocks: N of N Q8_0 tensors byte-identical" or exits 1
naming the first tensor that has no match. No NumPy needed."""
import json
import os
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gguf_tool  # noqa: E402

Q8_0 = 8


def main(gguf_path, st_path):
    _, _, tensors = gguf_tool.read(gguf_path)
    q8 = [(name, ne, data) for name, ne, t, data in tensors if t == Q8_0]
    raw = open(st_path, "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    header.pop("__metadata__", None)
    base = 8 + n

    def data(t):
        b, e = t["data_offsets"]
        return raw[base + b:base + e]

    stored = {}
    for name, t in header.items():
        s = header.get(name + "_scale")
        if t["dtype"] != "I8" or not s or s["dtype"] != "F16":
            continue
        rows, k = t["shape"]
        if s["shape"] != [rows, k // 32]:
            sys.exit("%s: %s_scale has shape %s" % (st_path, name, s["shape"]))
        q, d = data(t), data(s)
        blocks = b"".join(d[2 * i:2 * i + 2] + q[32 * i:32 * i + 32] for i in range(rows * k // 32))
        stored[blocks] = name
    matched = set()
    for name, ne, blocks in q8:
        if blocks not in stored:
            sys.exit("%s: Q8_0 tensor '%s' %s is not stored byte for byte in %s"
                     % (gguf_path, name, ne, st_path))
        matched.add(stored[blocks])
    extra = sorted(set(stored.values()) - matched)
    if extra:
        sys.exit("%s: q8 weight '%s' is not a Q8_0 tensor of %s" % (st_path, extra[0], gguf_path))
    print("q8 blocks: %d of %d Q8_0 tensors byte-identical" % (len(matched), len(q8)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
