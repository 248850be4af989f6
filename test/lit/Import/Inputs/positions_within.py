#!/usr/bin/env python3
"""positions_within.py A.npy B.npy TOL MIN: rows (positions) of two (L, V) float32 arrays within TOL.

Prints "positions within TOL: n/L, max_abs_diff=<x>" and exits 1 when fewer
than MIN rows have max |a - b| <= TOL. For logits that agree except at
positions where one activation's rounding flips (docs/gguf.md). NumPy.
"""
import sys

import numpy as np

a, b = np.load(sys.argv[1]), np.load(sys.argv[2])
tol, need = float(sys.argv[3]), int(sys.argv[4])
if a.shape != b.shape or a.ndim != 2:
    sys.exit("shapes %s and %s: expected two equal (L, V) arrays" % (a.shape, b.shape))
d = np.abs(a.astype(np.float64) - b).max(axis=1)
n = int((d <= tol).sum())
print("positions within %g: %d/%d, max_abs_diff=%.3g %s" % (tol, n, len(d), d.max(), "PASS" if n >= need else "FAIL"))
sys.exit(0 if n >= need else 1)
