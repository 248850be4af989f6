#!/usr/bin/env python3
"""Writes a synthetic Qwen3.5 (or dense Qwen3-Next) checkpoint with seeded
weights, the tokens of a prompt, and the logits that a float64 token-by-token
implementation of transformers' semantics (written here from
models/qwen3_5/modeling_qwen3_5.py and models/qwen3_next/modeling_qwen3_next.py,
independent of ssm-import's graph) computes for them. Needs NumPy.

make_qwen35.py OUT_DIR [--layout qwen3_5_text|qwen3_5|qwen3_next] [--hidden D]
    [--pattern LLF...] [--interval N] [--heads H] [--kv-heads K] [--head-dim E]
    [--rotary-factor F] [--theta T] [--nk NK] [--nv NV] [--dk DK] [--dv DV]
    [--conv W] [--ffn F] [--vocab V] [--untied] [--tokens T] [--seed S]

Writes OUT_DIR/model.safetensors (F32), config.json, tokens.npy (int32, T
tokens) and expected_logits.npy (float32, (T, V)).

The pattern: one letter per layer, L = linear_attention (Gated DeltaNet),
F = full_attention, written as layer_types; with --interval N the config
holds full_attention_interval N instead (layer i attends when (i+1) % N == 0)
and --pattern is ignored.

Layouts: qwen3_5_text (Qwen3_5ForCausalLM: model.layers.*, split in_proj_qkv /
in_proj_z / in_proj_b / in_proj_a, rope_parameters); qwen3_5
(Qwen3_5ForConditionalGeneration: config in text_config, weights under
model.language_model., plus a vision and an MTP tensor the importer must
ignore); qwen3_next (dense Qwen3-Next: in_proj_qkvz and in_proj_ba grouped per
key head, [q | k | v (r heads) | z (r heads)] and [b (r) | a (r)];
rope_theta / partial_rotary_factor at the top; num_experts 0). The three
layouts hold the same numbers, so the logits are the same.

Semantics (h = embed[tok]; per layer h += mixer(N(h)); h += mlp(N(h));
logits = lm_head(N(h)); N(x) = x / sqrt(mean(x^2) + eps) * (1 + w)):
  GDN: qkv = conv(in_proj_qkv x) then silu (depthwise, causal, window W, zero
    history); q, k per key head x / sqrt(sum x^2 + 1e-6); q /= sqrt(dk);
    beta = sigmoid(b); g = -exp(A_log) softplus(a + dt_bias); value head h
    uses key head h // (nv/nk); S = exp(g) S; S += k (beta (v - S^T k))^T;
    o = S^T q; o = norm.w * o / sqrt(mean(o^2) + eps) * silu(z); out_proj.
  attention: q_proj -> per head [query (E) | gate (E)]; q = N_E(query),
    k = N_E(k_proj x) (q_norm, k_norm, 1 + w); NeoX rotate_half RoPE on the
    first R = E * factor dims, inv_freq = theta^(-2i/R), angle = p inv_freq;
    causal softmax(q k^T / sqrt(E)) v with GQA; o_proj(o * sigmoid(gate)).
  MLP: down(silu(gate x) * up x).
"""
import argparse
import json
import os
import struct

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--layout", default="qwen3_5_text", choices=["qwen3_5_text", "qwen3_5", "qwen3_next"])
p.add_argument("--hidden", type=int, default=48)
p.add_argument("--pattern", default="LFLL")
p.add_argument("--interval", type=int, default=0)
p.add_argument("--layers", type=int, default=0, help="with --interval: the layer count")
p.add_argument("--heads", type=int, default=4)
p.add_argument("--kv-heads", type=int, default=1)
p.add_argument("--head-dim", type=int, default=8)
p.add_argument("--rotary-factor", type=float, default=0.5)
p.add_argument("--theta", type=float, default=10000.0)
p.add_argument("--nk", type=int, default=1)
p.add_argument("--nv", type=int, default=3)
p.add_argument("--dk", type=int, default=8)
p.add_argument("--dv", type=int, default=12)
p.add_argument("--conv", type=int, default=4)
p.add_argument("--ffn", type=int, default=80)
p.add_argument("--vocab", type=int, default=96)
p.add_argument("--eps", type=float, default=1e-6)
p.add_argument("--untied", action="store_true")
p.add_argument("--tokens", type=int, default=40)
p.add_argument("--seed", type=int, default=0)
a = p.parse_args()
rng = np.random.default_rng(a.seed)

