#!/usr/bin/env python3
"""compare_logits.py GOT.npy EXPECTED.bin TOL: the largest |got - expected|.

GOT is a float32 .npy vector (ssm-run --logits-out), EXPECTED 256 float32
little-endian values (rwkv.cpp's logits). Prints
"max_abs_diff=<x> PASS|FAIL" and exits 1 on FAIL. No NumPy needed.
"""
import ast
import math
import struct
import sys

got_path, exp_path, tol = sys.argv[1], sys.argv[2], float(sys.argv[3])
raw = open(got_path, "rb").read()
if raw[:6] != b"\x93NUMPY":
    sys.exit("%s: not a .npy file" % got_path)
major = raw[6]
if major == 1:
    hlen = struct.unpack("<H", raw[8:10])[0]
    start = 10
else:
    hlen = struct.unpack("<I", raw[8:12])[0]
    start = 12
header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
if header["descr"] != "<f4" or header["fortran_order"]:
    sys.exit("%s: expected little-endian float32 in C order, got %r" % (got_path, header))
body = raw[start + hlen:]
got = struct.unpack("<%df" % (len(body) // 4), body)
exp_raw = open(exp_path, "rb").read()
exp = struct.unpack("<%df" % (len(exp_raw) // 4), exp_raw)
if len(got) != len(exp):
    print("shape mismatch: %d values vs %d expected FAIL" % (len(got), len(exp)))
    sys.exit(1)
worst = 0.0
for g, e in zip(got, exp):
    d = abs(g - e)
    if not math.isfinite(d):
        worst = float("inf")
        break
    worst = max(worst, d)
ok = worst <= tol
print("max_abs_diff=%.3g %s" % (worst, "PASS" if ok else "FAIL"))
sys.exit(0 if ok else 1)
