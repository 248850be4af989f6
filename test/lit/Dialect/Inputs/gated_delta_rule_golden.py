#!/usr/bin/env python3
"""gated_delta_rule_golden.py OUT_DIR CASE: inputs and expected outputs of ssm.gated_delta_rule.

An oracle independent of the compiler's code: NumPy in float64, written from
the paper's product form (Yang, Kautz, Hatamizadeh, "Gated Delta Networks",
ICLR 2025, eq. for S_t) rather than the reference routine's loops:

    S_t = (I - beta_t k_t k_t^T) D_t S_{t-1} + beta_t k_t v_t^T,   o_t = scale * S_t^T q_t

with D_t = exp(g_t) I (one log decay per value head) or Diag(exp(g_t)) (one
per key channel, KDA), S (Dk, Dv) per (stream, value head), value head h
reading key head h // (Hv // Hk). q and k are L2-normalised per head as the
models pass them; g = -exp(a) * softplus(x) as Qwen3.5 makes it, beta =
sigmoid(b). Writes q, k, v, g, beta[, s0].npy and out.npy, final_state.npy
(float32) into OUT_DIR.

Cases (CASE):
  gdn    B 2, L 65, Hk 2 -> Hv 4 (two value heads per key head), Dk 16, Dv 12,
         scalar gate, an initial state
  kda    B 1, L 64, Hk = Hv = 3, Dk 8, Dv 16, a gate per key channel, no
         initial state
  long   B 1, L 4096, Hk 1 -> Hv 2, Dk 16, Dv 16, scalar gate, an initial
         state; the tokens in blocks of 256 whose decay is near 0 (g about
         -30) or near 1 (g about -1e-4) and whose beta is near 0 (about 1e-3)
         or near 1 (about 0.999), cycling (decay, beta) through (0, 0),
         (0, 1), (1, 1), (1, 0), so the call ends on 512 tokens of long
         memory: the final state holds the last strong writes, decayed and
         lightly overwritten for 256 tokens
"""
import os
import sys

import numpy as np


def l2norm(x):
    return x / np.sqrt((x * x).sum(-1, keepdims=True) + 1e-6)


def recurrence(q, k, v, g, beta, s0, scale):
    B, L, Hk, Dk = q.shape
    Hv, Dv = v.shape[2], v.shape[3]
    r = Hv // Hk
    out = np.zeros((B, L, Hv, Dv))
    S = s0.copy()
    eye = np.eye(Dk)
    for b in range(B):
        for h in range(Hv):
            kh = h // r
            for t in range(L):
                kt, qt = k[b, t, kh], q[b, t, kh]
                decay = np.exp(g[b, t, h]) * np.ones(Dk) if g.ndim == 3 else np.exp(g[b, t, h])
                S[b, h] = (eye - beta[b, t, h] * np.outer(kt, kt)) @ (decay[:, None] * S[b, h]) \
                    + beta[b, t, h] * np.outer(kt, v[b, t, h])
                out[b, t, h] = scale * S[b, h].T @ qt
    return out, S


def main():
    out_dir, case = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng({"gdn": 1, "kda": 2, "long": 3}[case])
    shapes = {"gdn": (2, 65, 2, 4, 16, 12), "kda": (1, 64, 3, 3, 8, 16),
              "long": (1, 4096, 1, 2, 16, 16)}[case]
    B, L, Hk, Hv, Dk, Dv = shapes
    q = l2norm(rng.standard_normal((B, L, Hk, Dk)))
    k = l2norm(rng.standard_normal((B, L, Hk, Dk)))
    v = rng.standard_normal((B, L, Hv, Dv))
    gshape = (B, L, Hv, Dk) if case == "kda" else (B, L, Hv)
    a_log = rng.uniform(-1.0, 1.0, gshape)
    g = -np.exp(a_log) * np.logaddexp(0.0, rng.standard_normal(gshape))
    beta = 1.0 / (1.0 + np.exp(-rng.standard_normal((B, L, Hv))))
    if case == "long":
        combo = (np.arange(L) // 256) % 4
        near_one_decay = (combo >= 2)[None, :, None]
        near_one_beta = ((combo == 1) | (combo == 2))[None, :, None]
        g = np.where(near_one_decay, -1e-4 * rng.uniform(0.5, 1.5, gshape),
                     -30.0 * rng.uniform(0.5, 1.5, gshape))
        beta = np.where(near_one_beta, 1.0 - 1e-3 * rng.uniform(0.5, 1.5, beta.shape),
                        1e-3 * rng.uniform(0.5, 1.5, beta.shape))
    has_state = case != "kda"
    s0 = rng.standard_normal((B, Hv, Dk, Dv)) * 0.5 if has_state else np.zeros((B, Hv, Dk, Dv))
    scale = 1.0 / np.sqrt(Dk)
    # The op sees float32 inputs: the oracle computes on the same rounded values.
    f32 = lambda x: x.astype(np.float32)
    q, k, v, g, beta, s0 = (f32(x) for x in (q, k, v, g, beta, s0))
    out, final = recurrence(*(x.astype(np.float64) for x in (q, k, v, g, beta, s0)), scale)
    os.makedirs(out_dir, exist_ok=True)
    arrays = {"q": q, "k": k, "v": v, "g": g, "beta": beta, "out": f32(out),
              "final_state": f32(final)}
    if has_state:
        arrays["s0"] = s0
    for name, x in arrays.items():
        np.save(os.path.join(out_dir, name + ".npy"), x)


if __name__ == "__main__":
    main()
