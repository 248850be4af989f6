#!/usr/bin/python3
"""ssm-opt CPU benchmarks against PyTorch eager, in one run, same shapes and threads.

For each case: our compiled kernel (ssm-run --engine cpu --repeat) and the
PyTorch peer (bench/torch_peer.py) alternate `--rounds` times; each reports a
median over `--repeat` calls; the table shows the median of those medians and
the ratio torch / ours. The floor row estimates the compute bound of the scan:
a kernel that does only the scan's exp work (sum_n exp(dt * A) per token and
channel, no recurrence, nothing stored), compiled by the same compiler.

Usage: bench/run.py [--threads 2] [--rounds 3] [--repeat 20] [--only NAME] [--engine cpu|cuda|opencl] [--target T] [--device cpu|cuda] [--mamba-ssm]
  --engine cuda --device cuda: our GPU kernels against torch on the same GPU
  (scripts/gpu-check.sh), with batch-8 scans added and no floor row.
Needs build/bin/ssm-run (scripts/build.sh) and Debian's python3-torch.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SSM_RUN = os.path.join(ROOT, "build", "bin", "ssm-run")
PEER = os.path.join(ROOT, "bench", "torch_peer.py")


def t(*shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


def scan_mlir(b, d, n, L, time_major):
    seq = t(b, L, d) if time_major else t(b, d, L)
    bc = t(b, L, n) if time_major else t(b, n, L)
    layout = "time_major" if time_major else "channel_major"
    return f"""func.func @main(%u: {seq}, %dt: {seq}, %A: {t(d, n)}, %B: {bc}, %C: {bc}, %D: {t(d)}, %z: {seq}, %bias: {t(d)}) -> ({seq}, {t(b, d, n)}) {{
  %y, %h = ssm.selective_scan {layout} %u, %dt, %A, %B, %C D(%D) z(%z) delta_bias(%bias) {{delta_softplus}}
      : ({seq}, {seq}, {t(d, n)}, {bc}, {bc}, {t(d)}, {seq}, {t(d)}) -> ({seq}, {t(b, d, n)})
  return %y, %h : {seq}, {t(b, d, n)}
}}
"""


def decode_mlir(b, d, n):
    return f"""func.func @main(%s: {t(b, d, n)}, %x: {t(b, d)}, %dt: {t(b, d)}, %A: {t(d, n)}, %B: {t(b, n)}, %C: {t(b, n)}, %D: {t(d)}, %z: {t(b, d)}, %bias: {t(d)}) -> ({t(b, d)}, {t(b, d, n)}) {{
  %y, %s2 = ssm.selective_update %s, %x, %dt, %A, %B, %C D(%D) z(%z) dt_bias(%bias) {{dt_softplus}}
      : ({t(b, d, n)}, {t(b, d)}, {t(b, d)}, {t(d, n)}, {t(b, n)}, {t(b, n)}, {t(d)}, {t(b, d)}, {t(d)}) -> ({t(b, d)}, {t(b, d, n)})
  return %y, %s2 : {t(b, d)}, {t(b, d, n)}
}}
"""


def conv_mlir(b, d, L, w):
    return f"""func.func @main(%x: {t(b, d, L)}, %w: {t(d, w)}, %bias: {t(d)}) -> {t(b, d, L)} {{
  %o, %s = ssm.causal_conv1d silu %x, %w bias(%bias) : ({t(b, d, L)}, {t(d, w)}, {t(d)}) -> ({t(b, d, L)}, {t(b, d, w - 1)})
  return %o : {t(b, d, L)}
}}
"""


def ssd_mlir(b, L, h, p, n, chunk):
    return f"""func.func @main(%X: {t(b, L, h, p)}, %A: {t(b, L, h)}, %B: {t(b, L, h, n)}, %C: {t(b, L, h, n)}) -> ({t(b, L, h, p)}, {t(b, h, p, n)}) {{
  %y, %s = ssm.ssd_scan %X, %A, %B, %C {{chunk_size = {chunk}}} : ({t(b, L, h, p)}, {t(b, L, h)}, {t(b, L, h, n)}, {t(b, L, h, n)}) -> ({t(b, L, h, p)}, {t(b, h, p, n)})
  return %y, %s : {t(b, L, h, p)}, {t(b, h, p, n)}
}}
"""


def exp_floor_mlir(d, n, L):
    # The scan's exp work alone: sum_n exp(dt[t, d] * A[d, n]), A stored
    # (n, d) so that the vectorised channel dim is contiguous everywhere.
    return f"""#tdn_td = affine_map<(t, d, n) -> (t, d)>
