#!/usr/bin/python3
"""Synthetic checkpoints at the shapes people deploy, for the real-size benchmarks.

Nothing is downloaded: the weights are seeded random numbers scaled so that the
activations stay in the range trained models have (unit-variance residual stream,
matrices drawn with std 1/sqrt(fan_in), decays in the ranges the papers initialise
them to), so that the numerics the benchmark exercises are those of a real model.

  mamba DIR   a Mamba-1 checkpoint in the Hugging Face transformers layout
              (config.json with MambaConfig field names, model.safetensors with
              backbone.embeddings.weight and a tied head), default mamba-130m shapes:
              d_model 768, 24 layers, vocab 50280, d_state 16, d_conv 4, expand 2,
              dt_rank 48. With --gguf TYPES it also writes the same weights as
              DIR/model-<type>.gguf (f32, f16, bf16 and q8_0: llama.cpp's Mamba tensor
              names and keys, A stored as -exp(A_log), a vocabulary of type "none"),
              for llama.cpp's llama-bench.
  rwkv4 FILE  an RWKV-4 model in rwkv.cpp's file format (version 100, FP32 or FP16
              matrices), default RWKV-4 169M shapes: n_embed 768, 12 layers,
              vocab 50277, FFN 4 x n_embed.
  rwkv7 DIR   an RWKV-7 model: DIR/model.bin in rwkv.cpp's format (version 101, FP32)
              and the same weights as DIR/model-<type>.gguf (--gguf, default f32) with
              llama.cpp's `rwkv7` names and keys and a placeholder vocabulary, default
              RWKV-7 0.1B shapes: n_embed 768, 12 layers, heads of 64, vocab 65536,
              FFN 4 x n_embed, low-rank sizes 64 / 64 / 32 / 128.

The GGUF and rwkv.cpp writers follow the published formats (ggml's docs/gguf.md,
rwkv.cpp's rwkv_file_format.inc); Q8_0 is blocks of 32 values along each row with
one f16 scale d = max|x| / 127 and q = round(x / d), as ggml defines it.

Usage: bench/synth_checkpoint.py mamba /tmp/mamba-130m --gguf f32,f16,q8_0
       bench/synth_checkpoint.py rwkv4 /tmp/rwkv4-169m.bin [--fp16]
       bench/synth_checkpoint.py rwkv7 /tmp/rwkv7-0.1b
Needs python3-numpy. Writes about 0.5 GB (f32) per model; an existing output is
never overwritten unless --force is given.
"""
import argparse
import json
import os
import struct
import sys

import numpy as np


# ---------------------------------------------------------------- writers

def write_safetensors(path, tensors):
    """tensors: list of (name, np.ndarray float32|float16)."""
    header, offset = {}, 0
    names = {np.dtype(np.float32): "F32", np.dtype(np.float16): "F16"}
    for name, arr in tensors:
        nbytes = arr.nbytes
        header[name] = {"dtype": names[arr.dtype], "shape": list(arr.shape),
                        "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    header["__metadata__"] = {"format": "pt", "generator": "ssm-opt bench/synth_checkpoint.py"}
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)))
        f.write(blob)
        for _, arr in tensors:
            f.write(np.ascontiguousarray(arr).tobytes())


GGUF_UINT32, GGUF_INT32, GGUF_FLOAT32, GGUF_BOOL, GGUF_STRING, GGUF_ARRAY = 4, 5, 6, 7, 8, 9
GGML_F32, GGML_F16, GGML_Q8_0, GGML_BF16 = 0, 1, 8, 30
# ggml's llama_ftype: MOSTLY_F16 1, MOSTLY_Q8_0 7, MOSTLY_BF16 32
GGML_FILE_TYPE = {"f32": 0, "f16": 1, "bf16": 32, "q8_0": 7}
# Tensors llama.cpp's converter always keeps in F32 although they are 2-D *.weight:
# the causal conv filters (Mamba's ssm_conv1d, LFM2's shortconv.conv).
GGUF_F32_ONLY = ("ssm_conv1d", "shortconv.conv")


