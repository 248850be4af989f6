#!/usr/bin/env python3
"""Inputs and expected results of ssm.quantize_activations, in NumPy (f32).

  quantize_activations.py OUTDIR

Writes x.npy (7, 512) f32: rows of different magnitudes, a zero block, a
block whose largest |x| is negative and one where +a and -a tie (q8_K keeps
the first), values that land exactly half-way between two steps (ties go to
even), f16 (normal and subnormal) / bf16 ties, and blocks of tiny normal values (largest |x| under
127 / FLT_MAX, so 127 / amax overflows to infinity: ggml's scale d is 0 and
every value q * d is 0, its int8 conversion saturating the infinite q); and q8_0.npy, q8_K.npy, f16.npy, bf16.npy,
computed from the formats as ggml defines them (ggml-cpu's x86
quantize_row_q8_0: multiplier 127 / amax, nearest-even rounding, f16 scale;
ggml-quants.c quantize_row_q8_K_ref: iscale = -127 / (the first x of
largest |x|), q = min(127, nearest-even), d = 1 / iscale), written here
from those definitions, not from the project's code.
"""
import sys

import numpy as np

f32 = np.float32
out = sys.argv[1]
rng = np.random.default_rng(11)
x = (rng.standard_normal((7, 512)) * np.array([[1e-3], [0.5], [3.0], [40.0], [1.0], [1e4], [1.0]])).astype(f32)
x[1, 32:64] = 0.0                                   # a zero block (q8_0) inside a q8_K block
x[4, 256:512] = 0.0                                 # a zero q8_K block
x[2, 0:256] = np.abs(x[2, 0:256]); x[2, 17] = -50.0  # largest |x| negative
x[3, 256:512] = rng.uniform(-1, 1, 256).astype(f32); x[3, 300] = 2.0; x[3, 301] = -2.0  # tie: first is +
# Exact half steps for q8_0: amax 127 gives id 1, so k + 0.5 rounds to even.
x[5, 0:32] = np.arange(32, dtype=f32) - 15.5; x[5, 31] = 127.0
# f16 / bf16 ties: halfway between neighbours.
x[5, 64] = f32(1.0 + 2.0 ** -11)   # f16 tie -> 1.0
x[5, 65] = f32(1.0 + 3 * 2.0 ** -11)  # f16 tie -> 1 + 2^-9
x[5, 66] = f32(1.0 + 2.0 ** -8)    # bf16 tie -> 1.0
x[5, 67] = f32(2.0 ** -25)         # f16 subnormal tie -> 0
x[5, 68] = f32(-3 * 2.0 ** -25)    # f16 subnormal tie -> -2^-23
# Tiny blocks: a q8_K block (0..255, so its q8_0 blocks too) and one q8_0
# block (256..287) inside an ordinary q8_K block.
x[6, 0:256] = (rng.uniform(-1, 1, 256) * 1e-37).astype(f32); x[6, 7] = f32(2e-37)
x[6, 256:288] = (rng.uniform(-1, 1, 32) * 1e-37).astype(f32)
assert np.all(np.abs(x[6, 0:288]) < f32(127) / np.finfo(f32).max)
np.save(f"{out}/x.npy", x)


def saturated(p):
    """Non-finite products as ggml's int8 conversions leave them: some
    finite integer (-128 here); times a scale of 0 it gives 0."""
    return np.where(np.isfinite(p), p, f32(-128))


def q8_0(row):
    y = np.empty_like(row)
    for b in range(0, row.size, 32):
        v = row[b:b + 32]
        amax = f32(np.max(np.abs(v)))
        d = f32(np.float16(amax / f32(127)))
        iv = f32(127) / amax if amax != 0 else f32(0)
        y[b:b + 32] = (saturated(np.rint(v * iv)) * d).astype(f32)
    return y


def q8_k(row):
    y = np.zeros_like(row)
    for b in range(0, row.size, 256):
        v = row[b:b + 256]
        m = v[np.argmax(np.abs(v))]  # argmax: the first of the largest
        if m == 0:
            continue
        iscale = f32(-127) / m
        q = np.minimum(f32(127), saturated(np.rint(iscale * v)))
        y[b:b + 256] = (q * (f32(1) / iscale)).astype(f32)
    return y


def bf16(a):
    u = a.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(f32)


with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
    np.save(f"{out}/q8_0.npy", np.stack([q8_0(r) for r in x]))
    np.save(f"{out}/q8_K.npy", np.stack([q8_k(r) for r in x]))
    np.save(f"{out}/f16.npy", x.astype(np.float16).astype(f32))
    np.save(f"{out}/bf16.npy", bf16(x))
print("wrote", out)
