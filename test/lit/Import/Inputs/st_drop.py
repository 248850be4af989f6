#!/usr/bin/env python3
"""st_drop.py IN.safetensors OUT.safetensors NAME...: copies a safetensors
file without the named tensors (to test messages about missing tensors).
Standard library only."""
import json
import struct
import sys

src, dst, drop = sys.argv[1], sys.argv[2], set(sys.argv[3:])
raw = open(src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
out, blobs, offset = {}, [], 0
for name, t in header.items():
    if name == "__metadata__":
        out[name] = t
        continue
    if name in drop:
        continue
    begin, end = t["data_offsets"]
    blobs.append(data[begin:end])
    out[name] = {"dtype": t["dtype"], "shape": t["shape"],
                 "data_offsets": [offset, offset + end - begin]}
    offset += end - begin
hj = json.dumps(out).encode()
hj += b" " * (-len(hj) % 8)
with open(dst, "wb") as f:
    f.write(struct.pack("<Q", len(hj)) + hj + b"".join(blobs))