def to_bf16_bytes(arr):
    """float32 -> bfloat16 bits, rounded to nearest even (as ggml's and torch's
    conversions round finite values)."""
    u = np.ascontiguousarray(arr, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return r.tobytes()


def quantize_q8_0(arr):
    """Rows of a 2-D float32 array as Q8_0 blocks: (f16 d, 32 x int8) per 32 values."""
    rows, cols = arr.shape
    if cols % 32:
        raise ValueError(f"Q8_0 needs a row length divisible by 32, got {cols}")
    blocks = arr.reshape(rows, cols // 32, 32)
    amax = np.abs(blocks).max(axis=2, keepdims=True)
    d = amax / 127.0
    inv = np.where(d > 0, 1.0 / np.where(d > 0, d, 1.0), 0.0)
    q = np.clip(np.rint(blocks * inv), -127, 127).astype(np.int8)
    out = np.empty((rows, cols // 32), dtype=[("d", "<f2"), ("qs", "i1", 32)])
    out["d"] = d[..., 0].astype(np.float16)
    out["qs"] = q
    return out.tobytes()


def _gguf_str(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def _gguf_value(typ, val):
    """One metadata value; typ is a GGUF type id, or (GGUF_ARRAY, element type id)."""
    if isinstance(typ, tuple):
        arr, elem = typ
        if arr != GGUF_ARRAY:
            raise ValueError(typ)
        return (struct.pack("<IQ", elem, len(val))
                + b"".join(_gguf_value(elem, v) for v in val))
    if typ == GGUF_UINT32:
        return struct.pack("<I", val)
    if typ == GGUF_INT32:
        return struct.pack("<i", val)
    if typ == GGUF_FLOAT32:
        return struct.pack("<f", val)
    if typ == GGUF_BOOL:
        return struct.pack("<B", 1 if val else 0)
    if typ == GGUF_STRING:
        return _gguf_str(val)
    raise ValueError(typ)


def gguf_tensor_type(name, shape, wtype):
    """The ggml type llama.cpp's converter stores a tensor in: matrices named
    *.weight (but not norms or the conv filters) as `wtype` (f32|f16|bf16|q8_0),
    a matrix whose rows do not split into 32-blocks as F16 under q8_0,
    everything else as F32."""
    matrix = (len(shape) == 2 and name.endswith(".weight") and not name.endswith("_norm.weight")
              and not any(s in name for s in GGUF_F32_ONLY))
    kind = wtype if matrix else "f32"
    if kind == "q8_0" and shape[1] % 32:
        kind = "f16"
    return {"f32": GGML_F32, "f16": GGML_F16, "bf16": GGML_BF16, "q8_0": GGML_Q8_0}[kind]


def _gguf_nbytes(ttype, shape):
    n = int(np.prod(shape))
    return {GGML_F32: 4 * n, GGML_F16: 2 * n, GGML_BF16: 2 * n, GGML_Q8_0: n // 32 * 34}[ttype]


def _gguf_encode(arr, ttype):
    arr = np.ascontiguousarray(arr, dtype=np.float32)
    if ttype == GGML_F16:
        return arr.astype(np.float16).tobytes()
    if ttype == GGML_BF16:
        return to_bf16_bytes(arr)
    if ttype == GGML_Q8_0:
        return quantize_q8_0(arr)
    return arr.tobytes()


def write_gguf(path, kv, tensors, wtype):
    """kv: list of (key, gguf type, value) (type: a GGUF type id, or
    (GGUF_ARRAY, element type id) with a list value); tensors: list of
    (name, np.ndarray float32), written in this order, each in the type
    gguf_tensor_type gives. The tensors are encoded one at a time after the
    header is written, so that a model of several GB never sits in memory twice."""
    types, infos, offset = [], [], 0
    for name, arr in tensors:
        ttype = gguf_tensor_type(name, arr.shape, wtype)
        types.append(ttype)
        dims = list(reversed(arr.shape))  # ggml lists the contiguous dimension first
        info = _gguf_str(name) + struct.pack("<I", len(dims))
        info += b"".join(struct.pack("<Q", d) for d in dims)
        info += struct.pack("<IQ", ttype, offset)
        infos.append(info)
        nbytes = _gguf_nbytes(ttype, arr.shape)
        offset += nbytes + (-nbytes % 32)
    body = b"".join(_gguf_str(key) + struct.pack("<I", typ[0] if isinstance(typ, tuple) else typ)
                    + _gguf_value(typ, val) for key, typ, val in kv)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv)) + body + b"".join(infos)
    head += b"\0" * (-len(head) % 32)
    with open(path, "wb") as f:
        f.write(head)
        for (_, arr), ttype in zip(tensors, types):
            data = _gguf_encode(arr, ttype)
            f.write(data + b"\0" * (-len(data) % 32))


def write_rwkv_bin(path, n_vocab, n_embed, n_layer, tensors, fp16, version=100):
    """rwkv.cpp file format (version 100; 101 for RWKV-7 files): 2-D matrices FP16
    when fp16, vectors FP32. Each array is given in PyTorch's order; its sizes are
    stored reversed, as ggml counts them."""
    with open(path, "wb") as f:
        f.write(struct.pack("<6I", 0x67676D66, version, n_vocab, n_embed, n_layer, 1 if fp16 else 0))
        for name, arr in tensors:
            arr = np.ascontiguousarray(arr, dtype=np.float32)
            half = fp16 and arr.ndim == 2
            key = name.encode()
            dims = list(reversed(arr.shape))
            f.write(struct.pack("<3I", len(dims), len(key), 1 if half else 0))
            f.write(struct.pack(f"<{len(dims)}I", *dims))
            f.write(key)
            f.write((arr.astype(np.float16) if half else arr).tobytes())


# ---------------------------------------------------------------- models

def _matrix(rng, rows, cols, gain=1.0):
    return (rng.standard_normal((rows, cols), dtype=np.float32) * (gain / np.sqrt(cols))).astype(np.float32)


def mamba_weights(rng, d_model, n_layer, vocab, d_state, d_conv, expand, dt_rank):
    """Mamba-1 weights in the transformers layout, initialised as mamba_ssm does
    (A = -[1..N], dt bias = softplus^-1 of dt in [1e-3, 1e-1], D = 1)."""
    d_inner = expand * d_model
    t = [("backbone.embeddings.weight", rng.standard_normal((vocab, d_model), dtype=np.float32))]
    for i in range(n_layer):
        p = f"backbone.layers.{i}."
        dt = np.exp(rng.uniform(np.log(1e-3), np.log(1e-1), d_inner)).astype(np.float32)
        t += [
            (p + "norm.weight", (1.0 + 0.1 * rng.standard_normal(d_model)).astype(np.float32)),
            (p + "mixer.in_proj.weight", _matrix(rng, 2 * d_inner, d_model)),
            (p + "mixer.conv1d.weight", _matrix(rng, d_inner, d_conv).reshape(d_inner, 1, d_conv)),
            (p + "mixer.conv1d.bias", (0.1 * rng.standard_normal(d_inner)).astype(np.float32)),
            (p + "mixer.x_proj.weight", _matrix(rng, dt_rank + 2 * d_state, d_inner)),
            (p + "mixer.dt_proj.weight", _matrix(rng, d_inner, dt_rank, gain=0.1)),
            (p + "mixer.dt_proj.bias", (dt + np.log(-np.expm1(-dt))).astype(np.float32)),
            (p + "mixer.A_log", np.log(np.tile(np.arange(1, d_state + 1, dtype=np.float32), (d_inner, 1)))),
            (p + "mixer.D", np.ones(d_inner, dtype=np.float32)),
            (p + "mixer.out_proj.weight", _matrix(rng, d_model, d_inner, gain=1.0 / np.sqrt(2 * n_layer))),
        ]
    t.append(("backbone.norm_f.weight", np.ones(d_model, dtype=np.float32)))
    return t


def mamba_gguf(weights, cfg, wtype):
    arch = "mamba"
    kv = [
        ("general.architecture", GGUF_STRING, arch),
        ("general.name", GGUF_STRING, "ssm-opt synthetic mamba"),
        ("general.file_type", GGUF_UINT32, GGML_FILE_TYPE[wtype]),
        (f"{arch}.vocab_size", GGUF_UINT32, cfg["vocab_size"]),
        (f"{arch}.context_length", GGUF_UINT32, 1 << 20),
        (f"{arch}.embedding_length", GGUF_UINT32, cfg["hidden_size"]),
        (f"{arch}.feed_forward_length", GGUF_UINT32, 0),
        (f"{arch}.attention.head_count", GGUF_UINT32, 0),
        (f"{arch}.block_count", GGUF_UINT32, cfg["num_hidden_layers"]),
        (f"{arch}.ssm.conv_kernel", GGUF_UINT32, cfg["conv_kernel"]),
        (f"{arch}.ssm.inner_size", GGUF_UINT32, cfg["intermediate_size"]),
        (f"{arch}.ssm.state_size", GGUF_UINT32, cfg["state_size"]),
        (f"{arch}.ssm.time_step_rank", GGUF_UINT32, cfg["time_step_rank"]),
        (f"{arch}.attention.layer_norm_rms_epsilon", GGUF_FLOAT32, cfg["layer_norm_epsilon"]),
        (f"{arch}.ssm.dt_b_c_rms", GGUF_BOOL, False),
        ("tokenizer.ggml.model", GGUF_STRING, "none"),
    ]
    names = {"norm.weight": "attn_norm.weight", "mixer.in_proj.weight": "ssm_in.weight",
             "mixer.conv1d.weight": "ssm_conv1d.weight", "mixer.conv1d.bias": "ssm_conv1d.bias",
             "mixer.x_proj.weight": "ssm_x.weight", "mixer.dt_proj.weight": "ssm_dt.weight",
             "mixer.dt_proj.bias": "ssm_dt.bias", "mixer.A_log": "ssm_a", "mixer.D": "ssm_d",
             "mixer.out_proj.weight": "ssm_out.weight"}
    out = []
    for name, arr in weights:
        if name == "backbone.embeddings.weight":
            out.append(("token_embd.weight", arr))
        elif name == "backbone.norm_f.weight":
            out.append(("output_norm.weight", arr))
        else:
            _, _, layer, rest = name.split(".", 3)
            if rest == "mixer.A_log":
                arr = -np.exp(arr)
            elif rest == "mixer.conv1d.weight":
                arr = arr.reshape(arr.shape[0], arr.shape[2])
            out.append((f"blk.{layer}.{names[rest]}", arr))
    return kv, out


def _norm_weight(rng, n):
    return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)


def lfm2_config(hidden, layers, attn_layers, heads, kv_heads, intermediate, multiple_of, vocab,
                conv_l_cache):
    """config.json of an LFM2 checkpoint with transformers' Lfm2Config field names
    (as the shared tiny-lfm2-a writes them): short-conv layers except `attn_layers`."""
    return {"architectures": ["Lfm2ForCausalLM"], "block_auto_adjust_ff_dim": True,
            "block_ffn_dim_multiplier": 1.0, "block_multiple_of": multiple_of,
            "bos_token_id": 1, "conv_L_cache": conv_l_cache, "conv_bias": False, "dtype": "float32",
            "eos_token_id": 7, "hidden_size": hidden, "initializer_range": 0.02,
            "intermediate_size": intermediate,
            "layer_types": ["full_attention" if i in attn_layers else "conv" for i in range(layers)],
            "max_position_embeddings": 128000, "model_type": "lfm2", "norm_eps": 1e-5,
            "num_attention_heads": heads, "num_hidden_layers": layers, "num_key_value_heads": kv_heads,
            "pad_token_id": 0, "rope_theta": 1000000.0, "tie_word_embeddings": True,
            "transformers_version": "4.57.1", "use_cache": True, "vocab_size": vocab}


def lfm2_ff_dim(cfg):
    """The SwiGLU width LFM2 really uses: with block_auto_adjust_ff_dim, 2/3 of
    intermediate_size, times block_ffn_dim_multiplier, rounded up to a multiple of
    block_multiple_of (6656 -> 4608 for LFM2-350M)."""
    ff = cfg["intermediate_size"]
    if cfg.get("block_auto_adjust_ff_dim"):
        ff = int(2 * ff / 3)
        if cfg.get("block_ffn_dim_multiplier") is not None:
            ff = int(cfg["block_ffn_dim_multiplier"] * ff)
        m = cfg["block_multiple_of"]
        ff = m * ((ff + m - 1) // m)
    return ff


def lfm2_weights(rng, cfg):
    """LFM2 weights in the transformers layout (Lfm2ForCausalLM, tied head), each
    layer's tensors in name order as save_pretrained writes them: gated short
    convolutions (conv.in_proj -> B | C | x, depthwise conv.conv (H, 1, L_cache),
    conv.out_proj) or GQA attention with per-head q/k RMSNorm, then the SwiGLU
    feed-forward (w1 gate, w3 up, w2 down); the final norm is model.embedding_norm."""
    h, n = cfg["hidden_size"], cfg["num_hidden_layers"]
    hd = h // cfg["num_attention_heads"]
    kv = cfg["num_key_value_heads"] * hd
    ff, lc = lfm2_ff_dim(cfg), cfg["conv_L_cache"]
    out_gain = 1.0 / np.sqrt(2 * n)
    t = [("model.embed_tokens.weight", rng.standard_normal((cfg["vocab_size"], h), dtype=np.float32)),
         ("model.embedding_norm.weight", np.ones(h, dtype=np.float32))]
    for i, kind in enumerate(cfg["layer_types"]):
        p = f"model.layers.{i}."
        if kind == "conv":
            mix = [(p + "conv.conv.weight", _matrix(rng, h, lc).reshape(h, 1, lc)),
                   (p + "conv.in_proj.weight", _matrix(rng, 3 * h, h)),
                   (p + "conv.out_proj.weight", _matrix(rng, h, h, gain=out_gain))]
        else:
            mix = [(p + "self_attn.k_layernorm.weight", _norm_weight(rng, hd)),
                   (p + "self_attn.k_proj.weight", _matrix(rng, kv, h)),
                   (p + "self_attn.out_proj.weight", _matrix(rng, h, h, gain=out_gain)),
                   (p + "self_attn.q_layernorm.weight", _norm_weight(rng, hd)),
                   (p + "self_attn.q_proj.weight", _matrix(rng, h, h)),
                   (p + "self_attn.v_proj.weight", _matrix(rng, kv, h))]
        ffn = [(p + "feed_forward.w1.weight", _matrix(rng, ff, h)),
               (p + "feed_forward.w2.weight", _matrix(rng, h, ff, gain=out_gain)),
               (p + "feed_forward.w3.weight", _matrix(rng, ff, h)),
               (p + "ffn_norm.weight", _norm_weight(rng, h)),
               (p + "operator_norm.weight", _norm_weight(rng, h))]
        t += sorted(mix + ffn, key=lambda x: x[0])
    return t


def lfm2_gguf(weights, cfg, wtype, name="ssm-opt synthetic lfm2"):
    """The GGUF metadata and tensors llama.cpp's "lfm2" architecture reads, in the
    layout of the shared tiny-lfm2-a/model-f32.gguf (llama.cpp's converter, key by
    key): per-layer attention.head_count_kv (0 = short-conv layer), the real
    feed-forward width, shortconv.l_cache; blk.N.shortconv.{in_proj,conv,out_proj},
    the conv filter squeezed to (H, L_cache); model.embedding_norm ->
    token_embd_norm. A vocabulary of type "none" with vocab_size dummy tokens
    stands in for the tokenizer."""
    arch = "lfm2"
    kv = [
        ("general.architecture", GGUF_STRING, arch),
        ("general.name", GGUF_STRING, name),
        (f"{arch}.block_count", GGUF_UINT32, cfg["num_hidden_layers"]),
        (f"{arch}.context_length", GGUF_UINT32, cfg["max_position_embeddings"]),
        (f"{arch}.embedding_length", GGUF_UINT32, cfg["hidden_size"]),
        (f"{arch}.feed_forward_length", GGUF_UINT32, lfm2_ff_dim(cfg)),
        (f"{arch}.attention.head_count", GGUF_UINT32, cfg["num_attention_heads"]),
        (f"{arch}.attention.head_count_kv", (GGUF_ARRAY, GGUF_INT32),
         [cfg["num_key_value_heads"] if k != "conv" else 0 for k in cfg["layer_types"]]),
        (f"{arch}.rope.freq_base", GGUF_FLOAT32, cfg["rope_theta"]),
        (f"{arch}.attention.layer_norm_rms_epsilon", GGUF_FLOAT32, cfg["norm_eps"]),
        ("general.file_type", GGUF_UINT32, GGML_FILE_TYPE[wtype]),
        (f"{arch}.vocab_size", GGUF_UINT32, cfg["vocab_size"]),
        (f"{arch}.shortconv.l_cache", GGUF_UINT32, cfg["conv_L_cache"]),
        ("tokenizer.ggml.model", GGUF_STRING, "none"),
    ]
    names = {"conv.conv.weight": "shortconv.conv.weight", "conv.in_proj.weight": "shortconv.in_proj.weight",
             "conv.out_proj.weight": "shortconv.out_proj.weight", "feed_forward.w1.weight": "ffn_gate.weight",
             "feed_forward.w2.weight": "ffn_down.weight", "feed_forward.w3.weight": "ffn_up.weight",
             "ffn_norm.weight": "ffn_norm.weight", "operator_norm.weight": "attn_norm.weight",
             "self_attn.k_layernorm.weight": "attn_k_norm.weight", "self_attn.k_proj.weight": "attn_k.weight",
             "self_attn.out_proj.weight": "attn_output.weight",
             "self_attn.q_layernorm.weight": "attn_q_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
             "self_attn.v_proj.weight": "attn_v.weight"}
    top = {"model.embed_tokens.weight": "token_embd.weight", "model.embedding_norm.weight": "token_embd_norm.weight"}
    out = []
    for hf, arr in weights:
        if hf in top:
            out.append((top[hf], arr))
            continue
        _, _, layer, rest = hf.split(".", 3)
        if rest == "conv.conv.weight":
            arr = arr.reshape(arr.shape[0], arr.shape[2])
        out.append((f"blk.{layer}.{names[rest]}", arr))
    return kv, out


def granite_h_config(hidden, layers, attn_layers, heads, kv_heads, mamba_heads, mamba_d_head,
                     d_state, n_groups, d_conv, ffn, vocab):
    """config.json of a Granite 4.0-H checkpoint (GraniteMoeHybridForCausalLM with a
    dense shared MLP and no experts) with transformers' field names, as the shared
    tiny-granite-h-a writes them: Mamba-2 layers except `attn_layers`, no positional
    encoding, and that checkpoint's multipliers (embedding 3.0, attention 0.2,
    residual 0.7, logits divided by 1.5)."""
    return {"architectures": ["GraniteMoeHybridForCausalLM"], "attention_bias": False,
            "attention_dropout": 0.0, "attention_multiplier": 0.2, "bos_token_id": 1, "dtype": "float32",
            "embedding_multiplier": 3.0, "eos_token_id": 2, "hidden_act": "silu", "hidden_size": hidden,
            "initializer_range": 0.1, "intermediate_size": ffn,
            "layer_types": ["attention" if i in attn_layers else "mamba" for i in range(layers)],
            "logits_scaling": 1.5, "mamba_chunk_size": 256, "mamba_conv_bias": True, "mamba_d_conv": d_conv,
            "mamba_d_head": mamba_d_head, "mamba_d_state": d_state, "mamba_expand": 2,
            "mamba_n_groups": n_groups, "mamba_n_heads": mamba_heads, "mamba_proj_bias": False,
            "max_position_embeddings": 32768, "model_type": "granitemoehybrid",
            "normalization_function": "rmsnorm", "num_attention_heads": heads, "num_experts_per_tok": 0,
            "num_hidden_layers": layers, "num_key_value_heads": kv_heads, "num_local_experts": 0,
            "output_router_logits": False, "pad_token_id": 0, "position_embedding_type": "nope",
            "residual_multiplier": 0.7, "rms_norm_eps": 1e-5, "rope_scaling": None, "rope_theta": 10000.0,
            "router_aux_loss_coef": 0.01, "shared_intermediate_size": ffn, "tie_word_embeddings": True,
            "transformers_version": "4.56.0", "use_cache": True, "vocab_size": vocab}


def granite_h_weights(rng, cfg):
    """Granite 4.0-H weights in the transformers layout (tied head), each layer's
    tensors in name order as save_pretrained writes them. Mamba-2 mixers are
    initialised as mamba_ssm does (dt in [1e-3, 1e-1] through dt_bias = softplus^-1(dt),
    A_log = log U(1, 16), D = 1); in_proj yields z | xBC | dt with widths
    d_inner | d_inner + 2 G N | n_heads; shared_mlp.input_linear stacks gate over up.
    The embedding has std 1 / embedding_multiplier, so the residual stream starts
    at unit variance."""
    h, n = cfg["hidden_size"], cfg["num_hidden_layers"]
    hd = h // cfg["num_attention_heads"]
    kv = cfg["num_key_value_heads"] * hd
    nh, d_inner = cfg["mamba_n_heads"], cfg["mamba_expand"] * h
    conv_dim = d_inner + 2 * cfg["mamba_n_groups"] * cfg["mamba_d_state"]
    k, ff = cfg["mamba_d_conv"], cfg["shared_intermediate_size"]
    out_gain = 1.0 / np.sqrt(2 * n)
    emb = rng.standard_normal((cfg["vocab_size"], h), dtype=np.float32) / np.float32(cfg["embedding_multiplier"])
    t = [("model.embed_tokens.weight", emb)]
    for i, kind in enumerate(cfg["layer_types"]):
        p = f"model.layers.{i}."
        if kind == "mamba":
            dt = np.exp(rng.uniform(np.log(1e-3), np.log(1e-1), nh)).astype(np.float32)
            mix = [(p + "mamba.A_log", np.log(rng.uniform(1, 16, nh)).astype(np.float32)),
                   (p + "mamba.D", np.ones(nh, dtype=np.float32)),
                   (p + "mamba.conv1d.bias", (0.1 * rng.standard_normal(conv_dim)).astype(np.float32)),
                   (p + "mamba.conv1d.weight", _matrix(rng, conv_dim, k).reshape(conv_dim, 1, k)),
                   (p + "mamba.dt_bias", (dt + np.log(-np.expm1(-dt))).astype(np.float32)),
                   (p + "mamba.in_proj.weight", _matrix(rng, 2 * d_inner + 2 * cfg["mamba_n_groups"]
                                                        * cfg["mamba_d_state"] + nh, h)),
                   (p + "mamba.norm.weight", _norm_weight(rng, d_inner)),
                   (p + "mamba.out_proj.weight", _matrix(rng, h, d_inner, gain=out_gain))]
        else:
            mix = [(p + "self_attn.k_proj.weight", _matrix(rng, kv, h)),
                   (p + "self_attn.o_proj.weight", _matrix(rng, h, h, gain=out_gain)),
                   (p + "self_attn.q_proj.weight", _matrix(rng, h, h)),
                   (p + "self_attn.v_proj.weight", _matrix(rng, kv, h))]
        rest = [(p + "input_layernorm.weight", _norm_weight(rng, h)),
                (p + "post_attention_layernorm.weight", _norm_weight(rng, h)),
                (p + "shared_mlp.input_linear.weight", _matrix(rng, 2 * ff, h)),
                (p + "shared_mlp.output_linear.weight", _matrix(rng, h, ff, gain=out_gain))]
        t += sorted(mix + rest, key=lambda x: x[0])
    t.append(("model.norm.weight", np.ones(h, dtype=np.float32)))
    return t


def _rope_pairs_interleaved(w, n_head):
    """Rows of a q or k projection regrouped per head from rotate-half order
    (x_0..x_{d/2-1} | x_{d/2}..x_{d-1}) to interleaved pairs (x_0, x_{d/2}, x_1, ...),
    the order llama.cpp's converter writes Llama-family q/k in (Granite 4.0-H
    included, although with position_embedding_type "nope" nothing rotates)."""
    rows = w.shape[0]
    return w.reshape(n_head, 2, rows // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def granite_h_gguf(weights, cfg, wtype, name="ssm-opt synthetic granite-h"):
    """The GGUF metadata and tensors llama.cpp's "granitehybrid" architecture reads,
    in the layout of the shared tiny-granite-h-a/model-f32.gguf (llama.cpp's
    converter, key by key): per-layer attention.head_count_kv (0 = Mamba-2 layer),
    the multipliers as attention.scale / embedding_scale / residual_scale /
    logit_scale, ssm.time_step_rank = the number of Mamba heads,
    rope.scaling.finetuned false (no RoPE) and a context of 2^20; tensors: ssm_a =
    -exp(A_log) and ssm_d as (n_heads, 1), ssm_conv1d (C, K), ssm_norm (G, d_inner / G),
    dt_bias -> ssm_dt.bias, q/k rows regrouped by _rope_pairs_interleaved,
    shared_mlp.input_linear split into ffn_gate and ffn_up. A vocabulary of type
    "none" with vocab_size dummy tokens stands in for the tokenizer."""
    arch = "granitehybrid"
    attn = [k == "attention" for k in cfg["layer_types"]]
    hd = cfg["hidden_size"] // cfg["num_attention_heads"]
    kv = [
        ("general.architecture", GGUF_STRING, arch),
        ("general.name", GGUF_STRING, name),
        (f"{arch}.block_count", GGUF_UINT32, cfg["num_hidden_layers"]),
        (f"{arch}.context_length", GGUF_UINT32, 1 << 20),
        (f"{arch}.embedding_length", GGUF_UINT32, cfg["hidden_size"]),
        (f"{arch}.feed_forward_length", GGUF_UINT32, cfg["intermediate_size"]),
        (f"{arch}.attention.head_count", GGUF_UINT32, cfg["num_attention_heads"]),
        (f"{arch}.attention.head_count_kv", (GGUF_ARRAY, GGUF_INT32),
         [cfg["num_key_value_heads"] if a else 0 for a in attn]),
        (f"{arch}.rope.freq_base", GGUF_FLOAT32, cfg["rope_theta"]),
        (f"{arch}.attention.layer_norm_rms_epsilon", GGUF_FLOAT32, cfg["rms_norm_eps"]),
        (f"{arch}.expert_count", GGUF_UINT32, cfg["num_local_experts"]),
        (f"{arch}.expert_used_count", GGUF_UINT32, cfg["num_experts_per_tok"]),
        ("general.file_type", GGUF_UINT32, GGML_FILE_TYPE[wtype]),
        (f"{arch}.vocab_size", GGUF_UINT32, cfg["vocab_size"]),
        (f"{arch}.rope.dimension_count", GGUF_UINT32, hd),
        (f"{arch}.attention.scale", GGUF_FLOAT32, cfg["attention_multiplier"]),
        (f"{arch}.embedding_scale", GGUF_FLOAT32, cfg["embedding_multiplier"]),
        (f"{arch}.residual_scale", GGUF_FLOAT32, cfg["residual_multiplier"]),
        (f"{arch}.logit_scale", GGUF_FLOAT32, cfg["logits_scaling"]),
        (f"{arch}.expert_shared_feed_forward_length", GGUF_UINT32, cfg["shared_intermediate_size"]),
        (f"{arch}.ssm.conv_kernel", GGUF_UINT32, cfg["mamba_d_conv"]),
        (f"{arch}.ssm.state_size", GGUF_UINT32, cfg["mamba_d_state"]),
        (f"{arch}.ssm.group_count", GGUF_UINT32, cfg["mamba_n_groups"]),
        (f"{arch}.ssm.inner_size", GGUF_UINT32, cfg["mamba_expand"] * cfg["hidden_size"]),
        (f"{arch}.ssm.time_step_rank", GGUF_UINT32, cfg["mamba_n_heads"]),
        (f"{arch}.rope.scaling.finetuned", GGUF_BOOL, False),
        ("general.quantization_version", GGUF_UINT32, 2),
        ("tokenizer.ggml.model", GGUF_STRING, "none"),
    ]
    names = {"input_layernorm.weight": "attn_norm.weight", "post_attention_layernorm.weight": "ffn_norm.weight",
             "mamba.A_log": "ssm_a", "mamba.D": "ssm_d", "mamba.conv1d.bias": "ssm_conv1d.bias",
             "mamba.conv1d.weight": "ssm_conv1d.weight", "mamba.dt_bias": "ssm_dt.bias",
             "mamba.in_proj.weight": "ssm_in.weight", "mamba.norm.weight": "ssm_norm.weight",
             "mamba.out_proj.weight": "ssm_out.weight", "self_attn.k_proj.weight": "attn_k.weight",
             "self_attn.o_proj.weight": "attn_output.weight", "self_attn.q_proj.weight": "attn_q.weight",
             "self_attn.v_proj.weight": "attn_v.weight", "shared_mlp.output_linear.weight": "ffn_down.weight"}
    out = []
    for hf, arr in weights:
        if hf == "model.embed_tokens.weight":
            out.append(("token_embd.weight", arr))
            continue
        if hf == "model.norm.weight":
            out.append(("output_norm.weight", arr))
            continue
        _, _, layer, rest = hf.split(".", 3)
        p = f"blk.{layer}."
        if rest == "shared_mlp.input_linear.weight":
            gate, up = np.split(arr, 2, axis=0)
            out += [(p + "ffn_gate.weight", gate), (p + "ffn_up.weight", up)]
            continue
        if rest == "mamba.A_log":
            arr = (-np.exp(arr)).reshape(-1, 1)
        elif rest == "mamba.D":
            arr = arr.reshape(-1, 1)
        elif rest == "mamba.conv1d.weight":
            arr = arr.reshape(arr.shape[0], arr.shape[2])
        elif rest == "mamba.norm.weight":
            arr = arr.reshape(cfg["mamba_n_groups"], -1)
        elif rest == "self_attn.q_proj.weight":
            arr = _rope_pairs_interleaved(arr, cfg["num_attention_heads"])
        elif rest == "self_attn.k_proj.weight":
            arr = _rope_pairs_interleaved(arr, cfg["num_key_value_heads"])
        out.append((p + names[rest], arr))
    return kv, out


def qwen35_config(hidden, layers, interval, heads, kv_heads, head_dim, lin_k_heads, lin_v_heads,
                  lin_k_dim, lin_v_dim, conv, ffn, vocab, rotary_factor, theta, mrope_section):
    """config.json of a dense Qwen3.5 text checkpoint (Qwen3_5ForCausalLM, model_type
    qwen3_5_text) with transformers' field names, as the shared tiny-qwen35-a writes
    them: Gated DeltaNet layers, a gated attention layer every `interval` layers."""
    return {"architectures": ["Qwen3_5ForCausalLM"], "attention_bias": False, "attention_dropout": 0.0,
            "bos_token_id": None, "dtype": "float32", "eos_token_id": 0,
            "full_attention_interval": interval, "head_dim": head_dim, "hidden_act": "silu",
            "hidden_size": hidden, "initializer_range": 0.02, "intermediate_size": ffn,
            "layer_types": ["full_attention" if (i + 1) % interval == 0 else "linear_attention"
                            for i in range(layers)],
            "linear_conv_kernel_dim": conv, "linear_key_head_dim": lin_k_dim,
            "linear_num_key_heads": lin_k_heads, "linear_num_value_heads": lin_v_heads,
            "linear_value_head_dim": lin_v_dim, "max_position_embeddings": 262144,
            "model_type": "qwen3_5_text", "num_attention_heads": heads, "num_hidden_layers": layers,
            "num_key_value_heads": kv_heads, "pad_token_id": None, "rms_norm_eps": 1e-6,
            "rope_parameters": {"mrope_interleaved": True, "mrope_section": mrope_section,
                                "partial_rotary_factor": rotary_factor, "rope_theta": theta,
                                "rope_type": "default"},
            "tie_word_embeddings": True, "transformers_version": "5.2.0", "use_cache": True,
            "vocab_size": vocab}


def qwen35_weights(rng, cfg):
    """Qwen3.5 weights in the transformers layout (tied head), each layer's tensors in
    name order as save_pretrained writes them. RMSNorm weights are zero-centred (the
    model multiplies by 1 + w), except the Gated DeltaNet's linear_attn.norm; A_log =
    log U(1, 16) and dt_bias = 1 as transformers initialises them; in_proj_qkv yields
    q | k | v, q_proj query | gate per head."""
    h, n = cfg["hidden_size"], cfg["num_hidden_layers"]
    hd, nh, nkv = cfg["head_dim"], cfg["num_attention_heads"], cfg["num_key_value_heads"]
    nk, nv = cfg["linear_num_key_heads"], cfg["linear_num_value_heads"]
    dk, dv, k = cfg["linear_key_head_dim"], cfg["linear_value_head_dim"], cfg["linear_conv_kernel_dim"]
    cc, ff = 2 * nk * dk + nv * dv, cfg["intermediate_size"]
    out_gain = 1.0 / np.sqrt(2 * n)
    zc = lambda m: (0.1 * rng.standard_normal(m)).astype(np.float32)
    t = [("model.embed_tokens.weight", rng.standard_normal((cfg["vocab_size"], h), dtype=np.float32))]
    for i, kind in enumerate(cfg["layer_types"]):
        p = f"model.layers.{i}."
        if kind == "linear_attention":
            la = p + "linear_attn."
            mix = [(la + "A_log", np.log(rng.uniform(1, 16, nv)).astype(np.float32)),
                   (la + "conv1d.weight", _matrix(rng, cc, k).reshape(cc, 1, k)),
                   (la + "dt_bias", np.ones(nv, dtype=np.float32)),
                   (la + "in_proj_a.weight", _matrix(rng, nv, h)),
                   (la + "in_proj_b.weight", _matrix(rng, nv, h)),
                   (la + "in_proj_qkv.weight", _matrix(rng, cc, h)),
                   (la + "in_proj_z.weight", _matrix(rng, nv * dv, h)),
                   (la + "norm.weight", _norm_weight(rng, dv)),
                   (la + "out_proj.weight", _matrix(rng, h, nv * dv, gain=out_gain))]
        else:
            sa = p + "self_attn."
            mix = [(sa + "k_norm.weight", zc(hd)),
                   (sa + "k_proj.weight", _matrix(rng, nkv * hd, h)),
                   (sa + "o_proj.weight", _matrix(rng, h, nh * hd, gain=out_gain)),
                   (sa + "q_norm.weight", zc(hd)),
                   (sa + "q_proj.weight", _matrix(rng, 2 * nh * hd, h)),
                   (sa + "v_proj.weight", _matrix(rng, nkv * hd, h))]
        rest = [(p + "input_layernorm.weight", zc(h)),
                (p + "mlp.down_proj.weight", _matrix(rng, h, ff, gain=out_gain)),
                (p + "mlp.gate_proj.weight", _matrix(rng, ff, h)),
                (p + "mlp.up_proj.weight", _matrix(rng, ff, h)),
                (p + "post_attention_layernorm.weight", zc(h))]
        t += sorted(mix + rest, key=lambda x: x[0])
    t.append(("model.norm.weight", zc(h)))
    return t


def qwen35_gguf(weights, cfg, wtype, name="ssm-opt synthetic qwen35"):
    """The GGUF metadata and tensors llama.cpp's "qwen35" architecture reads, in the
    layout of the shared tiny-qwen35-a/model-f32.gguf (llama.cpp's Qwen3_5TextModel
    converter, key by key): ssm.state_size = linear_key_head_dim, ssm.group_count =
    key heads, ssm.time_step_rank = value heads, ssm.inner_size = value heads x
    value dim, rope.dimension_count = the rotary dims, rope.dimension_sections =
    mrope_section padded to 4; tensors: RMSNorm weights + 1 (the zero-centred ones),
    ssm_a = -exp(A_log), dt_bias -> ssm_dt.bias, ssm_conv1d squeezed to (C, K),
    in_proj_qkv -> attn_qkv, in_proj_z -> attn_gate, in_proj_a / _b -> ssm_alpha /
    ssm_beta, and with more value than key heads every value-head axis reordered from
    transformers' grouped order (key head i serves value heads i r .. i r + r - 1) to
    llama.cpp's tiled one (head i r + j at position j nk + i). A vocabulary of type "none" with vocab_size dummy tokens
    stands in for the tokenizer."""
    arch = "qwen35"
    nk, nv = cfg["linear_num_key_heads"], cfg["linear_num_value_heads"]
    dk, dv, r = cfg["linear_key_head_dim"], cfg["linear_value_head_dim"], nv // nk
    rp = cfg["rope_parameters"]
    rot = int(cfg["head_dim"] * rp["partial_rotary_factor"])
    sections = list(rp.get("mrope_section", [])) + [0] * (4 - len(rp.get("mrope_section", [])))
    interval = cfg.get("full_attention_interval", 4)
    kv = [
        ("general.architecture", GGUF_STRING, arch),
        ("general.name", GGUF_STRING, name),
        (f"{arch}.block_count", GGUF_UINT32, cfg["num_hidden_layers"]),
        (f"{arch}.context_length", GGUF_UINT32, cfg["max_position_embeddings"]),
        (f"{arch}.embedding_length", GGUF_UINT32, cfg["hidden_size"]),
        (f"{arch}.feed_forward_length", GGUF_UINT32, cfg["intermediate_size"]),
        (f"{arch}.attention.head_count", GGUF_UINT32, cfg["num_attention_heads"]),
        (f"{arch}.attention.head_count_kv", GGUF_UINT32, cfg["num_key_value_heads"]),
        (f"{arch}.rope.dimension_sections", (GGUF_ARRAY, GGUF_INT32), sections),
        (f"{arch}.rope.freq_base", GGUF_FLOAT32, rp["rope_theta"]),
        (f"{arch}.attention.layer_norm_rms_epsilon", GGUF_FLOAT32, cfg["rms_norm_eps"]),
        (f"{arch}.attention.key_length", GGUF_UINT32, cfg["head_dim"]),
        (f"{arch}.attention.value_length", GGUF_UINT32, cfg["head_dim"]),
        ("general.file_type", GGUF_UINT32, GGML_FILE_TYPE[wtype]),
        (f"{arch}.ssm.conv_kernel", GGUF_UINT32, cfg["linear_conv_kernel_dim"]),
        (f"{arch}.ssm.state_size", GGUF_UINT32, dk),
        (f"{arch}.ssm.group_count", GGUF_UINT32, nk),
        (f"{arch}.ssm.time_step_rank", GGUF_UINT32, nv),
        (f"{arch}.ssm.inner_size", GGUF_UINT32, nv * dv),
        (f"{arch}.full_attention_interval", GGUF_UINT32, interval),
        (f"{arch}.rope.dimension_count", GGUF_UINT32, rot),
        (f"{arch}.vocab_size", GGUF_UINT32, cfg["vocab_size"]),
        ("tokenizer.ggml.model", GGUF_STRING, "none"),
    ]

    def tiled(arr, axis, per_head):
        """The value-head axis `axis` (nv heads of per_head) from grouped to tiled order."""
        if r == 1:
            return arr
        a = np.moveaxis(arr, axis, 0)
        shape = a.shape
        a = a.reshape(nk, r, per_head, *shape[1:]).swapaxes(0, 1).reshape(shape)
        return np.ascontiguousarray(np.moveaxis(a, 0, axis))

    names = {"input_layernorm.weight": "attn_norm.weight",
             "post_attention_layernorm.weight": "post_attention_norm.weight",
             "mlp.down_proj.weight": "ffn_down.weight", "mlp.gate_proj.weight": "ffn_gate.weight",
             "mlp.up_proj.weight": "ffn_up.weight", "linear_attn.A_log": "ssm_a",
             "linear_attn.conv1d.weight": "ssm_conv1d.weight", "linear_attn.dt_bias": "ssm_dt.bias",
             "linear_attn.in_proj_a.weight": "ssm_alpha.weight",
             "linear_attn.in_proj_b.weight": "ssm_beta.weight",
             "linear_attn.in_proj_qkv.weight": "attn_qkv.weight",
             "linear_attn.in_proj_z.weight": "attn_gate.weight", "linear_attn.norm.weight": "ssm_norm.weight",
             "linear_attn.out_proj.weight": "ssm_out.weight", "self_attn.k_norm.weight": "attn_k_norm.weight",
             "self_attn.k_proj.weight": "attn_k.weight", "self_attn.o_proj.weight": "attn_output.weight",
             "self_attn.q_norm.weight": "attn_q_norm.weight", "self_attn.q_proj.weight": "attn_q.weight",
             "self_attn.v_proj.weight": "attn_v.weight"}
    plus_one = ("input_layernorm.weight", "post_attention_layernorm.weight", "self_attn.k_norm.weight",
                "self_attn.q_norm.weight")
    out = []
    for hf, arr in weights:
        if hf == "model.embed_tokens.weight":
            out.append(("token_embd.weight", arr))
            continue
        if hf == "model.norm.weight":
            out.append(("output_norm.weight", (arr + np.float32(1)).astype(np.float32)))
            continue
        _, _, layer, rest = hf.split(".", 3)
        if rest in plus_one:
            arr = (arr + np.float32(1)).astype(np.float32)
        elif rest == "linear_attn.A_log":
            arr = tiled((-np.exp(arr.astype(np.float64))).astype(np.float32), 0, 1)
        elif rest in ("linear_attn.dt_bias", "linear_attn.in_proj_a.weight", "linear_attn.in_proj_b.weight"):
            arr = tiled(arr, 0, 1)
        elif rest == "linear_attn.in_proj_z.weight":
            arr = tiled(arr, 0, dv)
        elif rest == "linear_attn.out_proj.weight":
            arr = tiled(arr, 1, dv)
        elif rest in ("linear_attn.in_proj_qkv.weight", "linear_attn.conv1d.weight"):
            if rest == "linear_attn.conv1d.weight":
                arr = arr.reshape(arr.shape[0], arr.shape[2])
            arr = np.concatenate([arr[:2 * nk * dk], tiled(arr[2 * nk * dk:], 0, dv)], axis=0)
        out.append((f"blk.{layer}.{names[rest]}", arr))
    return kv, out


def rwkv4_weights(rng, n_embed, n_layer, vocab):
    """RWKV-4 weights as rwkv.cpp stores them (time_decay already -exp(w))."""
    e, f = n_embed, 4 * n_embed
    t = [("emb.weight", (1e-2 * rng.standard_normal((vocab, e))).astype(np.float32))]
    for i in range(n_layer):
        p = f"blocks.{i}."
        ratio = i / max(1, n_layer - 1)
        if i == 0:
            t += [(p + "ln0.weight", np.ones(e, np.float32)), (p + "ln0.bias", np.zeros(e, np.float32))]
        decay = -5 + 8 * (np.arange(e) / max(1, e - 1)) ** (0.7 + 1.3 * ratio)
        t += [
            (p + "ln1.weight", np.ones(e, np.float32)), (p + "ln1.bias", np.zeros(e, np.float32)),
            (p + "ln2.weight", np.ones(e, np.float32)), (p + "ln2.bias", np.zeros(e, np.float32)),
            (p + "att.time_decay", (-np.exp(decay)).astype(np.float32)),
            (p + "att.time_first", (np.log(0.3) + 0.5 * rng.standard_normal(e)).astype(np.float32)),
            (p + "att.time_mix_k", rng.uniform(0, 1, e).astype(np.float32)),
            (p + "att.time_mix_v", rng.uniform(0, 1, e).astype(np.float32)),
            (p + "att.time_mix_r", rng.uniform(0, 1, e).astype(np.float32)),
            (p + "att.key.weight", _matrix(rng, e, e)),
            (p + "att.value.weight", _matrix(rng, e, e)),
            (p + "att.receptance.weight", _matrix(rng, e, e)),
            (p + "att.output.weight", _matrix(rng, e, e, gain=1.0 / np.sqrt(2 * n_layer))),
            (p + "ffn.time_mix_k", rng.uniform(0, 1, e).astype(np.float32)),
            (p + "ffn.time_mix_r", rng.uniform(0, 1, e).astype(np.float32)),
            (p + "ffn.key.weight", _matrix(rng, f, e)),
            (p + "ffn.receptance.weight", _matrix(rng, e, e)),
            (p + "ffn.value.weight", _matrix(rng, e, f, gain=1.0 / np.sqrt(2 * n_layer))),
        ]
    t += [("ln_out.weight", np.ones(e, np.float32)), ("ln_out.bias", np.zeros(e, np.float32)),
          ("head.weight", _matrix(rng, vocab, e))]
    return t


def rwkv7_weights(rng, n_embed, n_layer, vocab, head_size, ffn, ranks):
    """RWKV-7 ("Goose", x070) weights as rwkv.cpp stores them (its test model
    tiny-rwkv-7v0's names and layouts: x_rwkvag (6, 1, C) holds the six token-shift
    mixes r, w, k, v, a, g; the low-rank pairs w1 (r, C) / w2 (C, r), as rwkv.cpp's
    converter transposes PyTorch's; layer 0 has no value-residual pair v0 / v1 / v2).
    ranks: (decay, iclr, value-residual, gate). Initialised as the RWKV-7 reference
    code (BlinkDL/RWKV-LM, RWKV-v7) does, in scale: w0 a spread of decay speeds, k_k
    0.85, k_a 1, a0 0 (a = 0.5), v0 1, small random low-rank pairs and r_k."""
    C, H = n_embed, n_embed // head_size
    rw, ra, rv, rg = ranks
    f32 = np.float32
    t = [("emb.weight", (1e-2 * rng.standard_normal((vocab, C))).astype(f32))]
    for i in range(n_layer):
        p = f"blocks.{i}."
        ratio = i / max(1, n_layer - 1)
        if i == 0:
            t += [(p + "ln0.weight", np.ones(C, f32)), (p + "ln0.bias", np.zeros(C, f32))]
        n = np.arange(C) / max(1, C - 1)
        w0 = -7 + 5 * n ** (0.85 + ratio ** 0.5) + 0.5
        t += [(p + "ln1.weight", np.ones(C, f32)), (p + "ln1.bias", np.zeros(C, f32)),
              (p + "ln2.weight", np.ones(C, f32)), (p + "ln2.bias", np.zeros(C, f32)),
              (p + "att.x_rwkvag", rng.uniform(0, 1, (6, 1, C)).astype(f32))]
        pairs = [("w", rw, w0), ("a", ra, np.zeros(C)), ("v", rv, np.ones(C)), ("g", rg, None)]
        for m, r, zero in pairs:
            if m == "v" and i == 0:
                continue
            t += [(p + f"att.{m}1", _matrix(rng, r, C, gain=0.1)),
                  (p + f"att.{m}2", _matrix(rng, C, r, gain=0.1))]
            if zero is not None:
                t.append((p + f"att.{m}0", zero.astype(f32).reshape(1, 1, C)))
        t += [(p + "att.k_k", np.full((1, 1, C), 0.85, f32)),
              (p + "att.k_a", np.ones((1, 1, C), f32)),
              (p + "att.r_k", (0.1 * rng.standard_normal((H, head_size))).astype(f32)),
              (p + "att.receptance.weight", _matrix(rng, C, C)),
              (p + "att.key.weight", _matrix(rng, C, C)),
              (p + "att.value.weight", _matrix(rng, C, C)),
              (p + "att.output.weight", _matrix(rng, C, C, gain=1.0 / np.sqrt(2 * n_layer))),
              (p + "att.ln_x.weight", np.full(C, (1 + ratio) ** 0.7, f32)),
              (p + "att.ln_x.bias", np.zeros(C, f32)),
              (p + "ffn.x_k", rng.uniform(0, 1, (1, 1, C)).astype(f32)),
              (p + "ffn.key.weight", _matrix(rng, ffn, C)),
              (p + "ffn.value.weight", _matrix(rng, C, ffn, gain=1.0 / np.sqrt(2 * n_layer)))]
    t += [("ln_out.weight", np.ones(C, f32)), ("ln_out.bias", np.zeros(C, f32)),
          ("head.weight", _matrix(rng, vocab, C))]
    return t


def rwkv7_gguf(weights, n_embed, n_layer, vocab, head_size, ffn, ranks, wtype):
    """The same weights as llama.cpp's `rwkv7` GGUF (its converter's names and keys,
    as test/lit/Import/Inputs/gguf_tool.py's from-rwkv writes them for the tiny
    model: x_rwkvag -> time_mix_lerp_fused (C, 1, 1, 6), layer 0's v0 / v1 / v2
    copies of a0 / a1 / a2), with a placeholder "rwkv" vocabulary of `vocab` plain
    ASCII tokens (id 0 "<s>", a control token) so that llama.cpp's output matrix has
    its rows; the token ids the benchmark feeds mean nothing."""
    w = dict(weights)
    C, arch = n_embed, "rwkv7"
    rw, ra, rv, rg = ranks
    kv = [("general.architecture", GGUF_STRING, arch),
          ("general.name", GGUF_STRING, "ssm-opt synthetic rwkv7"),
          ("general.file_type", GGUF_UINT32, GGML_FILE_TYPE[wtype]),
          (f"{arch}.context_length", GGUF_UINT32, 1 << 20),
          (f"{arch}.embedding_length", GGUF_UINT32, C),
          (f"{arch}.block_count", GGUF_UINT32, n_layer),
          (f"{arch}.attention.layer_norm_epsilon", GGUF_FLOAT32, 1e-5),
          (f"{arch}.wkv.head_size", GGUF_UINT32, head_size),
          (f"{arch}.attention.decay_lora_rank", GGUF_UINT32, rw),
          (f"{arch}.attention.iclr_lora_rank", GGUF_UINT32, ra),
          (f"{arch}.attention.value_residual_mix_lora_rank", GGUF_UINT32, rv),
          (f"{arch}.attention.gate_lora_rank", GGUF_UINT32, rg),
          (f"{arch}.feed_forward_length", GGUF_UINT32, ffn),
          (f"{arch}.attention.head_count", GGUF_UINT32, 0),
          ("tokenizer.ggml.model", GGUF_STRING, "rwkv"),
          ("tokenizer.ggml.tokens", (GGUF_ARRAY, GGUF_STRING), ["<s>"] + [f"t{i}" for i in range(1, vocab)]),
          ("tokenizer.ggml.token_type", (GGUF_ARRAY, GGUF_INT32), [3] + [1] * (vocab - 1))]
    out = [("token_embd.weight", w["emb.weight"]),
           ("token_embd_norm.weight", w["blocks.0.ln0.weight"]),
           ("token_embd_norm.bias", w["blocks.0.ln0.bias"])]
    for l in range(n_layer):
        h, b = f"blocks.{l}.", f"blk.{l}."
        for x, y in (("ln1", "attn_norm"), ("ln2", "attn_norm_2"), ("att.ln_x", "time_mix_ln")):
            out += [(b + y + ".weight", w[h + x + ".weight"]), (b + y + ".bias", w[h + x + ".bias"])]
        out.append((b + "time_mix_lerp_fused.weight", w[h + "att.x_rwkvag"].reshape(6, 1, 1, C)))
        for m in "wavg":
            src = "a" if (m == "v" and l == 0) else m
            if m != "g":
                out.append((b + f"time_mix_{m}0.weight", w[h + f"att.{src}0"].reshape(C)))
            out += [(b + f"time_mix_{m}1.weight", w[h + f"att.{src}1"]),
                    (b + f"time_mix_{m}2.weight", w[h + f"att.{src}2"])]
        for m in ("k_k", "k_a", "r_k"):
            out.append((b + f"time_mix_{m}.weight", w[h + "att." + m].reshape(C)))
        for m in ("receptance", "key", "value", "output"):
            out.append((b + f"time_mix_{m}.weight", w[h + f"att.{m}.weight"]))
        out += [(b + "channel_mix_lerp_k.weight", w[h + "ffn.x_k"]),
                (b + "channel_mix_key.weight", w[h + "ffn.key.weight"]),
                (b + "channel_mix_value.weight", w[h + "ffn.value.weight"])]
    out += [("output_norm.weight", w["ln_out.weight"]), ("output_norm.bias", w["ln_out.bias"]),
            ("output.weight", w["head.weight"])]
    return kv, out


def _refuse_existing(path, force):
    if os.path.exists(path) and not force:
        sys.exit(f"synth_checkpoint: error: {path} exists (pass --force to overwrite it)")


def _layers_list(text):
    return [int(x) for x in text.split(",") if x]


def _write_hf(out_dir, cfg, weights, gguf_of, types, force):
    """config.json, model.safetensors and model-<type>.gguf (gguf_of(weights, cfg, type)
    gives its metadata and tensors) for each of `types` in out_dir."""
    outs = ["config.json", "model.safetensors"] + [f"model-{t}.gguf" for t in types]
    for o in outs:
        _refuse_existing(os.path.join(out_dir, o), force)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    write_safetensors(os.path.join(out_dir, "model.safetensors"), weights)
    for t in types:
        kv, tensors = gguf_of(weights, cfg, t)
        write_gguf(os.path.join(out_dir, f"model-{t}.gguf"), kv, tensors, t)
    print(f"wrote {', '.join(outs)} in {out_dir}: "
          f"{sum(x.size for _, x in weights) / 1e6:.1f}M parameters")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="kind", required=True)
    m = sub.add_parser("mamba", help="Mamba-1, Hugging Face layout (default mamba-130m shapes)")
    m.add_argument("out_dir")
    m.add_argument("--d-model", type=int, default=768)
    m.add_argument("--layers", type=int, default=24)
    m.add_argument("--vocab", type=int, default=50280)
    m.add_argument("--d-state", type=int, default=16)
    m.add_argument("--d-conv", type=int, default=4)
    m.add_argument("--expand", type=int, default=2)
    m.add_argument("--dt-rank", type=int, default=0, help="0: ceil(d_model / 16)")
    lf = sub.add_parser("lfm2", help="LFM2, Hugging Face layout (default LFM2-350M shapes)")
    lf.add_argument("out_dir")
    lf.add_argument("--hidden", type=int, default=1024)
    lf.add_argument("--layers", type=int, default=16)
    lf.add_argument("--attn-layers", type=_layers_list, default=[2, 5, 8, 10, 12, 14],
                    help="comma-separated indices of the attention layers (the rest are short-conv)")
    lf.add_argument("--heads", type=int, default=16)
    lf.add_argument("--kv-heads", type=int, default=8)
    lf.add_argument("--intermediate", type=int, default=6656,
                    help="intermediate_size (the SwiGLU width is 2/3 of it, rounded up to --multiple-of)")
    lf.add_argument("--multiple-of", type=int, default=256)
    lf.add_argument("--vocab", type=int, default=65536)
    lf.add_argument("--conv-l-cache", type=int, default=3)
    g = sub.add_parser("granite-h", help="Granite 4.0-H, Hugging Face layout (default Granite-4.0-H-350M-like shapes)")
    g.add_argument("out_dir")
    g.add_argument("--hidden", type=int, default=768)
    g.add_argument("--layers", type=int, default=32)
    g.add_argument("--attn-layers", type=_layers_list, default=[4, 12, 20, 28],
                   help="comma-separated indices of the attention layers (the rest are Mamba-2)")
    g.add_argument("--heads", type=int, default=12)
    g.add_argument("--kv-heads", type=int, default=4)
    g.add_argument("--mamba-heads", type=int, default=48)
    g.add_argument("--mamba-d-head", type=int, default=32)
    g.add_argument("--d-state", type=int, default=128)
    g.add_argument("--groups", type=int, default=1)
    g.add_argument("--d-conv", type=int, default=4)
    g.add_argument("--ffn", type=int, default=2048, help="shared_intermediate_size (= intermediate_size)")
    g.add_argument("--vocab", type=int, default=100352)
    qw = sub.add_parser("qwen35", help="Qwen3.5 dense text model, Hugging Face layout (default Qwen3.5-0.8B-like shapes)")
    qw.add_argument("out_dir")
    qw.add_argument("--hidden", type=int, default=1024)
    qw.add_argument("--layers", type=int, default=24)
    qw.add_argument("--interval", type=int, default=4, help="full_attention_interval: every N-th layer attends")
    qw.add_argument("--heads", type=int, default=8)
    qw.add_argument("--kv-heads", type=int, default=2)
    qw.add_argument("--head-dim", type=int, default=256)
    qw.add_argument("--lin-k-heads", type=int, default=16)
    qw.add_argument("--lin-v-heads", type=int, default=16)
    qw.add_argument("--lin-k-dim", type=int, default=128)
    qw.add_argument("--lin-v-dim", type=int, default=128)
    qw.add_argument("--conv", type=int, default=4)
    qw.add_argument("--ffn", type=int, default=3584)
    qw.add_argument("--vocab", type=int, default=248320)
    qw.add_argument("--rotary-factor", type=float, default=0.25)
    qw.add_argument("--theta", type=float, default=10000000.0)
    for p in (m, lf, g, qw):
        p.add_argument("--gguf", default="", help="comma-separated GGUF weight types to write too: f32,f16,bf16,q8_0")
    r = sub.add_parser("rwkv4", help="RWKV-4, rwkv.cpp format (default RWKV-4 169M shapes)")
    r.add_argument("out_file")
    r.add_argument("--embed", type=int, default=768)
    r.add_argument("--layers", type=int, default=12)
    r.add_argument("--vocab", type=int, default=50277)
    r.add_argument("--fp16", action="store_true", help="store the matrices as FP16")
    r7 = sub.add_parser("rwkv7", help="RWKV-7, rwkv.cpp format and llama.cpp's GGUF (default RWKV-7 0.1B shapes)")
    r7.add_argument("out_dir")
    r7.add_argument("--embed", type=int, default=768)
    r7.add_argument("--layers", type=int, default=12)
    r7.add_argument("--head-size", type=int, default=64)
    r7.add_argument("--ffn", type=int, default=0, help="0: 4 x --embed")
    r7.add_argument("--ranks", default="64,64,32,128",
                    help="low-rank sizes: decay, iclr (a), value residual, gate (RWKV-7 0.1B's)")
    r7.add_argument("--vocab", type=int, default=65536)
    r7.add_argument("--gguf", default="f32", help="comma-separated GGUF weight types to write too: f32,f16,bf16,q8_0")
    for p in (m, lf, g, qw, r, r7):
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--force", action="store_true", help="overwrite existing outputs")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)

    if a.kind == "rwkv4":
        _refuse_existing(a.out_file, a.force)
        w = rwkv4_weights(rng, a.embed, a.layers, a.vocab)
        write_rwkv_bin(a.out_file, a.vocab, a.embed, a.layers, w, a.fp16)
        print(f"wrote {a.out_file}: {sum(x.size for _, x in w) / 1e6:.1f}M parameters")
        return
    types = [t for t in a.gguf.split(",") if t]
    for t in types:
        if t not in GGML_FILE_TYPE:
            ap.error(f"unknown GGUF type '{t}' (expected f32, f16, bf16 or q8_0)")
    if a.kind == "rwkv7":
        ranks = tuple(int(x) for x in a.ranks.split(","))
        ffn = a.ffn or 4 * a.embed
        if len(ranks) != 4 or a.embed % a.head_size:
            ap.error("rwkv7: --ranks takes four sizes, --embed must be a multiple of --head-size")
        outs = ["model.bin"] + [f"model-{t}.gguf" for t in types]
        for o in outs:
            _refuse_existing(os.path.join(a.out_dir, o), a.force)
        os.makedirs(a.out_dir, exist_ok=True)
        w = rwkv7_weights(rng, a.embed, a.layers, a.vocab, a.head_size, ffn, ranks)
        write_rwkv_bin(os.path.join(a.out_dir, "model.bin"), a.vocab, a.embed, a.layers, w, False, version=101)
        for t in types:
            kv, tensors = rwkv7_gguf(w, a.embed, a.layers, a.vocab, a.head_size, ffn, ranks, t)
            write_gguf(os.path.join(a.out_dir, f"model-{t}.gguf"), kv, tensors, t)
        print(f"wrote {', '.join(outs)} in {a.out_dir}: {sum(x.size for _, x in w) / 1e6:.1f}M parameters")
        return
    if a.kind == "mamba":
        dt_rank = a.dt_rank or -(-a.d_model // 16)
        cfg = {"architectures": ["MambaForCausalLM"], "model_type": "mamba",
               "vocab_size": a.vocab, "hidden_size": a.d_model, "state_size": a.d_state,
               "num_hidden_layers": a.layers, "expand": a.expand,
               "intermediate_size": a.expand * a.d_model, "conv_kernel": a.d_conv,
               "time_step_rank": dt_rank, "layer_norm_epsilon": 1e-5, "use_bias": False,
               "use_conv_bias": True, "tie_word_embeddings": True, "residual_in_fp32": True}
        w = mamba_weights(rng, a.d_model, a.layers, a.vocab, a.d_state, a.d_conv, a.expand, dt_rank)
        _write_hf(a.out_dir, cfg, w, mamba_gguf, types, a.force)
    elif a.kind == "lfm2":
        if a.hidden % a.heads or any(not 0 <= i < a.layers for i in a.attn_layers):
            ap.error("lfm2: --hidden must be a multiple of --heads and --attn-layers within --layers")
        cfg = lfm2_config(a.hidden, a.layers, a.attn_layers, a.heads, a.kv_heads, a.intermediate,
                          a.multiple_of, a.vocab, a.conv_l_cache)
        _write_hf(a.out_dir, cfg, lfm2_weights(rng, cfg), lfm2_gguf, types, a.force)
    elif a.kind == "qwen35":
        if a.lin_v_heads % a.lin_k_heads or a.heads % a.kv_heads or a.layers < 1 or a.interval < 1:
            ap.error("qwen35: --lin-v-heads must be a multiple of --lin-k-heads, --heads of --kv-heads")
        rot = int(a.head_dim * a.rotary_factor)
        # M-RoPE sections as the real model splits its rotary pairs (11, 11, 10 of 32).
        # (for text positions the split has no effect; 1, 1, 0 for the tiny model's 2 pairs)
        half, part = rot // 2, round(rot // 2 * 11 / 32)
        sections = [part, part, half - 2 * part]
        cfg = qwen35_config(a.hidden, a.layers, a.interval, a.heads, a.kv_heads, a.head_dim, a.lin_k_heads,
                            a.lin_v_heads, a.lin_k_dim, a.lin_v_dim, a.conv, a.ffn, a.vocab, a.rotary_factor,
                            a.theta, sections)
        _write_hf(a.out_dir, cfg, qwen35_weights(rng, cfg), qwen35_gguf, types, a.force)
    else:
        if a.hidden % a.heads or 2 * a.hidden != a.mamba_heads * a.mamba_d_head or \
                any(not 0 <= i < a.layers for i in a.attn_layers):
            ap.error("granite-h: --hidden must be a multiple of --heads, --mamba-heads x --mamba-d-head "
                     "must be 2 x --hidden (expand 2, all llama.cpp supports), --attn-layers within --layers")
        cfg = granite_h_config(a.hidden, a.layers, a.attn_layers, a.heads, a.kv_heads, a.mamba_heads,
                               a.mamba_d_head, a.d_state, a.groups, a.d_conv, a.ffn, a.vocab)
        _write_hf(a.out_dir, cfg, granite_h_weights(rng, cfg), granite_h_gguf, types, a.force)


if __name__ == "__main__":
    main()