D, E, H, KV = a.hidden, a.head_dim, a.heads, a.kv_heads
NK, NV, DK, DV, W = a.nk, a.nv, a.dk, a.dv, a.conv
R = NV // NK
CC = 2 * NK * DK + NV * DV
if a.interval:
    n_layers = a.layers or 4
    kinds = ["F" if (i + 1) % a.interval == 0 else "L" for i in range(n_layers)]
else:
    kinds = list(a.pattern)
ROT = int(E * a.rotary_factor)
ROT -= ROT % 2


def f32(x):
    return np.asarray(x, dtype=np.float32)


def randn(*shape, s=1.0):
    return f32(rng.standard_normal(shape) * s)


# The weights, in float32 (what the file holds); the reference computes in float64 from them.
w = {}
w["embed"] = randn(a.vocab, D, s=1.0)
layers = []
for i, k in enumerate(kinds):
    L = {"kind": k, "in_norm": randn(D, s=0.2), "post_norm": randn(D, s=0.2),
         "gate": randn(a.ffn, D, s=D ** -0.5), "up": randn(a.ffn, D, s=D ** -0.5),
         "down": randn(D, a.ffn, s=a.ffn ** -0.5)}
    if k == "L":
        L["qkv"] = randn(CC, D, s=D ** -0.5)
        L["z"] = randn(NV * DV, D, s=D ** -0.5)
        L["b"] = randn(NV, D, s=2.0 * D ** -0.5)
        L["a"] = randn(NV, D, s=D ** -0.5)
        L["conv"] = randn(CC, 1, W, s=0.5)
        L["dt_bias"] = randn(NV, s=1.0)
        # A = exp(A_log) from 1e-3 to 16: decays from ~1 to ~0 per token.
        L["A_log"] = f32(rng.uniform(np.log(1e-3), np.log(16.0), NV))
        L["norm"] = f32(1.0 + rng.standard_normal(DV) * 0.2)
        L["out"] = randn(D, NV * DV, s=(NV * DV) ** -0.5)
    else:
        L["q"] = randn(H * 2 * E, D, s=D ** -0.5)
        L["k"] = randn(KV * E, D, s=D ** -0.5)
        L["v"] = randn(KV * E, D, s=D ** -0.5)
        L["o"] = randn(D, H * E, s=(H * E) ** -0.5)
        L["q_norm"] = randn(E, s=0.2)
        L["k_norm"] = randn(E, s=0.2)
    layers.append(L)
w["norm"] = randn(D, s=0.2)
w["lm_head"] = randn(a.vocab, D, s=D ** -0.5) if a.untied else w["embed"]

# --- float64 reference, token by token ------------------------------------
d = lambda x: np.asarray(x, dtype=np.float64)


def norm1p(x, wt, eps):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps) * (1.0 + d(wt))


def silu(x):
    return x / (1.0 + np.exp(-x))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softplus(x):
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


inv_freq = a.theta ** (-np.arange(0, ROT, 2, dtype=np.float64) / ROT)


def rope(x, pos):  # x (heads, E): NeoX rotate_half on the first ROT dims
    ang = pos * inv_freq
    cos = np.concatenate([np.cos(ang)] * 2)
    sin = np.concatenate([np.sin(ang)] * 2)
    r = x[:, :ROT]
    half = ROT // 2
    rot = np.concatenate([-r[:, half:], r[:, :half]], axis=1)
    out = x.copy()
    out[:, :ROT] = r * cos + rot * sin
    return out


tokens = rng.integers(0, a.vocab, a.tokens).astype(np.int32)
state = []
for L in layers:
    if L["kind"] == "L":
        state.append({"conv": np.zeros((W - 1, CC)), "S": np.zeros((NV, DK, DV))})
    else:
        state.append({"k": [], "v": []})

