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

The GGUF and rwkv.cpp writers follow the published formats (ggml's docs/gguf.md,
rwkv.cpp's rwkv_file_format.inc); Q8_0 is blocks of 32 values along each row with
one f16 scale d = max|x| / 127 and q = round(x / d), as ggml defines it.

Usage: bench/synth_checkpoint.py mamba /tmp/mamba-130m --gguf f32,f16,q8_0
       bench/synth_checkpoint.py rwkv4 /tmp/rwkv4-169m.bin [--fp16]
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


GGUF_UINT32, GGUF_FLOAT32, GGUF_BOOL, GGUF_STRING = 4, 6, 7, 8
GGML_F32, GGML_F16, GGML_Q8_0, GGML_BF16 = 0, 1, 8, 30
# ggml's llama_ftype: MOSTLY_F16 1, MOSTLY_Q8_0 7, MOSTLY_BF16 32
GGML_FILE_TYPE = {"f32": 0, "f16": 1, "bf16": 32, "q8_0": 7}


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


def write_gguf(path, kv, tensors, wtype):
    """kv: list of (key, gguf type, value); tensors: list of (name, np.ndarray float32).
    Stored as llama.cpp's converter stores them: matrices named *.weight (but not
    norms or the conv1d filter) as `wtype` (f32|f16|bf16|q8_0), a matrix whose rows do
    not split into 32-blocks as F16 under q8_0, everything else as F32."""
    infos, datas, offset = [], [], 0
    for name, arr in tensors:
        arr = np.ascontiguousarray(arr, dtype=np.float32)
        matrix = (arr.ndim == 2 and name.endswith(".weight") and not name.endswith("_norm.weight")
                  and "ssm_conv1d" not in name)
        kind = wtype if matrix else "f32"
        if kind == "q8_0" and arr.shape[1] % 32:
            kind = "f16"
        if kind == "f16":
            ttype, data = GGML_F16, arr.astype(np.float16).tobytes()
        elif kind == "bf16":
            ttype, data = GGML_BF16, to_bf16_bytes(arr)
        elif kind == "q8_0":
            ttype, data = GGML_Q8_0, quantize_q8_0(arr)
        else:
            ttype, data = GGML_F32, arr.tobytes()
        dims = list(reversed(arr.shape))  # ggml lists the contiguous dimension first
        info = _gguf_str(name) + struct.pack("<I", len(dims))
        info += b"".join(struct.pack("<Q", d) for d in dims)
        info += struct.pack("<IQ", ttype, offset)
        infos.append(info)
        pad = -len(data) % 32
        datas.append(data + b"\0" * pad)
        offset += len(data) + pad
    body = b""
    for key, typ, val in kv:
        body += _gguf_str(key) + struct.pack("<I", typ)
        if typ == GGUF_UINT32:
            body += struct.pack("<I", val)
        elif typ == GGUF_FLOAT32:
            body += struct.pack("<f", val)
        elif typ == GGUF_BOOL:
            body += struct.pack("<B", 1 if val else 0)
        elif typ == GGUF_STRING:
            body += _gguf_str(val)
        else:
            raise ValueError(typ)
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kv)) + body + b"".join(infos)
    head += b"\0" * (-len(head) % 32)
    with open(path, "wb") as f:
        f.write(head)
        for d in datas:
            f.write(d)


def write_rwkv_bin(path, n_vocab, n_embed, n_layer, tensors, fp16):
    """rwkv.cpp file format version 100: 2-D matrices FP16 when fp16, vectors FP32."""
    with open(path, "wb") as f:
        f.write(struct.pack("<6I", 0x67676D66, 100, n_vocab, n_embed, n_layer, 1 if fp16 else 0))
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


def _refuse_existing(path, force):
    if os.path.exists(path) and not force:
        sys.exit(f"synth_checkpoint: error: {path} exists (pass --force to overwrite it)")


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
    m.add_argument("--gguf", default="", help="comma-separated GGUF weight types to write too: f32,f16,bf16,q8_0")
    r = sub.add_parser("rwkv4", help="RWKV-4, rwkv.cpp format (default RWKV-4 169M shapes)")
    r.add_argument("out_file")
    r.add_argument("--embed", type=int, default=768)
    r.add_argument("--layers", type=int, default=12)
    r.add_argument("--vocab", type=int, default=50277)
    r.add_argument("--fp16", action="store_true", help="store the matrices as FP16")
    for p in (m, r):
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--force", action="store_true", help="overwrite existing outputs")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)

    if a.kind == "mamba":
        dt_rank = a.dt_rank or -(-a.d_model // 16)
        types = [t for t in a.gguf.split(",") if t]
        for t in types:
            if t not in GGML_FILE_TYPE:
                ap.error(f"unknown GGUF type '{t}' (expected f32, f16, bf16 or q8_0)")
        outs = ["config.json", "model.safetensors"] + [f"model-{t}.gguf" for t in types]
        for o in outs:
            _refuse_existing(os.path.join(a.out_dir, o), a.force)
        os.makedirs(a.out_dir, exist_ok=True)
        cfg = {"architectures": ["MambaForCausalLM"], "model_type": "mamba",
               "vocab_size": a.vocab, "hidden_size": a.d_model, "state_size": a.d_state,
               "num_hidden_layers": a.layers, "expand": a.expand,
               "intermediate_size": a.expand * a.d_model, "conv_kernel": a.d_conv,
               "time_step_rank": dt_rank, "layer_norm_epsilon": 1e-5, "use_bias": False,
               "use_conv_bias": True, "tie_word_embeddings": True, "residual_in_fp32": True}
        w = mamba_weights(rng, a.d_model, a.layers, a.vocab, a.d_state, a.d_conv, a.expand, dt_rank)
        with open(os.path.join(a.out_dir, "config.json"), "w") as f:
            json.dump(cfg, f, indent=1)
        write_safetensors(os.path.join(a.out_dir, "model.safetensors"), w)
        for t in types:
            kv, tensors = mamba_gguf(w, cfg, t)
            write_gguf(os.path.join(a.out_dir, f"model-{t}.gguf"), kv, tensors, t)
        print(f"wrote {', '.join(outs)} in {a.out_dir}: "
              f"{sum(x.size for _, x in w) / 1e6:.1f}M parameters")
    else:
        _refuse_existing(a.out_file, a.force)
        w = rwkv4_weights(rng, a.embed, a.layers, a.vocab)
        write_rwkv_bin(a.out_file, a.vocab, a.embed, a.layers, w, a.fp16)
        print(f"wrote {a.out_file}: {sum(x.size for _, x in w) / 1e6:.1f}M parameters")


if __name__ == "__main__":
    main()
