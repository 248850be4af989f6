"""Writes a float32 .npy file (format 1.0) of SHAPE filled with VALUE, without numpy.

usage: npy_fill.py OUT.npy VALUE D0[xD1...]
"""
import struct
import sys

dst, value, dims = sys.argv[1], float(sys.argv[2]), [int(d) for d in sys.argv[3].split("x")]
n = 1
for d in dims:
    n *= d
shape = "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % shape
header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
with open(dst, "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
    f.write(struct.pack("<%df" % n, *([value] * n)))