logits = []
for pos, tok in enumerate(tokens):
    h = d(w["embed"][tok])
    for L, st in zip(layers, state):
        x = norm1p(h, L["in_norm"], a.eps)
        if L["kind"] == "L":
            qkv = d(L["qkv"]) @ x
            win = np.concatenate([st["conv"], qkv[None, :]], axis=0)  # (W, CC), oldest first
            st["conv"] = win[1:]
            qkv = silu(np.sum(win.T * d(L["conv"][:, 0, :]), axis=1))
            q = qkv[:NK * DK].reshape(NK, DK)
            k = qkv[NK * DK:2 * NK * DK].reshape(NK, DK)
            v = qkv[2 * NK * DK:].reshape(NV, DV)
            q = q / np.sqrt(np.sum(q * q, axis=1, keepdims=True) + 1e-6) / np.sqrt(DK)
            k = k / np.sqrt(np.sum(k * k, axis=1, keepdims=True) + 1e-6)
            z = (d(L["z"]) @ x).reshape(NV, DV)
            beta = sigmoid(d(L["b"]) @ x)
            g = -np.exp(d(L["A_log"])) * softplus(d(L["a"]) @ x + d(L["dt_bias"]))
            o = np.zeros((NV, DV))
            for hv in range(NV):
                kh = hv // R
                S = np.exp(g[hv]) * st["S"][hv]
                delta = beta[hv] * (v[hv] - S.T @ k[kh])
                S = S + np.outer(k[kh], delta)
                st["S"][hv] = S
                o[hv] = S.T @ q[kh]
            o = o / np.sqrt(np.mean(o * o, axis=1, keepdims=True) + a.eps) * d(L["norm"]) * silu(z)
            h = h + d(L["out"]) @ o.reshape(-1)
        else:
            qg = (d(L["q"]) @ x).reshape(H, 2 * E)
            q, gate = qg[:, :E], qg[:, E:].reshape(-1)
            k = (d(L["k"]) @ x).reshape(KV, E)
            v = (d(L["v"]) @ x).reshape(KV, E)
            q = rope(norm1p(q, L["q_norm"], a.eps), pos)
            k = rope(norm1p(k, L["k_norm"], a.eps), pos)
            st["k"].append(k)
            st["v"].append(v)
            K, V = np.stack(st["k"]), np.stack(st["v"])  # (T, KV, E)
            o = np.zeros((H, E))
            for hq in range(H):
                g_ = hq // (H // KV)
                sc = K[:, g_, :] @ q[hq] / np.sqrt(E)
                pr = np.exp(sc - sc.max())
                o[hq] = (pr / pr.sum()) @ V[:, g_, :]
            h = h + d(L["o"]) @ (o.reshape(-1) * sigmoid(gate))
        x = norm1p(h, L["post_norm"], a.eps)
        h = h + d(L["down"]) @ (silu(d(L["gate"]) @ x) * (d(L["up"]) @ x))
    logits.append(d(w["lm_head"]) @ norm1p(h, w["norm"], a.eps))
logits = np.array(logits, dtype=np.float32)

# --- the checkpoint --------------------------------------------------------
prefix = "model.language_model." if a.layout == "qwen3_5" else "model."
t = {prefix + "embed_tokens.weight": w["embed"], prefix + "norm.weight": w["norm"]}
if a.untied:
    t["lm_head.weight"] = w["lm_head"]
