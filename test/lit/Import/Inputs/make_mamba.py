"""Writes a synthetic Mamba-1 checkpoint (model.safetensors and config.json)
with seeded weights of sensible scale, for configurations the tiny
checkpoint in ../shared does not cover (biases, tied head, odd sizes, more
layers), in either layout and in F32, F16 or BF16. Standard library only.

make_mamba.py OUT_DIR --hidden H --state N --layers L --conv W --dt-rank R
              [--vocab V] [--expand E] [--bias] [--no-conv-bias] [--tied] [--seed S]
              [--layout transformers|mamba_ssm] [--dtype f32|f16|bf16]
              [--round f16|bf16] [--pad-vocab M]

--layout: transformers (MambaForCausalLM: backbone.embeddings.weight and a
MambaConfig config.json) or mamba_ssm (MambaLMHeadModel:
backbone.embedding.weight and a config.json with d_model, n_layer, ssm_cfg).
The same seed gives the same weights in every layout and dtype. --dtype
stores them in that precision (rounded to nearest even); --round keeps F32
storage but rounds the values as --dtype would, so an F32 file with the
values a half-precision file holds can be written. --pad-vocab (mamba_ssm):
the config says vocab_size V - (some) and pad_vocab_size_multiple M, so V
must be a multiple of M.
"""
import argparse
import json
import math
import os
import random
import struct

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--hidden", type=int, required=True)
p.add_argument("--state", type=int, required=True)
p.add_argument("--layers", type=int, required=True)
p.add_argument("--conv", type=int, required=True)
p.add_argument("--dt-rank", type=int, required=True)
p.add_argument("--vocab", type=int, default=256)
p.add_argument("--expand", type=int, default=2)
p.add_argument("--bias", action="store_true")
p.add_argument("--no-conv-bias", action="store_true")
p.add_argument("--tied", action="store_true")
p.add_argument("--seed", type=int, default=0)
p.add_argument("--layout", choices=["transformers", "mamba_ssm"], default="transformers")
p.add_argument("--dtype", choices=["f32", "f16", "bf16"], default="f32")
p.add_argument("--round", choices=["f16", "bf16"])
p.add_argument("--pad-vocab", type=int, default=0)
a = p.parse_args()
rng = random.Random(a.seed)
H, N, W, R, V = a.hidden, a.state, a.conv, a.dt_rank, a.vocab
DI = a.expand * H
tensors = {}


def uniform(shape, scale, offset=0.0):
    n = 1
    for d in shape:
        n *= d
    return shape, [offset + scale * (2 * rng.random() - 1) for _ in range(n)]


def linear(out_f, in_f):
    return uniform([out_f, in_f], 1.0 / math.sqrt(in_f))


emb = "backbone.embeddings.weight" if a.layout == "transformers" else "backbone.embedding.weight"
tensors[emb] = uniform([V, H], 1.0)
for l in range(a.layers):
    pre = "backbone.layers.%d." % l
    m = pre + "mixer."
    tensors[pre + "norm.weight"] = uniform([H], 0.2, 1.0)
    tensors[m + "in_proj.weight"] = linear(2 * DI, H)
    if a.bias:
        tensors[m + "in_proj.bias"] = uniform([2 * DI], 0.1)
    tensors[m + "conv1d.weight"] = uniform([DI, 1, W], 1.0 / math.sqrt(W))
    if not a.no_conv_bias:
        tensors[m + "conv1d.bias"] = uniform([DI], 0.1)
    tensors[m + "x_proj.weight"] = linear(R + 2 * N, DI)
    tensors[m + "dt_proj.weight"] = linear(DI, R)
    tensors[m + "dt_proj.bias"] = uniform([DI], 1.0, -3.0)
    # A_log = log(1..N) per channel, as Mamba initialises it, jittered.
    tensors[m + "A_log"] = ([DI, N], [math.log(n + 1) + 0.1 * (2 * rng.random() - 1)
                                      for _ in range(DI) for n in range(N)])
    tensors[m + "D"] = uniform([DI], 0.5, 1.0)
    tensors[m + "out_proj.weight"] = linear(H, DI)
    if a.bias:
        tensors[m + "out_proj.bias"] = uniform([H], 0.1)
tensors["backbone.norm_f.weight"] = uniform([H], 0.2, 1.0)
if not a.tied:
    tensors["lm_head.weight"] = linear(V, H)



def f16_bits(v):
    return struct.unpack("<H", struct.pack("<e", v))[0]  # rounds to nearest even


def bf16_bits(v):
    u = struct.unpack("<I", struct.pack("<f", v))[0]
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF  # nearest even (finite values)


def rounded(v, kind):
    if kind == "f16":
        return struct.unpack("<e", struct.pack("<e", v))[0]
    return struct.unpack("<f", struct.pack("<I", bf16_bits(v) << 16))[0]


header, blobs, offset = {}, [], 0
for name, (shape, values) in tensors.items():
    values = [struct.unpack("<f", struct.pack("<f", v))[0] for v in values]  # as float32
    if a.round:
        values = [rounded(v, a.round) for v in values]
    if a.dtype == "f32":
        blob = struct.pack("<%df" % len(values), *values)
    elif a.dtype == "f16":
        blob = struct.pack("<%dH" % len(values), *[f16_bits(v) for v in values])
    else:
        blob = struct.pack("<%dH" % len(values), *[bf16_bits(v) for v in values])
    header[name] = {"dtype": a.dtype.upper(), "shape": shape,
                    "data_offsets": [offset, offset + len(blob)]}
    blobs.append(blob)
    offset += len(blob)
hj = json.dumps(header).encode()
hj += b" " * (-len(hj) % 8)
os.makedirs(a.out, exist_ok=True)
with open(os.path.join(a.out, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(hj)) + hj + b"".join(blobs))
if a.layout == "transformers":
    config = {
        "architectures": ["MambaForCausalLM"], "model_type": "mamba", "vocab_size": V,
        "hidden_size": H, "state_size": N, "num_hidden_layers": a.layers, "expand": a.expand,
        "conv_kernel": W, "time_step_rank": R, "layer_norm_epsilon": 1e-5, "use_bias": a.bias,
        "use_conv_bias": not a.no_conv_bias, "tie_word_embeddings": a.tied,
        "residual_in_fp32": True,
    }
else:
    # mamba_ssm's MambaConfig; the mixer's settings in ssm_cfg.
    pad = a.pad_vocab or 8
    if V % pad:
        raise SystemExit("--vocab must be a multiple of --pad-vocab")
    config = {
        "d_model": H, "d_intermediate": 0, "n_layer": a.layers,
        "vocab_size": V - (pad // 2 if a.pad_vocab else 0),
        "ssm_cfg": {"layer": "Mamba1", "d_state": N, "d_conv": W, "expand": a.expand,
                    "dt_rank": R, "conv_bias": not a.no_conv_bias, "bias": a.bias},
        "attn_layer_idx": [], "attn_cfg": {}, "rms_norm": True, "residual_in_fp32": True,
        "fused_add_norm": True, "pad_vocab_size_multiple": pad, "tie_embeddings": a.tied,
    }
with open(os.path.join(a.out, "config.json"), "w") as f:
    json.dump(config, f, indent=1)
