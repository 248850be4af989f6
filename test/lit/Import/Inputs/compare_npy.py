#!/usr/bin/env python3
"""compare_npy.py A.npy B.npy TOL [last | tail]: the largest |a - b| of two float32 arrays.

With `last`, B is (L, V) and A is compared with B's last row (shape (V,)).
With `tail`, A is (T, V) and is compared with B's last T rows.

Prints "shape=(..) max_abs_diff=<x> PASS|FAIL" and exits 1 on FAIL or a
shape mismatch. No NumPy needed.
"""
import ast
import math
import struct
import sys


def load(path):
    raw = open(path, "rb").read()
    if raw[:6] != b"\x93NUMPY":
        sys.exit("%s: not a .npy file" % path)
    if raw[6] == 1:
        hlen, start = struct.unpack("<H", raw[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", raw[8:12])[0], 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    if header["descr"] != "<f4" or header["fortran_order"]:
        sys.exit("%s: expected little-endian float32 in C order" % path)
    body = raw[start + hlen:]
    return tuple(header["shape"]), struct.unpack("<%df" % (len(body) // 4), body)


sa, a = load(sys.argv[1])
sb, b = load(sys.argv[2])
tol = float(sys.argv[3])
if len(sys.argv) > 4 and sys.argv[4] == "last":
    if len(sb) != 2:
        sys.exit("%s: `last` needs a rank-2 array" % sys.argv[2])
    b = b[(sb[0] - 1) * sb[1]:]
    sb = (sb[1],)
if len(sys.argv) > 4 and sys.argv[4] == "tail":
    if len(sb) != 2 or len(sa) != 2 or sa[0] > sb[0]:
        sys.exit("`tail` needs rank-2 arrays, A no longer than B")
    b = b[(sb[0] - sa[0]) * sb[1]:]
    sb = (sa[0], sb[1])
if sa != sb:
    print("shape mismatch: %s vs %s FAIL" % (sa, sb))
    sys.exit(1)
worst = 0.0
for x, y in zip(a, b):
    d = abs(x - y)
    if not math.isfinite(d):
        worst = float("inf")
        break
    worst = max(worst, d)
ok = worst <= tol
print("shape=(%s) max_abs_diff=%.3g %s" % (", ".join(str(s) for s in sa), worst,
                                          "PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
