#!/usr/bin/env python3
"""batched_sequence_check.py SSM_RUN MODEL_DIR WORK_DIR [ENGINE [RTOL ATOL]]: @forward_sequence_batched
against B calls of @forward_sequence.

MODEL_DIR is an ssm-import output with model.json functions.sequence_batched (batch B),
seq_len L and F32 weights. B streams get different tokens, different seeded states
(uniform in [-1, 1]) and, when the model takes a position (KV caches), different
positions (3 i + 1); stream i runs its L tokens through @forward_sequence alone, then all
B at once through @forward_sequence_batched (tokens i*L .. of the batch, row i of each
state and of the position). Every result row of the batched call (stream i's last
logits, its new states, caches whole) must equal stream i's result within ATOL + RTOL x
the largest magnitude of that result of stream i (default 1e-6 and 1e-5: the compiled
kernels sum in another order for B*L rows than for L; on the tiny LFM2 both are within
1.6e-5 of the reference interpreter's logits, whose magnitude is 13). Runs `ssm-run MODEL_DIR/model.mlir --function F`
on ENGINE (default reference). Prints one line per result and PASS, or FAIL and exits 1.
"""
import json
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batched_step_check import write_npy, write_raw_npy, read_npy, _numel  # noqa: E402


def main():
    ssm_run, model_dir, work = sys.argv[1:4]
    engine = sys.argv[4] if len(sys.argv) > 4 else "reference"
    rtol = float(sys.argv[5]) if len(sys.argv) > 5 else 1e-5
    atol = float(sys.argv[6]) if len(sys.argv) > 6 else 1e-6
    os.makedirs(work, exist_ok=True)
    model = json.load(open(os.path.join(model_dir, "model.json")))
    batch = model["functions"]["sequence_batched"]["batch"]
    states = model["states"]
    with open(os.path.join(model_dir, "model.mlir")) as f:
        text = f.read()
    takes_position = '{ssm.name = "position"}' in text
    # L: model.json's seq_len, or (RWKV folders have none) the batched
    # function's tokens, B*L of them.
    if "seq_len" in model:
        length = model["seq_len"]
    else:
        m = re.search(r"func\.func @forward_sequence_batched\(%tokens: tensor<(\d+)xi32>", text)
        if not m:
            sys.exit("%s: no @forward_sequence_batched(%%tokens: tensor<Nxi32> ...)" % model_dir)
        length = int(m.group(1)) // batch

    import struct
    raw = open(os.path.join(model_dir, "weights.safetensors"), "rb").read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    weight_args = []
    for name, t in header.items():
        if name == "__metadata__":
            continue
        if t["dtype"] != "F32":
            sys.exit("%s: %s is %s; this check reads F32 weights" % (model_dir, name, t["dtype"]))
        b, e = t["data_offsets"]
        path = os.path.join(work, "w-%s.npy" % name)
        write_raw_npy(path, t["shape"], raw[8 + n + b:8 + n + e])
        weight_args += ["--input", "%s=%s" % (name, path)]

    rng = random.Random(7)
    vocab = model["config"].get("vocab_size", model["config"].get("n_vocab"))
    tokens = [[(37 * (i * length + t) + 11) % vocab for t in range(length)] for i in range(batch)]
    positions = [3 * i + 1 for i in range(batch)]
    values = [[[rng.uniform(-1, 1) for _ in range(_numel(s["shape"]))] for s in states]
              for _ in range(batch)]
    first_state = 2 if takes_position else 1

    def run(function, inputs, out):
        cmd = [ssm_run, os.path.join(model_dir, "model.mlir"), "--function", function,
               "--engine", engine, "--output-dir", out, "--force"] + inputs + weight_args
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit("%s failed (%d):\n%s" % (" ".join(cmd[:6]), r.returncode, r.stderr))

    for i in range(batch):
        write_npy(os.path.join(work, "tok%d.npy" % i), [length], tokens[i], "<i4")
        inputs = ["--input", "tokens=" + os.path.join(work, "tok%d.npy" % i)]
        if takes_position:
            write_npy(os.path.join(work, "pos%d.npy" % i), [1], [positions[i]], "<i4")
            inputs += ["--input", "position=" + os.path.join(work, "pos%d.npy" % i)]
        for k, s in enumerate(states):
            p = os.path.join(work, "s%d-%d.npy" % (i, k))
            write_npy(p, s["shape"], values[i][k])
            inputs += ["--input", "arg%d=%s" % (k + first_state, p)]
        run("forward_sequence", inputs, os.path.join(work, "alone%d" % i))

    write_npy(os.path.join(work, "tokB.npy"), [batch * length], [t for ts in tokens for t in ts], "<i4")
    inputs = ["--input", "tokens=" + os.path.join(work, "tokB.npy")]
    if takes_position:
        write_npy(os.path.join(work, "posB.npy"), [batch], positions, "<i4")
        inputs += ["--input", "position=" + os.path.join(work, "posB.npy")]
    for k, s in enumerate(states):
        p = os.path.join(work, "sB-%d.npy" % k)
        write_npy(p, [batch] + s["shape"], [v for i in range(batch) for v in values[i][k]])
        inputs += ["--input", "arg%d=%s" % (k + first_state, p)]
    run("forward_sequence_batched", inputs, os.path.join(work, "batched"))

    ok = True
    for r in range(1 + len(states)):
        shape, got = read_npy(os.path.join(work, "batched", "result%d.npy" % r))
        if shape[0] != batch:
            print("result%d: shape %s, not (%d, ...) FAIL" % (r, shape, batch))
            ok = False
            continue
        row = len(got) // batch
        worst = 0.0
        for i in range(batch):
            ashape, alone = read_npy(os.path.join(work, "alone%d" % i, "result%d.npy" % r))
            if len(alone) != row:
                print("result%d: %d values per row, alone %s FAIL" % (r, row, ashape))
                ok = False
                break
            scale = max(abs(a) for a in alone)
            for a, g in zip(alone, got[i * row:(i + 1) * row]):
                err = abs(a - g)
                if not err <= atol + rtol * scale:
                    ok = False
                worst = max(worst, err)
        name = "logits" if r == 0 else states[r - 1]["name"]
        print("result%d %s: batch %d, max_abs_diff=%.3g" % (r, name, batch, worst))
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
