#!/usr/bin/env python3
"""st_header.py FILE.safetensors: prints each tensor as "name dtype [shape]"
in data order, then the metadata, then "data_bytes=<n> ok" if every tensor's
byte range matches its shape and the ranges tile the data. No NumPy needed."""
import json
import struct
import sys

raw = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
meta = header.pop("__metadata__", {})
size = {"F32": 4, "F16": 2, "BF16": 2, "F64": 8, "I8": 1}
end = 0
for name, t in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"][0]):
    b, e = t["data_offsets"]
    count = 1
    for s in t["shape"]:
        count *= s
    assert b == end and e - b == count * size[t["dtype"]], name
    end = e
    print(name, t["dtype"], t["shape"])
for k in sorted(meta):
    print("meta", k, meta[k])
assert 8 + n + end == len(raw)
print("data_bytes=%d ok" % end)
