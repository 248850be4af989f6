#!/usr/bin/env python3
"""wkv7_chunked_golden.py OUT_DIR CASE: inputs and expected outputs of ssm.wkv7.

An oracle independent of the compiler's code: NumPy in float64, the matrix
form of BlinkDL/RWKV-LM RWKV-v7/rwkv_v7_demo.py, per (stream, head), state
S (N, N) [value i][key j]:

    S = S diag(exp(w_t)) + (S a_t) b_t^T + v_t k_t^T,   y_t = S r_t

Inputs as RWKV-7 makes them: kk the L2-normalised key direction,
a = -kk, b = kk * iclr (iclr in (0, 1) per channel), w = -exp(-0.5)
sigmoid(x) (decay exp(w) in (0.545, 1)) unless the case says otherwise.
Writes r, w, k, v, a, b[, s0].npy and y.npy, final_state.npy (float32).

Cases (CASE):
  rwkv    B 2, L 70, H 2, N 16, an initial state: chunks with a tail
  head64  B 1, L 300, H 2, N 64 (RWKV-7's head size), an initial state
  long    B 1, L 4096, H 2, N 16, an initial state; tokens in blocks of 256
          whose decay is near 0 (w about -30) or near 1 (w about -1e-4) and
          whose iclr is near 0 (1e-3) or near 1 (0.999: b a^T erases the
          state's kk component), cycling (decay, iclr) through (0, 0),
          (0, 1), (1, 1), (1, 0); the 8 tokens from 1000, 2000 and 3000
          (mid-chunk, and from a chunk's start at 2000 for chunk 16) instead have
          a and b untied (|a| = |b| = 1 along random directions:
          diag(exp w) + a b^T is no projection and grows the state)
"""
import os
import sys

import numpy as np


def l2norm(x):
    return x / np.sqrt((x * x).sum(-1, keepdims=True) + 1e-12)


def recurrence(r, w, k, v, a, b, s0):
    B, L, H, N = r.shape
    y = np.zeros((B, L, H, N))
    S = s0.copy()
    for bb in range(B):
        for h in range(H):
            M = S[bb, h]
            for t in range(L):
                M = M * np.exp(w[bb, t, h])[None, :] + np.outer(M @ a[bb, t, h], b[bb, t, h]) \
                    + np.outer(v[bb, t, h], k[bb, t, h])
                y[bb, t, h] = M @ r[bb, t, h]
            S[bb, h] = M
    return y, S


def main():
    out_dir, case = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng({"rwkv": 11, "head64": 12, "long": 13}[case])
    B, L, H, N = {"rwkv": (2, 70, 2, 16), "head64": (1, 300, 2, 64), "long": (1, 4096, 2, 16)}[case]
    shape = (B, L, H, N)
    r = rng.standard_normal(shape) * 0.5
    k = rng.standard_normal(shape) * 0.5
    v = rng.standard_normal(shape)
    kk = l2norm(rng.standard_normal(shape))
    iclr = 1.0 / (1.0 + np.exp(-rng.standard_normal(shape)))
    w = -np.exp(-0.5) / (1.0 + np.exp(-rng.standard_normal(shape)))
    a, b = -kk, kk * iclr
    if case == "long":
        combo = ((np.arange(L) // 256) % 4)[None, :, None, None]
        w = np.where(combo >= 2, -1e-4 * rng.uniform(0.5, 1.5, shape),
                     -30.0 * rng.uniform(0.5, 1.5, shape))
        iclr = np.where((combo == 1) | (combo == 2), 1.0 - 1e-3 * rng.uniform(0.5, 1.5, shape),
                        1e-3 * rng.uniform(0.5, 1.5, shape))
        a, b = -kk, kk * iclr
        t = np.arange(L)
        untied = (((t % 1000) < 8) & (t >= 1000))[None, :, None, None]
        a = np.where(untied, 1.0 * l2norm(rng.standard_normal(shape)), a)
        b = np.where(untied, 1.0 * l2norm(rng.standard_normal(shape)), b)
    s0 = rng.standard_normal((B, H, N, N)) * 0.5
    f32 = lambda x: x.astype(np.float32)
    r, w, k, v, a, b, s0 = (f32(x) for x in (r, w, k, v, a, b, s0))
    y, final = recurrence(*(x.astype(np.float64) for x in (r, w, k, v, a, b, s0)))
    os.makedirs(out_dir, exist_ok=True)
    for name, x in {"r": r, "w": w, "k": k, "v": v, "a": a, "b": b, "s0": s0, "y": f32(y),
                    "final_state": f32(final)}.items():
        np.save(os.path.join(out_dir, name + ".npy"), x)
    print(case, "max |y|", float(np.abs(y).max()), "max |S|", float(np.abs(final).max()))


if __name__ == "__main__":
    main()
