"""st_set.py IN.safetensors OUT.safetensors TENSOR [--row R] (--scale X | --fill X)

Copies a float32 safetensors file with one tensor changed: every value (or
only row R of its first axis) multiplied by X or set to X; for weights of
extreme but valid scale (test/lit/Import/extreme-weights.mlir). Standard
library only.
"""
import argparse
import array
import json
import struct
import sys

p = argparse.ArgumentParser()
p.add_argument("src")
p.add_argument("dst")
p.add_argument("tensor")
p.add_argument("--row", type=int)
g = p.add_mutually_exclusive_group(required=True)
g.add_argument("--scale", type=float)
g.add_argument("--fill", type=float)
a = p.parse_args()

raw = open(a.src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
if a.tensor not in header:
    sys.exit("st_set.py: no tensor %s in %s" % (a.tensor, a.src))
t = header[a.tensor]
if t["dtype"] != "F32":
    sys.exit("st_set.py: %s is %s, not F32" % (a.tensor, t["dtype"]))
begin, end = (8 + n + o for o in t["data_offsets"])
values = array.array("f", raw[begin:end])
if sys.byteorder != "little":
    values.byteswap()
shape = t["shape"]
rowSize = 1
for d in shape[1:]:
    rowSize *= d
lo, hi = (0, len(values)) if a.row is None else (a.row * rowSize, (a.row + 1) * rowSize)
for i in range(lo, hi):
    values[i] = a.fill if a.fill is not None else values[i] * a.scale
if sys.byteorder != "little":
    values.byteswap()
open(a.dst, "wb").write(raw[:begin] + values.tobytes() + raw[end:])
