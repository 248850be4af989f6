#!/usr/bin/env python3
"""batched_step_check.py SSM_RUN MODEL_DIR WORK_DIR [ENGINE [RTOL ATOL]]: @forward_step_batched
against B calls of @forward_step.

MODEL_DIR is an ssm-import output with model.json functions.step_batched (batch B) and
F32 weights. B streams get different tokens and different seeded states (uniform in
[-1, 1]); stream i runs through @forward_step alone, then all B at once through
@forward_step_batched (row i of the tokens and of each state). Every result row of the
batched call must equal stream i's result within RTOL relative + ATOL absolute (default
1e-5 and 1e-6: the same kernels in another summation order). A model whose batched form
runs other ops than its step (RWKV: the sequence form's scans with length 1 against the
step's written-out update) passes the compiled-vs-reference tolerance, 1e-4 and 1e-5.
Runs `ssm-run MODEL_DIR/model.mlir --function F` on ENGINE (default reference), the
weights given by name (ssm.param) from weights.safetensors. Prints one line per result
and PASS, or FAIL and exits 1. No NumPy needed.
"""
import ast
import json
import os
import random
import struct
import subprocess
import sys


def write_npy(path, shape, values, descr="<f4"):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0])
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * pad + "\n"
    fmt = "<%d%s" % (len(values), "f" if descr == "<f4" else "i")
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack(fmt, *values))


def write_raw_npy(path, shape, raw):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join("%d, " % d for d in shape) if len(shape) != 1 else "%d," % shape[0])
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(raw)


def read_npy(path):
    raw = open(path, "rb").read()
    if raw[6] == 1:
        hlen, start = struct.unpack("<H", raw[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", raw[8:12])[0], 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    body = raw[start + hlen:]
    return tuple(header["shape"]), struct.unpack("<%df" % (len(body) // 4), body)


def main():
    ssm_run, model_dir, work = sys.argv[1:4]
    engine = sys.argv[4] if len(sys.argv) > 4 else "reference"
    rtol = float(sys.argv[5]) if len(sys.argv) > 5 else 1e-5
    atol = float(sys.argv[6]) if len(sys.argv) > 6 else 1e-6
    os.makedirs(work, exist_ok=True)
    model = json.load(open(os.path.join(model_dir, "model.json")))
    batch = model["functions"]["step_batched"]["batch"]
    states = model["states"]

    # The weights, one .npy per tensor, given by ssm.param name.
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
    tokens = [(37 * i + 11) % vocab for i in range(batch)]
    values = [[[rng.uniform(-1, 1) for _ in range(_numel(s["shape"]))] for s in states]
              for _ in range(batch)]

    def run(function, inputs, out):
        cmd = [ssm_run, os.path.join(model_dir, "model.mlir"), "--function", function,
               "--engine", engine, "--output-dir", out, "--force"] + inputs + weight_args
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            sys.exit("%s failed (%d):\n%s" % (" ".join(cmd[:6]), r.returncode, r.stderr))

    for i in range(batch):
        inputs = []
        write_npy(os.path.join(work, "tok%d.npy" % i), [1], [tokens[i]], "<i4")
        inputs += ["--input", "tokens=" + os.path.join(work, "tok%d.npy" % i)]
        for k, s in enumerate(states):
            p = os.path.join(work, "s%d-%d.npy" % (i, k))
            write_npy(p, s["shape"], values[i][k])
            inputs += ["--input", "arg%d=%s" % (k + 1, p)]
        run("forward_step", inputs, os.path.join(work, "alone%d" % i))

    write_npy(os.path.join(work, "tokB.npy"), [batch], tokens, "<i4")
    inputs = ["--input", "tokens=" + os.path.join(work, "tokB.npy")]
    for k, s in enumerate(states):
        p = os.path.join(work, "sB-%d.npy" % k)
        write_npy(p, [batch] + s["shape"], [v for i in range(batch) for v in values[i][k]])
        inputs += ["--input", "arg%d=%s" % (k + 1, p)]
    run("forward_step_batched", inputs, os.path.join(work, "batched"))

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
            for a, g in zip(alone, got[i * row:(i + 1) * row]):
                err = abs(a - g)
                if not err <= atol + rtol * abs(a):
                    ok = False
                worst = max(worst, err)
        name = "logits" if r == 0 else states[r - 1]["name"]
        print("result%d %s: batch %d, max_abs_diff=%.3g" % (r, name, batch, worst))
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


if __name__ == "__main__":
    main()