for i, L in enumerate(layers):
    p_ = prefix + "layers.%d." % i
    t[p_ + "input_layernorm.weight"] = L["in_norm"]
    t[p_ + "post_attention_layernorm.weight"] = L["post_norm"]
    t[p_ + "mlp.gate_proj.weight"] = L["gate"]
    t[p_ + "mlp.up_proj.weight"] = L["up"]
    t[p_ + "mlp.down_proj.weight"] = L["down"]
    if L["kind"] == "L":
        la = p_ + "linear_attn."
        if a.layout == "qwen3_next":
            qw = L["qkv"][:NK * DK].reshape(NK, DK, D)
            kw = L["qkv"][NK * DK:2 * NK * DK].reshape(NK, DK, D)
            vw = L["qkv"][2 * NK * DK:].reshape(NK, R * DV, D)
            zw = L["z"].reshape(NK, R * DV, D)
            t[la + "in_proj_qkvz.weight"] = np.concatenate([qw, kw, vw, zw], axis=1).reshape(-1, D)
            t[la + "in_proj_ba.weight"] = np.concatenate(
                [L["b"].reshape(NK, R, D), L["a"].reshape(NK, R, D)], axis=1).reshape(-1, D)
        else:
            t[la + "in_proj_qkv.weight"] = L["qkv"]
            t[la + "in_proj_z.weight"] = L["z"]
            t[la + "in_proj_b.weight"] = L["b"]
            t[la + "in_proj_a.weight"] = L["a"]
        t[la + "conv1d.weight"] = L["conv"]
        t[la + "dt_bias"] = L["dt_bias"]
        t[la + "A_log"] = L["A_log"]
        t[la + "norm.weight"] = L["norm"]
        t[la + "out_proj.weight"] = L["out"]
    else:
        sa = p_ + "self_attn."
        for n in ("q", "k", "v", "o"):
            t[sa + n + "_proj.weight"] = L[n]
        t[sa + "q_norm.weight"] = L["q_norm"]
        t[sa + "k_norm.weight"] = L["k_norm"]
if a.layout == "qwen3_5":
    t["model.visual.patch_embed.proj.weight"] = randn(4, 3, 2, 2)
    t["mtp.fc.weight"] = randn(D, 2 * D)

text = {
    "vocab_size": a.vocab, "hidden_size": D, "num_hidden_layers": len(kinds),
    "intermediate_size": a.ffn, "num_attention_heads": H, "num_key_value_heads": KV,
    "head_dim": E, "linear_num_key_heads": NK, "linear_num_value_heads": NV,
    "linear_key_head_dim": DK, "linear_value_head_dim": DV, "linear_conv_kernel_dim": W,
    "hidden_act": "silu", "rms_norm_eps": a.eps, "attention_bias": False,
    "tie_word_embeddings": not a.untied, "max_position_embeddings": 4096,
}
if a.interval:
    text["full_attention_interval"] = a.interval
else:
    text["layer_types"] = ["full_attention" if k == "F" else "linear_attention" for k in kinds]
if a.layout == "qwen3_next":
    cfg = dict(text, model_type="qwen3_next", architectures=["Qwen3NextForCausalLM"],
               rope_theta=a.theta, partial_rotary_factor=a.rotary_factor, rope_scaling=None,
               num_experts=0, decoder_sparse_step=1, mlp_only_layers=[])
else:
    text["rope_parameters"] = {"rope_type": "default", "rope_theta": a.theta,
                               "partial_rotary_factor": a.rotary_factor,
                               "mrope_interleaved": True, "mrope_section": [1, 1, 0]}
    cfg = dict(text, model_type="qwen3_5_text", architectures=["Qwen3_5ForCausalLM"])
    if a.layout == "qwen3_5":
        cfg = {"model_type": "qwen3_5", "architectures": ["Qwen3_5ForConditionalGeneration"],
               "text_config": cfg, "vision_config": {"depth": 1},
               "tie_word_embeddings": not a.untied}

os.makedirs(a.out, exist_ok=True)
header, blobs, off = {}, [], 0
for name, arr in t.items():
    b = np.ascontiguousarray(arr, dtype="<f4").tobytes()
    header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [off, off + len(b)]}
    blobs.append(b)
    off += len(b)
hb = json.dumps(header).encode()
hb += b" " * ((8 - len(hb) % 8) % 8)
with open(os.path.join(a.out, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(hb)) + hb + b"".join(blobs))
with open(os.path.join(a.out, "config.json"), "w") as f:
    json.dump(cfg, f, indent=1)
np.save(os.path.join(a.out, "tokens.npy"), tokens)
np.save(os.path.join(a.out, "expected_logits.npy"), logits)
