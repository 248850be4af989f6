#!/usr/bin/env python3
"""Inputs and expected results of a decode matvec whose activation row is
rounded by ssm.quantize_activations and whose weight is an ssm.dequantize
of int8 blocks, computed in NumPy float64 in the test's own terms.

  quantized_matvec.py OUTDIR

The row x (1, 512) f32 has blocks of ordinary values at several
magnitudes, a zero q8_0 block, a q8_0 block of tiny values (127 / amax
overflows: every value 0), and a negative signed maximum for q8_K. Its q8
codes and scales follow ggml's definitions (ggml-cpu's x86
quantize_row_q8_0: q = nearest-even(x * 127 / amax), d = f16(amax / 127);
quantize_row_q8_K_ref: iscale = -127 / (the first x of largest |x|),
q = min(127, nearest-even(iscale * x)), d = 1 / iscale), written here.

Weights (40 rows, K 512): q8 (Q8_0's storage: int8 codes over the whole
int8 range, an f16 scale per block of 32), q8min (Q4_K's: codes in
[0, 15], f32 scale s and min mn per block of 32, w = q s - mn) and q8 in
blocks of 16 (Q6_K's: codes in [-32, 31], an f32 scale per block of 16).

Expected: r0 = sum over blocks of d_A s sum(qA qW) (q8_0 activations),
r1 = sum over blocks of 32 of d_A (s sum(qA q) - mn sum(qA)) (q8_K
activations: d_A per block of 256), r2 = sum over blocks of 16 of
d_A s sum(qA q) (q8_K activations), each sum of products in integers,
the rest in float64: llama.cpp's block dot products
(vec_dot_q8_0_q8_0, vec_dot_q4_K_q8_K) in exact arithmetic. Both equal
the f64 dot product of the rounded row and the dequantised weight.
"""
import sys

import numpy as np

f32 = np.float32
out = sys.argv[1]
rng = np.random.default_rng(34)
K, N = 512, 40
x = (rng.standard_normal((1, K)) * np.repeat([0.02, 1.0, 7.0, 300.0], K // 4)).astype(f32)
x[0, 32:64] = 0.0                                        # a zero q8_0 block
x[0, 96:128] = (rng.uniform(-1, 1, 32) * 1e-37).astype(f32)  # tiny: d = 0
x[0, 300] = -5000.0                                      # q8_K: negative signed max
np.save(f"{out}/x.npy", x)

with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
    # q8_0 activations
    qa0 = np.zeros(K, np.int64)
    da0 = np.zeros(K // 32)
    for b in range(K // 32):
        v = x[0, 32 * b:32 * b + 32]
        amax = f32(np.max(np.abs(v)))
        d = f32(np.float16(amax / f32(127)))
        if d == 0:
            continue  # every value 0
        q = np.rint(v * (f32(127) / amax))
        qa0[32 * b:32 * b + 32] = q.astype(np.int64)
        da0[b] = float(d)
    # q8_K activations
    qak = np.zeros(K, np.int64)
    dak = np.zeros(K // 256)
    for b in range(K // 256):
        v = x[0, 256 * b:256 * b + 256]
        m = v[np.argmax(np.abs(v))]
        if m == 0:
            continue
        iscale = f32(-127) / m
        d = f32(1) / iscale
        if d == 0:
            continue
        qak[256 * b:256 * b + 256] = np.minimum(f32(127), np.rint(iscale * v)).astype(np.int64)
        dak[b] = float(d)
assert np.all(np.abs(qa0) <= 127) and np.all(np.abs(qak) <= 127)
assert da0[1] == 0 and da0[3] == 0 and dak[1] > 0 and qak[300] == -127

qw = rng.integers(-128, 128, (N, K)).astype(np.int8)
sw = (rng.uniform(0.5, 2.0, (N, K // 32)) * 1e-2).astype(np.float16).astype(f32)  # f16 values (Q8_0's d), stored f32
q4 = rng.integers(0, 16, (N, K)).astype(np.int8)
s4 = (rng.uniform(0.5, 2.0, (N, K // 32)) * 1e-2).astype(f32)
m4 = (rng.uniform(0.0, 1.0, (N, K // 32)) * 5e-2).astype(f32)
q6 = rng.integers(-32, 32, (N, K)).astype(np.int8)
s6 = (rng.uniform(-2.0, 2.0, (N, K // 16)) * 1e-2).astype(f32)
for name, a in [("q", qw), ("s", sw), ("q4", q4), ("s4", s4), ("m4", m4), ("q6", q6), ("s6", s6)]:
    np.save(f"{out}/{name}.npy", a)

r0 = np.zeros((1, N))
r1 = np.zeros((1, N))
r2 = np.zeros((1, N))
for b in range(K // 16):
    sl = slice(16 * b, 16 * b + 16)
    r2[0] += dak[b // 16] * s6[:, b].astype(np.float64) * (q6[:, sl].astype(np.int64) @ qak[sl])
for b in range(K // 32):
    sl = slice(32 * b, 32 * b + 32)
    dot0 = qw[:, sl].astype(np.int64) @ qa0[sl]
    r0[0] += da0[b] * sw[:, b].astype(np.float64) * dot0
    dot1 = q4[:, sl].astype(np.int64) @ qak[sl]
    r1[0] += dak[b // 8] * (s4[:, b].astype(np.float64) * dot1 - m4[:, b].astype(np.float64) * qak[sl].sum())
# The same as the f64 dot of the rounded row and the dequantised weights.
a0 = np.repeat(da0, 32) * qa0
ak = np.repeat(dak, 256) * qak
w0 = qw.astype(np.float64) * np.repeat(sw.astype(np.float64), 32, axis=1)
w4 = q4.astype(np.float64) * np.repeat(s4.astype(np.float64), 32, axis=1) - np.repeat(m4.astype(np.float64), 32, axis=1)
w6 = q6.astype(np.float64) * np.repeat(s6.astype(np.float64), 16, axis=1)
assert np.allclose(r0[0], w0 @ a0, rtol=1e-12, atol=1e-9) and np.allclose(r1[0], w4 @ ak, rtol=1e-12, atol=1e-9)
assert np.allclose(r2[0], w6 @ ak, rtol=1e-12, atol=1e-9)
np.save(f"{out}/r0.npy", r0.astype(f32))
np.save(f"{out}/r1.npy", r1.astype(f32))
np.save(f"{out}/r2.npy", r2.astype(f32))
print("max |r0| %.3g, max |r1| %.3g, max |r2| %.3g" % tuple(np.max(np.abs(r)) for r in (r0, r1, r2)))
