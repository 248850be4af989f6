#!/usr/bin/env python3
"""Runs examples/s4d/s4d_stack.mlir in both forms and checks that they agree.

@sequence computes the whole sequence with FFT convolutions; @step is called once per
token with the per-layer complex states carried from call to call (the streaming form).
The outputs must agree within rtol 1e-4 / atol 1e-5 (f32: the convolution's FFT error
bound and the recurrence's rounding, both far below this), token by token.

Usage: stream_check.py BIN_DIR [--engine cpu|reference]   (python3 standard library only)
Exit status 0 when the two forms agree, 1 when they do not, 2 when a run fails.
"""
import argparse
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
GRAPH = os.path.join(HERE, "s4d_stack.mlir")
H, N2, L, LAYERS = 4, 8, 32, 2


def write_npy(path, shape, data):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join(f"{d}, " for d in shape) if len(shape) != 1 else f"{shape[0]},")
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack(f"<{len(data)}f", *data))


def read_npy(path):
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:6] == b"\x93NUMPY", path
    hlen = struct.unpack("<H", raw[8:10])[0]
    header = raw[10:10 + hlen].decode("latin1")
    assert "'<f4'" in header and "'fortran_order': False" in header, header
    body = raw[10 + hlen:]
    return list(struct.unpack(f"<{len(body) // 4}f", body))


def run(bin_dir, engine, function, inputs, out_dir, env):
    cmd = [os.path.join(bin_dir, "ssm-run"), GRAPH, "--function", function, "--engine", engine,
           "--output-dir", out_dir, "--force"]
    for p in inputs:
        cmd += ["--input", p]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        sys.exit(2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin_dir")
    ap.add_argument("--engine", default="cpu")
    a = ap.parse_args()
    env = dict(os.environ)
    tmp = tempfile.mkdtemp(prefix="ssm-s4d-")
    env.setdefault("SSM_CACHE_DIR", os.path.join(tmp, "cache"))
    rng = random.Random(7)
    # S4D-Lin parameters (s4d.py S4DKernel.__init__), per layer.
    params = []
    for l in range(LAYERS):
        p = {
            "log_dt": [rng.uniform(-0.5, 0.5) for _ in range(H)],
            "log_A_real": [math.log(0.5)] * (H * N2),
            "A_imag": [math.pi * n for _ in range(H) for n in range(N2)],
            "C": [rng.gauss(0, math.sqrt(0.5)) for _ in range(H * N2 * 2)],
            "D": [rng.gauss(0, 1) for _ in range(H)],
        }
        shapes = {"log_dt": [H], "log_A_real": [H, N2], "A_imag": [H, N2], "C": [H, N2, 2], "D": [H]}
        files = []
        for k in ("log_dt", "log_A_real", "A_imag", "C", "D"):
            path = os.path.join(tmp, f"l{l}_{k}.npy")
            write_npy(path, shapes[k], p[k])
            files.append(path)
        params.append(files)
    u = [rng.gauss(0, 1) for _ in range(H * L)]  # (1, H, L)
    u_path = os.path.join(tmp, "u.npy")
    write_npy(u_path, [1, H, L], u)

    seq_dir = os.path.join(tmp, "seq")
    run(a.bin_dir, a.engine, "sequence", [u_path] + [f for fs in params for f in fs], seq_dir, env)
    y_seq = read_npy(os.path.join(seq_dir, "result0.npy"))

    zeros = [0.0] * (H * N2)
    states = []
    for l in range(LAYERS):
        for part in ("re", "im"):
            path = os.path.join(tmp, f"state_l{l}_{part}_0.npy")
            write_npy(path, [1, H, N2], zeros)
            states.append(path)
    worst = 0.0
    for t in range(L):
        ut = os.path.join(tmp, f"u_{t}.npy")
        write_npy(ut, [1, H], [u[h * L + t] for h in range(H)])
        out = os.path.join(tmp, f"step_{t}")
        run(a.bin_dir, a.engine, "step", [ut] + states + [f for fs in params for f in fs], out, env)
        y_t = read_npy(os.path.join(out, "result0.npy"))
        states = [os.path.join(out, f"result{i + 1}.npy") for i in range(2 * LAYERS)]
        for h in range(H):
            want = y_seq[h * L + t]
            worst = max(worst, abs(y_t[h] - want) / (1e-5 + 1e-4 * abs(want)))
    print(f"s4d stream check: {LAYERS} layers, H={H}, N/2={N2}, L={L}, engine={a.engine}: "
          f"worst |step - sequence| / (1e-5 + 1e-4 |sequence|) = {worst:.3g} "
          f"{'PASS' if worst <= 1.0 else 'FAIL'}")
    return 0 if worst <= 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
