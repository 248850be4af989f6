#!/usr/bin/env python3
"""Writes a synthetic Mamba-2 checkpoint with seeded weights, the tokens of a
prompt, and the logits a float64 step-by-step implementation of mamba_ssm's
Mamba2 block (written here from its semantics, independent of ssm-import's
graph) computes for them. Standard library only.

make_mamba2.py OUT_DIR --hidden D --heads H --head-dim P --state N --groups G
               --layers L --conv W [--chunk Q] [--vocab V] [--bias] [--no-conv-bias]
               [--tied] [--norm-before-gate] [--dt-limit LO HI]
               [--layout transformers|mamba_ssm] [--prompt TEXT] [--seed S]

Writes OUT_DIR/model.safetensors (F32), config.json (transformers'
Mamba2Config with model_type mamba2, or mamba_ssm's config with ssm_cfg.layer
"Mamba2"), tokens.npy (int32, the prompt's UTF-8 bytes) and
expected_logits.npy (float32, (len, V), every position).

The block (mamba_ssm/modules/mamba2.py, transformers' Mamba2Mixer):
in_proj(RMSNorm(h)) -> [z | xBC | dt]; xBC = silu(depthwise causal conv);
x, B, C = split(xBC); dt = softplus(dt + dt_bias), clamped to the limit;
per head h (group h // (H // G)): S = exp(dt A) S + dt x B^T, y = S C + D x;
gated RMSNorm per group (gate then norm, or norm then gate); out_proj;
residual. Then norm_f and the LM head.
"""
import argparse
import json
import math
import os
import random
import struct

p = argparse.ArgumentParser()
p.add_argument("out")
for name in ["hidden", "heads", "head-dim", "state", "groups", "layers", "conv"]:
    p.add_argument("--" + name, type=int, required=True)
p.add_argument("--chunk", type=int, default=16)
p.add_argument("--vocab", type=int, default=256)
p.add_argument("--bias", action="store_true")
p.add_argument("--no-conv-bias", action="store_true")
p.add_argument("--tied", action="store_true")
p.add_argument("--norm-before-gate", action="store_true")
p.add_argument("--dt-limit", type=float, nargs=2, default=[0.0, math.inf])
p.add_argument("--layout", choices=["transformers", "mamba_ssm"], default="transformers")
p.add_argument("--prompt", default="Mamba-2 state space duality")
p.add_argument("--seed", type=int, default=0)
a = p.parse_args()
rng = random.Random(a.seed)
D, H, P, N, G, W, V = a.hidden, a.heads, a.head_dim, a.state, a.groups, a.conv, a.vocab
DI = H * P
if DI % D or H % G:
    raise SystemExit("heads * head_dim must be a multiple of hidden, groups must divide heads")
EXPAND = DI // D
CD = DI + 2 * G * N
DIP = 2 * DI + 2 * G * N + H
EPS = 1e-5


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def uniform(shape, scale, offset=0.0):
    n = 1
    for d in shape:
        n *= d
    return shape, [f32(offset + scale * (2 * rng.random() - 1)) for _ in range(n)]


def linear(out_f, in_f):
    return uniform([out_f, in_f], 1.0 / math.sqrt(in_f))


T = {}
emb = "backbone.embeddings.weight" if a.layout == "transformers" else "backbone.embedding.weight"
T[emb] = uniform([V, D], 1.0)
for l in range(a.layers):
    pre = "backbone.layers.%d." % l
    m = pre + "mixer."
    T[pre + "norm.weight"] = uniform([D], 0.2, 1.0)
    T[m + "in_proj.weight"] = linear(DIP, D)
    if a.bias:
        T[m + "in_proj.bias"] = uniform([DIP], 0.1)
    T[m + "conv1d.weight"] = uniform([CD, 1, W], 1.0 / math.sqrt(W))
    if not a.no_conv_bias:
        T[m + "conv1d.bias"] = uniform([CD], 0.1)
    T[m + "dt_bias"] = uniform([H], 1.0, -2.0)
    T[m + "A_log"] = ([H], [f32(math.log(1 + 15 * rng.random())) for _ in range(H)])
    T[m + "D"] = uniform([H], 0.5, 1.0)
    T[m + "norm.weight"] = uniform([DI], 0.2, 1.0)
    T[m + "out_proj.weight"] = linear(D, DI)
    if a.bias:
        T[m + "out_proj.bias"] = uniform([D], 0.1)
T["backbone.norm_f.weight"] = uniform([D], 0.2, 1.0)
if not a.tied:
    T["lm_head.weight"] = linear(V, D)


# ---- the float64 reference ----
def w(name):
    return T[name][1]


def matvec(mat, rows, cols, x, bias=None):
    out = []
    for r in range(rows):
        base = r * cols
        s = sum(mat[base + c] * x[c] for c in range(cols))
        out.append(s + (bias[r] if bias else 0.0))
    return out


def rmsnorm(x, weight):
    r = 1.0 / math.sqrt(sum(v * v for v in x) / len(x) + EPS)
    return [v * r * g for v, g in zip(x, weight)]


def silu(v):
    return v / (1.0 + math.exp(-v))


def softplus(v):
    return v if v > 20 else math.log1p(math.exp(v))