#tdn_dn = affine_map<(t, d, n) -> (n, d)>
func.func @main(%dt: {t(L, d)}, %A: {t(n, d)}) -> {t(L, d)} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {t(L, d)}
  %f = linalg.fill ins(%zero : f32) outs(%e : {t(L, d)}) -> {t(L, d)}
  %r = linalg.generic {{indexing_maps = [#tdn_td, #tdn_dn, #tdn_td], iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%dt, %A : {t(L, d)}, {t(n, d)}) outs(%f : {t(L, d)}) {{
  ^bb0(%x: f32, %a: f32, %acc: f32):
    %m = arith.mulf %x, %a : f32
    %ex = math.exp %m : f32
    %s = arith.addf %acc, %ex : f32
    linalg.yield %s : f32
  }} -> {t(L, d)}
  return %r : {t(L, d)}
}}
"""


CASES = [
    # name, our MLIR, torch peer args
    ("scan time-major b1 d1536 n16 L512", scan_mlir(1, 1536, 16, 512, True), ["scan_time_major", "--length", "512"]),
    ("scan time-major b1 d1536 n16 L2048", scan_mlir(1, 1536, 16, 2048, True), ["scan_time_major", "--length", "2048"]),
    ("scan channel-major b1 d1536 n16 L512", scan_mlir(1, 1536, 16, 512, False), ["scan_channel_major", "--length", "512"]),
    ("decode step b1 d1536 n16", decode_mlir(1, 1536, 16), ["decode"]),
    ("causal conv1d b1 d1536 w4 L512", conv_mlir(1, 1536, 512, 4), ["conv1d", "--length", "512"]),
    ("ssd b1 h48 p64 n128 L512", ssd_mlir(1, 512, 48, 64, 128, 64), ["ssd", "--dstate", "128", "--length", "512", "--chunk", "64"]),
]

# Added for GPU engines: the batch-8 scans.
GPU_CASES = [
    ("scan time-major b8 d1536 n16 L512", scan_mlir(8, 1536, 16, 512, True), ["scan_time_major", "--length", "512", "--batch", "8"]),
    ("scan time-major b8 d1536 n16 L2048", scan_mlir(8, 1536, 16, 2048, True), ["scan_time_major", "--length", "2048", "--batch", "8"]),
]

# --mamba-ssm: the peer is mamba_ssm's fused kernel (the same math, channel-major).
MAMBA_SSM_CASES = [
    (f"scan channel-major b{b} d1536 n16 L{L} vs mamba_ssm", scan_mlir(b, 1536, 16, L, False),
     ["mamba_ssm_scan", "--length", str(L), "--batch", str(b)])
    for b in (1, 8) for L in (512, 2048)
]


def median_ms(cmd, env=None):
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    m = re.search(r"median_ms=([0-9.eE+-]+)", out.stdout)
    if out.returncode != 0 or not m:
        sys.stderr.write(out.stdout + out.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--only", default="")
    ap.add_argument("--engine", default="cpu")
    ap.add_argument("--target", default="")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--mamba-ssm", action="store_true",
                    help="also our channel-major scans against mamba_ssm's CUDA kernel")
    a = ap.parse_args()
    env = dict(os.environ)
    env.setdefault("SSM_CACHE_DIR", os.path.join(ROOT, "build", "compile-cache"))
    tmp = tempfile.mkdtemp(prefix="ssm-bench-")
    print(f"threads={a.threads} rounds={a.rounds} repeat={a.repeat} (medians of per-round medians, ms)")
    print(f"{'case':42} {'ssm-opt':>10} {'torch':>10} {'torch/ours':>10}")
    all_cases = CASES + (GPU_CASES if a.engine != "cpu" else []) + (MAMBA_SSM_CASES if a.mamba_ssm else [])
    cases = [c for c in all_cases if a.only in c[0]]
    for name, mlir, peer in cases:
        path = os.path.join(tmp, re.sub(r"[^a-z0-9]+", "_", name) + ".mlir")
        with open(path, "w") as f:
            f.write(mlir)
        ours_cmd = [SSM_RUN, path, "--seed", "0", "--engine", a.engine, "--threads", str(a.threads), "--repeat", str(a.repeat)]
        if a.target:
            ours_cmd += ["--target", a.target]
        peer_repeat = a.repeat if "decode" in name or "conv" in name else max(3, a.repeat // 5)
        peer_cmd = [sys.executable, PEER, *peer, "--threads", str(a.threads), "--repeat", str(peer_repeat),
                    "--device", a.device]
        ours, theirs = [], []
        for _ in range(a.rounds):
            ours.append(median_ms(ours_cmd, env))
            theirs.append(median_ms(peer_cmd, env))
        o, p = statistics.median(ours), statistics.median(theirs)
        print(f"{name:42} {o:10.4f} {p:10.4f} {p / o:10.1f}x", flush=True)
        if a.engine == "cpu" and name.startswith("scan time-major") and "L512" in name:
            fpath = os.path.join(tmp, "exp_floor.mlir")
            with open(fpath, "w") as f:
                f.write(exp_floor_mlir(1536, 16, 512))
            floor = statistics.median(
                median_ms([SSM_RUN, fpath, "--seed", "0", "--engine", "cpu", "--threads", str(a.threads), "--repeat", str(a.repeat)], env)
                for _ in range(a.rounds))
            print(f"{'  floor: exp work of that scan alone':42} {floor:10.4f} {'':>10} {'ours at ' + format(100 * floor / o, '.0f') + '%':>10}", flush=True)


if __name__ == "__main__":
    main()
