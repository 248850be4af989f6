#!/usr/bin/env python3
"""st_dequant.py IN.safetensors OUT.safetensors: writes the f32 weights a
q8 weights file stands for. Each I8 tensor NAME with an F16 NAME_scale of
shape (..., K / 32) becomes F32 NAME = q * scale[k // 32] (ggml's Q8_0
rule, written independently of the compiler), its scale dropped; every
other tensor is copied. Standard library only."""
import json
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
raw = open(src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]


def body(t):
    b, e = t["data_offsets"]
    return data[b:e]


out, blobs, offset = {}, [], 0
for name, t in header.items():
    if name == "__metadata__":
        out[name] = t
        continue
    if name.endswith("_scale") and header.get(name[:-6], {}).get("dtype") == "I8":
        continue
    blob, dtype = body(t), t["dtype"]
    if dtype == "I8":
        s = header[name + "_scale"]
        k = t["shape"][-1]
        q = struct.unpack("<%db" % len(blob), blob)
        sb = body(s)
        scales = struct.unpack("<%de" % (len(sb) // 2), sb)
        blocks = (k + 31) // 32
        vals = [q[i] * scales[(i // k) * blocks + (i % k) // 32] for i in range(len(q))]
        blob, dtype = struct.pack("<%df" % len(vals), *vals), "F32"
    out[name] = {"dtype": dtype, "shape": t["shape"], "data_offsets": [offset, offset + len(blob)]}
    blobs.append(blob)
    offset += len(blob)
h = json.dumps(out).encode()
h += b" " * (-len(h) % 8)
with open(dst, "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