tokens = list(a.prompt.encode("utf-8"))
conv_state = [[[0.0] * (W - 1) for _ in range(CD)] for _ in range(a.layers)]
ssm_state = [[[[0.0] * N for _ in range(P)] for _ in range(H)] for _ in range(a.layers)]
logits = []
for tok in tokens:
    h = list(w(emb)[tok * D:(tok + 1) * D])
    for l in range(a.layers):
        pre = "backbone.layers.%d." % l
        m = pre + "mixer."
        xn = rmsnorm(h, w(pre + "norm.weight"))
        zx = matvec(w(m + "in_proj.weight"), DIP, D, xn, w(m + "in_proj.bias") if a.bias else None)
        z, xbc, dtr = zx[:DI], zx[DI:DI + CD], zx[DI + CD:]
        cw = w(m + "conv1d.weight")
        conv = []
        for c in range(CD):
            window = conv_state[l][c] + [xbc[c]]
            s = sum(cw[c * W + k] * window[k] for k in range(W))
            if not a.no_conv_bias:
                s += w(m + "conv1d.bias")[c]
            conv.append(silu(s))
            conv_state[l][c] = window[1:]
        x, B, C = conv[:DI], conv[DI:DI + G * N], conv[DI + G * N:]
        y = [0.0] * DI
        for hh in range(H):
            g = hh // (H // G)
            dt = softplus(dtr[hh] + w(m + "dt_bias")[hh])
            dt = min(max(dt, a.dt_limit[0]), a.dt_limit[1])
            decay = math.exp(dt * -math.exp(w(m + "A_log")[hh]))
            for pp in range(P):
                xv = x[hh * P + pp]
                S = ssm_state[l][hh][pp]
                acc = 0.0
                for n in range(N):
                    S[n] = decay * S[n] + dt * xv * B[g * N + n]
                    acc += S[n] * C[g * N + n]
                y[hh * P + pp] = acc + w(m + "D")[hh] * xv
        gs = DI // G
        nw = w(m + "norm.weight")
        yn = []
        for g in range(G):
            ys = y[g * gs:(g + 1) * gs]
            zs = z[g * gs:(g + 1) * gs]
            if not a.norm_before_gate:
                ys = [v * silu(q) for v, q in zip(ys, zs)]
            r = 1.0 / math.sqrt(sum(v * v for v in ys) / gs + EPS)
            out = [v * r * nw[g * gs + i] for i, v in enumerate(ys)]
            if a.norm_before_gate:
                out = [v * silu(q) for v, q in zip(out, zs)]
            yn += out
        o = matvec(w(m + "out_proj.weight"), D, DI, yn, w(m + "out_proj.bias") if a.bias else None)
        h = [u + v for u, v in zip(h, o)]
    hn = rmsnorm(h, w("backbone.norm_f.weight"))
    logits.append(matvec(w(emb) if a.tied else w("lm_head.weight"), V, D, hn))


# ---- files ----
def write_npy(path, descr, shape, fmt, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d," % s for s in shape) if len(shape) == 1 else ", ".join(map(str, shape)))
    header += " " * (-(10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


os.makedirs(a.out, exist_ok=True)
header, blobs, offset = {}, [], 0
for name, (shape, values) in T.items():
    blob = struct.pack("<%df" % len(values), *values)
    header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + len(blob)]}
    blobs.append(blob)
    offset += len(blob)
hj = json.dumps(header).encode()
hj += b" " * (-len(hj) % 8)
with open(os.path.join(a.out, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(hj)) + hj + b"".join(blobs))
if a.layout == "transformers":
    config = {
        "architectures": ["Mamba2ForCausalLM"], "model_type": "mamba2", "hidden_size": D,
        "num_hidden_layers": a.layers, "state_size": N, "expand": EXPAND, "head_dim": P,
        "num_heads": H, "n_groups": G, "conv_kernel": W, "chunk_size": a.chunk,
        "vocab_size": V, "tie_word_embeddings": a.tied, "rms_norm": True,
        "norm_before_gate": a.norm_before_gate, "time_step_limit": a.dt_limit,
        "use_bias": a.bias, "use_conv_bias": not a.no_conv_bias, "layer_norm_epsilon": EPS,
        "hidden_act": "silu", "residual_in_fp32": True,
    }
else:
    config = {
        "d_model": D, "d_intermediate": 0, "n_layer": a.layers, "vocab_size": V,
        "ssm_cfg": {"layer": "Mamba2", "d_state": N, "d_conv": W, "expand": EXPAND,
                    "headdim": P, "ngroups": G, "chunk_size": a.chunk,
                    "norm_before_gate": a.norm_before_gate, "dt_limit": a.dt_limit,
                    "bias": a.bias, "conv_bias": not a.no_conv_bias},
        "attn_layer_idx": [], "attn_cfg": {}, "rms_norm": True, "residual_in_fp32": True,
        "fused_add_norm": True, "pad_vocab_size_multiple": 8, "tie_embeddings": a.tied,
    }
with open(os.path.join(a.out, "config.json"), "w") as f:
    json.dump(config, f, indent=1)  # Infinity written bare, as Python (and transformers) do
write_npy(os.path.join(a.out, "tokens.npy"), "<i4", [len(tokens)], "i", tokens)
write_npy(os.path.join(a.out, "expected_logits.npy"), "<f4", [len(tokens), V], "f",
          [v for row in logits for v in row])
