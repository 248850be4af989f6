"""Rewrites a float32 .npy file (format 1.0) with another dtype, without numpy.

usage: npy_astype.py IN.npy OUT.npy DESCR   (DESCR: <i4, |b1, <f8)
Used by golden-checks.mlir to make golden inputs of the wrong dtype.
"""
import ast
import struct
import sys

src, dst, descr = sys.argv[1:4]
data = open(src, "rb").read()
assert data[:6] == b"\x93NUMPY" and data[6] == 1, "format 1.0 expected"
hlen = struct.unpack("<H", data[8:10])[0]
header = ast.literal_eval(data[10:10 + hlen].decode("latin1"))
assert header["descr"] == "<f4"
body = data[10 + hlen:]
values = struct.unpack("<%df" % (len(body) // 4), body)
fmt = {"<i4": "i", "|b1": "?", "<f8": "d"}[descr]
out = struct.pack("<%d%s" % (len(values), fmt),
                  *[(int(v) if fmt == "i" else bool(v) if fmt == "?" else v) for v in values])
text = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (descr, tuple(header["shape"]))
pad = 64 - (10 + len(text) + 1) % 64
text = text + " " * pad + "\n"
open(dst, "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(text)) + text.encode("latin1") + out)
