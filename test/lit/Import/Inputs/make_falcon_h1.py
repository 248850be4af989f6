#!/usr/bin/env python3
"""Writes a synthetic Falcon-H1 checkpoint with seeded weights, the tokens of a
prompt, and the logits a float64 token-by-token implementation of transformers'
FalconH1ForCausalLM (written here from its semantics in
models/falcon_h1/modeling_falcon_h1.py, independent of ssm-import's graph)
computes for them. Standard library only.

make_falcon_h1.py OUT_DIR [--hidden D] [--layers L] [--heads H] [--kv-heads K]
    [--head-dim E] [--mamba-heads MH] [--d-ssm S] [--state N] [--groups G]
    [--conv W] [--ffn F] [--vocab V] [--rms-norm] [--gate-first] [--tied]
    [--unit-multipliers] [--dt-limit LO HI] [--tokens T] [--seed S]

Writes OUT_DIR/model.safetensors (F32), config.json (model_type falcon_h1),
tokens.npy (int32, T tokens) and expected_logits.npy (float32, (T, V)).

Per layer (FalconH1DecoderLayer): xn = RMSNorm(h);
  mamba: p = in_proj(xn * ssm_in) * mup (z, x, B, C, dt columns times
    ssm_multipliers); xBC = silu(depthwise causal conv); dt = softplus(dt +
    dt_bias) clamped; per head S = exp(dt A) S + dt x B^T, y = S C + D x;
    y silu(z), or with mamba_rms_norm the gated RMSNorm over G groups (norm
    then gate by default, --gate-first for gate then norm); out_proj.
  attention on xn * attn_in: q, k (times key_multiplier), v; NeoX RoPE
    (rotate_half) at the token's position; causal softmax over the cache,
    scale 1/sqrt(E); o_proj.
  h += ssm_out * mamba + attn_out * attention;
  h += down(up(x) silu(gate(x) * mlp[0])) * mlp[1], x = RMSNorm(h).
The embedding times embedding_multiplier, the logits times lm_head_multiplier.
"""
import argparse
import json
import math
import os
import random
import struct

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--hidden", type=int, default=32)
p.add_argument("--layers", type=int, default=2)
p.add_argument("--heads", type=int, default=4)
p.add_argument("--kv-heads", type=int, default=2)
p.add_argument("--head-dim", type=int, default=12)
p.add_argument("--mamba-heads", type=int, default=4)
p.add_argument("--d-ssm", type=int, default=32)
p.add_argument("--state", type=int, default=8)
p.add_argument("--groups", type=int, default=2)
p.add_argument("--conv", type=int, default=4)
p.add_argument("--ffn", type=int, default=48)
p.add_argument("--vocab", type=int, default=96)
p.add_argument("--rms-norm", action="store_true")
p.add_argument("--gate-first", action="store_true")
p.add_argument("--tied", action="store_true")
p.add_argument("--unit-multipliers", action="store_true")
p.add_argument("--dt-limit", type=float, nargs=2, default=[0.0, math.inf])
p.add_argument("--theta", type=float, default=10000.0)
p.add_argument("--tokens", type=int, default=40)
p.add_argument("--seed", type=int, default=0)
a = p.parse_args()
rng = random.Random(a.seed)
D, L, H, K, E = a.hidden, a.layers, a.heads, a.kv_heads, a.head_dim
MH, DS, N, G, W, F, V = a.mamba_heads, a.d_ssm, a.state, a.groups, a.conv, a.ffn, a.vocab
P = DS // MH
CD = DS + 2 * G * N
DIP = DS + CD + MH
EPS = 1e-5
if DS % MH or MH % G or H % K or E % 2:
    raise SystemExit("mamba heads must divide d_ssm, groups the mamba heads, kv heads the heads; "
                     "head_dim even")

if a.unit_multipliers:
    mul = dict(emb=1.0, lm=1.0, key=1.0, attn_in=1.0, attn_out=1.0, ssm_in=1.0, ssm_out=1.0,
               ssm=[1.0] * 5, mlp=[1.0, 1.0])
