#!/usr/bin/env python3
"""rwkv_fp16.py IN_FP32.bin OUT_FP16.bin: an FP16 rwkv.cpp file from an FP32 one.

As rwkv.cpp's convert_pytorch_to_ggml.py writes FP16 files: the header's
data type becomes 1 and every tensor of more than one dimension becomes
FP16 (round to nearest even), except the `time_*` tensors; 1-D tensors
stay FP32. For files of which ../shared has no FP16 copy (RWKV-6, RWKV-7).
"""
import struct
import sys

data = open(sys.argv[1], "rb").read()
header = list(struct.unpack("<6I", data[:24]))
if header[5] != 0:
    sys.exit("rwkv_fp16.py: %s is not an FP32 file" % sys.argv[1])
header[5] = 1
out = bytearray(struct.pack("<6I", *header))
off = 24
while off < len(data):
    nd, nlen, ty = struct.unpack("<3I", data[off:off + 12])
    off += 12
    sizes = list(struct.unpack("<%dI" % nd, data[off:off + 4 * nd]))
    off += 4 * nd
    name = data[off:off + nlen]
    off += nlen
    n = 1
    for s in sizes:
        n *= s
    payload = data[off:off + 4 * n]
    off += 4 * n
    half = ty == 0 and nd > 1 and b"time_" not in name
    if half:
        vals = struct.unpack("<%df" % n, payload)
        payload = struct.pack("<%de" % n, *vals)
    out += struct.pack("<3I", nd, nlen, 1 if half else ty)
    out += struct.pack("<%dI" % nd, *sizes)
    out += name + payload
open(sys.argv[2], "wb").write(out)
