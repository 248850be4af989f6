"""st_shard.py CHECKPOINT_DIR OUT_DIR [--shards N]

Writes CHECKPOINT_DIR's model.safetensors as Hugging Face writes a large
checkpoint: N shard files model-0000i-of-0000N.safetensors (the tensors in
name order, split into N runs) and model.safetensors.index.json (metadata
total_size, weight_map tensor -> shard), with config.json and any
tokenizer*.json copied. Standard library only.
"""
import argparse
import json
import os
import shutil
import struct

p = argparse.ArgumentParser()
p.add_argument("src")
p.add_argument("out")
p.add_argument("--shards", type=int, default=2)
a = p.parse_args()

os.makedirs(a.out, exist_ok=True)
for f in os.listdir(a.src):
    if f == "config.json" or f.startswith("tokenizer"):
        shutil.copy(os.path.join(a.src, f), a.out)
raw = open(os.path.join(a.src, "model.safetensors"), "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
names = sorted(k for k in header if k != "__metadata__")
runs = [names[i * len(names) // a.shards:(i + 1) * len(names) // a.shards] for i in range(a.shards)]
weight_map = {}
for i, run in enumerate(runs):
    name = "model-%05d-of-%05d.safetensors" % (i + 1, a.shards)
    h, blob = {}, b""
    for k in run:
        begin, end = header[k]["data_offsets"]
        h[k] = {"dtype": header[k]["dtype"], "shape": header[k]["shape"],
                "data_offsets": [len(blob), len(blob) + end - begin]}
        blob += data[begin:end]
        weight_map[k] = name
    text = json.dumps(h).encode()
    text += b" " * (-len(text) % 8)
    open(os.path.join(a.out, name), "wb").write(struct.pack("<Q", len(text)) + text + blob)
json.dump({"metadata": {"total_size": len(data)}, "weight_map": weight_map},
          open(os.path.join(a.out, "model.safetensors.index.json"), "w"), indent=2)