else:
    mul = dict(emb=1.7, lm=0.6, key=0.8, attn_in=0.9, attn_out=1.3, ssm_in=1.1, ssm_out=0.7,
               ssm=[0.9, 1.2, 0.8, 1.1, 0.75], mlp=[1.25, 0.8])


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
T["model.embed_tokens.weight"] = uniform([V, D], 1.0)
for l in range(L):
    pre = "model.layers.%d." % l
    m = pre + "mamba."
    T[pre + "input_layernorm.weight"] = uniform([D], 0.2, 1.0)
    T[m + "in_proj.weight"] = linear(DIP, D)
    T[m + "conv1d.weight"] = uniform([CD, 1, W], 1.0 / math.sqrt(W))
    T[m + "conv1d.bias"] = uniform([CD], 0.1)
    T[m + "dt_bias"] = uniform([MH], 1.0, -2.0)
    T[m + "A_log"] = ([MH], [f32(math.log(1 + 15 * rng.random())) for _ in range(MH)])
    T[m + "D"] = uniform([MH], 0.5, 1.0)
    if a.rms_norm:
        T[m + "norm.weight"] = uniform([DS], 0.2, 1.0)
    T[m + "out_proj.weight"] = linear(D, DS)
    s = pre + "self_attn."
    T[s + "q_proj.weight"] = linear(H * E, D)
    T[s + "k_proj.weight"] = linear(K * E, D)
    T[s + "v_proj.weight"] = linear(K * E, D)
    T[s + "o_proj.weight"] = linear(D, H * E)
    T[pre + "pre_ff_layernorm.weight"] = uniform([D], 0.2, 1.0)
    T[pre + "feed_forward.gate_proj.weight"] = linear(F, D)
    T[pre + "feed_forward.up_proj.weight"] = linear(F, D)
    T[pre + "feed_forward.down_proj.weight"] = linear(D, F)
T["model.final_layernorm.weight"] = uniform([D], 0.2, 1.0)
if not a.tied:
    T["lm_head.weight"] = linear(V, D)


# ---- the float64 reference ----
def w(name):
    return T[name][1]


def matvec(mat, rows, cols, x):
    return [sum(mat[r * cols + c] * x[c] for c in range(cols)) for r in range(rows)]


def rmsnorm(x, weight):
    r = 1.0 / math.sqrt(sum(v * v for v in x) / len(x) + EPS)
    return [v * r * g for v, g in zip(x, weight)]


def silu(v):
    return v / (1.0 + math.exp(-v))


def softplus(v):
    return v if v > 20 else math.log1p(math.exp(v))


def rope(vec, pos):
    """rotate_half: channel i pairs with i + E/2; angle pos * theta^(-2i/E)."""
    half = E // 2
    out = list(vec)
    for i in range(half):
        ang = pos * a.theta ** (-2.0 * i / E)
        c, s = math.cos(ang), math.sin(ang)
        x1, x2 = vec[i], vec[i + half]
        out[i] = x1 * c - x2 * s
        out[i + half] = x2 * c + x1 * s
    return out


mup = [mul["ssm"][0]] * DS + [mul["ssm"][1]] * DS + [mul["ssm"][2]] * (G * N) + \
      [mul["ssm"][3]] * (G * N) + [mul["ssm"][4]] * MH
