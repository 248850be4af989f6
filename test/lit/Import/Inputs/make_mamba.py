"""Writes a synthetic Hugging Face Mamba checkpoint (model.safetensors and
config.json) with seeded weights of sensible scale, for configurations the
tiny checkpoint in ../shared does not cover (biases, tied head, odd sizes,
more layers). Standard library only.

make_mamba.py OUT_DIR --hidden H --state N --layers L --conv W --dt-rank R
              [--vocab V] [--expand E] [--bias] [--no-conv-bias] [--tied] [--seed S]
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


tensors["backbone.embedding.weight"] = uniform([V, H], 1.0)
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

header, blobs, offset = {}, [], 0
for name, (shape, values) in tensors.items():
    blob = struct.pack("<%df" % len(values), *values)
    header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + len(blob)]}
    blobs.append(blob)
    offset += len(blob)
hj = json.dumps(header).encode()
hj += b" " * (-len(hj) % 8)
os.makedirs(a.out, exist_ok=True)
with open(os.path.join(a.out, "model.safetensors"), "wb") as f:
    f.write(struct.pack("<Q", len(hj)) + hj + b"".join(blobs))
config = {
    "architectures": ["MambaForCausalLM"], "model_type": "mamba", "vocab_size": V,
    "hidden_size": H, "state_size": N, "num_hidden_layers": a.layers, "expand": a.expand,
    "conv_kernel": W, "time_step_rank": R, "layer_norm_epsilon": 1e-5, "use_bias": a.bias,
    "use_conv_bias": not a.no_conv_bias, "tie_word_embeddings": a.tied,
    "residual_in_fp32": True,
}
with open(os.path.join(a.out, "config.json"), "w") as f:
    json.dump(config, f, indent=1)
