#!/usr/bin/env python3
"""make_rwkv51.py IN_5v2.bin OUT_5v1.bin: an RWKV-5.1 file from an RWKV-5.2 one.

5.1 has no gate (no time_mix_g, no gate.weight) and one decay and one bonus
per head (PyTorch shape (heads, 1, 1), rwkv.cpp sizes [1, 1, heads]) in
`time_decay` and `time_first`. This keeps every other tensor and takes each
head's decay and bonus from the head's first channel of the 5.2 tensors
(time_decay, time_faaaa; both (heads, head_size, 1)).
"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
header = data[:24]
off = 24
out = bytearray(header)
while off < len(data):
    nd, nlen, ty = struct.unpack("<3I", data[off:off + 12])
    off += 12
    sizes = list(struct.unpack("<%dI" % nd, data[off:off + 4 * nd]))
    off += 4 * nd
    name = data[off:off + nlen].decode()
    off += nlen
    n = 1
    for s in sizes:
        n *= s
    nbytes = n * (4 if ty == 0 else 2)
    payload = data[off:off + nbytes]
    off += nbytes
    if name.endswith("att.time_mix_g") or name.endswith("att.gate.weight"):
        continue
    if name.endswith("att.time_decay") or name.endswith("att.time_faaaa"):
        assert ty == 0 and nd == 3
        head_size, heads = sizes[1], sizes[2]
        vals = struct.unpack("<%df" % n, payload)
        per_head = [vals[h * head_size] for h in range(heads)]
        payload = struct.pack("<%df" % heads, *per_head)
        sizes = [1, 1, heads]
        name = name.replace("time_faaaa", "time_first")
    nb = name.encode()
    out += struct.pack("<3I", len(sizes), len(nb), ty)
    out += struct.pack("<%dI" % len(sizes), *sizes)
    out += nb + payload
open(sys.argv[2], "wb").write(out)