tokens = [rng.randrange(V) for _ in range(a.tokens)]
conv_state = [[[0.0] * (W - 1) for _ in range(CD)] for _ in range(L)]
ssm_state = [[[[0.0] * N for _ in range(P)] for _ in range(MH)] for _ in range(L)]
kcache = [[] for _ in range(L)]  # per layer: per position, K heads of E
vcache = [[] for _ in range(L)]
logits = []
for pos, tok in enumerate(tokens):
    h = [v * mul["emb"] for v in w("model.embed_tokens.weight")[tok * D:(tok + 1) * D]]
    for l in range(L):
        pre = "model.layers.%d." % l
        m = pre + "mamba."
        xn = rmsnorm(h, w(pre + "input_layernorm.weight"))
        # Mamba-2 branch
        zx = matvec(w(m + "in_proj.weight"), DIP, D, [v * mul["ssm_in"] for v in xn])
        zx = [v * k for v, k in zip(zx, mup)]
        z, xbc, dtr = zx[:DS], zx[DS:DS + CD], zx[DS + CD:]
        cw = w(m + "conv1d.weight")
        conv = []
        for c in range(CD):
            window = conv_state[l][c] + [xbc[c]]
            conv.append(silu(sum(cw[c * W + k] * window[k] for k in range(W)) + w(m + "conv1d.bias")[c]))
            conv_state[l][c] = window[1:]
        x, B, C = conv[:DS], conv[DS:DS + G * N], conv[DS + G * N:]
        y = [0.0] * DS
        for hh in range(MH):
            g = hh // (MH // G)
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
        if not a.rms_norm:
            yg = [v * silu(q) for v, q in zip(y, z)]
        else:
            gs = DS // G
            nw = w(m + "norm.weight")
            yg = []
            for g in range(G):
                ys, zs = y[g * gs:(g + 1) * gs], z[g * gs:(g + 1) * gs]
                if a.gate_first:
                    ys = [v * silu(q) for v, q in zip(ys, zs)]
                r = 1.0 / math.sqrt(sum(v * v for v in ys) / gs + EPS)
                out = [v * r * nw[g * gs + i] for i, v in enumerate(ys)]
                if not a.gate_first:
                    out = [v * silu(q) for v, q in zip(out, zs)]
                yg += out
        ssm_out = matvec(w(m + "out_proj.weight"), D, DS, yg)
        # attention branch
        s = pre + "self_attn."
        xa = [v * mul["attn_in"] for v in xn]
        q = matvec(w(s + "q_proj.weight"), H * E, D, xa)
        k = [v * mul["key"] for v in matvec(w(s + "k_proj.weight"), K * E, D, xa)]
        v_ = matvec(w(s + "v_proj.weight"), K * E, D, xa)
        q = [rope(q[i * E:(i + 1) * E], pos) for i in range(H)]
        kcache[l].append([rope(k[i * E:(i + 1) * E], pos) for i in range(K)])
        vcache[l].append([v_[i * E:(i + 1) * E] for i in range(K)])
        att = []
        for hq in range(H):
            kv = hq // (H // K)
            sc = [sum(qi * ki for qi, ki in zip(q[hq], kcache[l][j][kv])) / math.sqrt(E)
                  for j in range(pos + 1)]
            mx = max(sc)
            ex = [math.exp(t - mx) for t in sc]
            tot = sum(ex)
            att += [sum(ex[j] * vcache[l][j][kv][d] for j in range(pos + 1)) / tot for d in range(E)]
        attn_out = matvec(w(s + "o_proj.weight"), D, H * E, att)
        h = [hv + mul["ssm_out"] * sv + mul["attn_out"] * av
             for hv, sv, av in zip(h, ssm_out, attn_out)]
        # feed-forward
        fn = rmsnorm(h, w(pre + "pre_ff_layernorm.weight"))
        gt = matvec(w(pre + "feed_forward.gate_proj.weight"), F, D, fn)
        up = matvec(w(pre + "feed_forward.up_proj.weight"), F, D, fn)
        act = [u * silu(g * mul["mlp"][0]) for g, u in zip(gt, up)]
        dn = matvec(w(pre + "feed_forward.down_proj.weight"), D, F, act)
        h = [hv + mul["mlp"][1] * dv for hv, dv in zip(h, dn)]
    hn = rmsnorm(h, w("model.final_layernorm.weight"))
    head = w("model.embed_tokens.weight") if a.tied else w("lm_head.weight")
    logits.append([v * mul["lm"] for v in matvec(head, V, D, hn)])


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
config = {
    "architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1",
    "vocab_size": V, "hidden_size": D, "num_hidden_layers": L, "num_attention_heads": H,
    "num_key_value_heads": K, "head_dim": E, "intermediate_size": F, "hidden_act": "silu",
    "rms_norm_eps": EPS, "tie_word_embeddings": a.tied, "max_position_embeddings": 256,
    "rope_theta": a.theta, "rope_scaling": None, "attention_bias": False, "mlp_bias": False,
    "projectors_bias": False, "mamba_d_ssm": DS, "mamba_n_heads": MH, "mamba_d_head": "auto",
    "mamba_n_groups": G, "mamba_d_state": N, "mamba_d_conv": W, "mamba_expand": 2,
    "mamba_chunk_size": 16, "mamba_conv_bias": True, "mamba_proj_bias": False,
    "mamba_norm_before_gate": not a.gate_first, "mamba_rms_norm": a.rms_norm,
    "time_step_limit": [a.dt_limit[0], a.dt_limit[1]],
    "embedding_multiplier": mul["emb"], "lm_head_multiplier": mul["lm"],
    "key_multiplier": mul["key"], "attention_in_multiplier": mul["attn_in"],
    "attention_out_multiplier": mul["attn_out"], "ssm_in_multiplier": mul["ssm_in"],
    "ssm_out_multiplier": mul["ssm_out"], "ssm_multipliers": mul["ssm"],
    "mlp_multipliers": mul["mlp"],
}
with open(os.path.join(a.out, "config.json"), "w") as f:
    json.dump(config, f, indent=1)  # an infinite limit is written as Infinity, as Python does
write_npy(os.path.join(a.out, "tokens.npy"), "<i4", [len(tokens)], "i", tokens)
write_npy(os.path.join(a.out, "expected_logits.npy"), "<f4", [len(tokens), V], "f",
          [v for row in logits for v in row])
print("wrote %s: falcon_h1, %d layers, %d tokens" % (a.out, L, len(tokens)))
