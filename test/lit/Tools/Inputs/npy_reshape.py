"""Gives one array of a golden case another shape of the same size, in its
.npy file (format 1.0) and in case.json, without numpy.

usage: npy_reshape.py CASE_DIR inputs/NAME.npy D0,D1,...
Used by golden-checks.mlir to make golden inputs of the wrong rank.
"""
import ast
import json
import math
import os
import struct
import sys

case, rel, dims = sys.argv[1], sys.argv[2], [int(d) for d in sys.argv[3].split(",")]
path = os.path.join(case, rel)
data = open(path, "rb").read()
assert data[:6] == b"\x93NUMPY" and data[6] == 1, "format 1.0 expected"
hlen = struct.unpack("<H", data[8:10])[0]
header = ast.literal_eval(data[10:10 + hlen].decode("latin1"))
assert math.prod(header["shape"]) == math.prod(dims), "same number of elements expected"
text = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (header["descr"], tuple(dims))
pad = 64 - (10 + len(text) + 1) % 64
text = text + " " * pad + "\n"
open(path, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1")
                       + data[10 + hlen:])
spec = json.load(open(os.path.join(case, "case.json")))
group, name = os.path.dirname(rel), os.path.splitext(os.path.basename(rel))[0]
spec[group][name]["shape"] = dims
json.dump(spec, open(os.path.join(case, "case.json"), "w"), indent=1)
