#!/usr/bin/python3
"""Matmuls at the shapes of real models: ours against OpenBLAS sgemm and the read bandwidth.

C[M, N] = A[M, K] W[N, K]^T (linalg.matmul_transpose_b, the nn.Linear layout
of every projection in Mamba and RWKV), M = 512 (prefill of 512 tokens) and
M = 1 (one decode step), for the weight shapes of mamba-130m (d_model 768,
d_inner 1536, vocab 50280) and RWKV-4 169M (768, FFN 3072, vocab 50277).
Ours: the compiled kernel with the schedule ssm-assign-schedules gives it
(`ssm-run --engine cpu --repeat`); peer: OpenBLAS's cblas_sgemm
(bench/sgemm_peer.c, built here against Debian's libopenblas-dev), with the
same thread count. For M = 1 the ceiling is reading the weight once: the
table also shows our effective GB/s against a plain multi-threaded read of
a buffer as large (the same peer program). Rounds alternate ours and the
peer; each reports a median over --repeat calls; the table shows the median
of those medians.

Usage: bench/matmul_bench.py [--threads 2] [--rounds 3] [--repeat 10] [--only M]
Needs build/bin/ssm-run and libopenblas-dev (scripts/install-deps.sh --bench).
"""
import argparse
import os
import statistics
import subprocess
import tempfile

from run import median_ms  # bench/run.py: runs a command, reads its median_ms=

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SSM_RUN = os.path.join(ROOT, "build", "bin", "ssm-run")

# (M, N, K, what)
SHAPES = [
    (512, 3072, 768, "mamba in_proj / RWKV FFN key"),
    (512, 768, 1536, "mamba out_proj"),
    (512, 768, 3072, "RWKV FFN value"),
    (512, 768, 768, "RWKV att key/value/receptance/output"),
    (512, 50280, 768, "LM head, all positions"),
    (1, 3072, 768, "decode: in_proj / FFN key"),
    (1, 768, 1536, "decode: out_proj"),
    (1, 768, 3072, "decode: FFN value"),
    (1, 50280, 768, "decode: LM head"),
]


def graph(m, n, k):
    t = lambda *s: "tensor<" + "x".join(map(str, s)) + "xf32>"
    return f"""func.func @main(%x: {t(m, k)}, %w: {t(n, k)} {{ssm.param = "w"}}) -> {t(m, n)} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {t(m, n)}
  %f = linalg.fill ins(%zero : f32) outs(%e : {t(m, n)}) -> {t(m, n)}
  %y = linalg.matmul_transpose_b ins(%x, %w : {t(m, k)}, {t(n, k)}) outs(%f : {t(m, n)}) -> {t(m, n)}
  return %y : {t(m, n)}
}}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--only", type=int, help="only shapes with this M")
    ap.add_argument("--openblas-coretype", default="auto",
                    help="OPENBLAS_CORETYPE for the peer: auto (the fastest of OpenBLAS's own "
                         "detection, SkylakeX and Haswell on 512 x 3072 x 768), none, or a name")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ssm-mm-bench-")
    peer = os.path.join(tmp, "sgemm_peer")
    subprocess.run(["cc", "-O3", "-march=native", os.path.join(ROOT, "bench", "sgemm_peer.c"), "-o", peer,
                    "-lopenblas", "-lpthread"], check=True)
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(a.threads), OMP_NUM_THREADS=str(a.threads))
    # Some machines here set OPENBLAS_CORETYPE (and OPENBLAS_L2_SIZE) to an
    # older kernel family for old OpenBLAS builds; the peer must run its best
    # kernel for this CPU, so both go (for the peer's processes only).
    for var in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):
        env.pop(var, None)
    # Debian 12's OpenBLAS 0.3.21 does not know Sapphire Rapids and falls back
    # to a generic kernel there (65 ms instead of 12 ms at 512 x 3072 x 768 on
    # 2 threads): give the peer the fastest kernel family it has.
    if a.openblas_coretype == "auto":
        best = None
        for core in (None, "SkylakeX", "Haswell"):
            e = dict(env)
            if core:
                e["OPENBLAS_CORETYPE"] = core
            ms = median_ms([peer, "gemm", "512", "3072", "768", "5"], e)
            print(f"OpenBLAS core type {core or '(its own detection)'}: {ms:.2f} ms at 512 x 3072 x 768")
            if best is None or ms < best[0]:
                best = (ms, core)
        if best[1]:
            env["OPENBLAS_CORETYPE"] = best[1]
    elif a.openblas_coretype != "none":
        env["OPENBLAS_CORETYPE"] = a.openblas_coretype
    print(f"OpenBLAS peer runs with OPENBLAS_CORETYPE={env.get('OPENBLAS_CORETYPE', '(unset)')}")
    env.setdefault("SSM_CACHE_DIR", os.path.join(ROOT, "build", "compile-cache"))
    print(f"threads={a.threads} rounds={a.rounds} repeat={a.repeat} (medians of per-round medians)")
    print(f"| M x N x K | what | ours ms | OpenBLAS ms | ours GFLOP/s | OpenBLAS GFLOP/s | ours / OpenBLAS | ours GB/s | read GB/s | ours / read |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for m, n, k, what in SHAPES:
        if a.only is not None and m != a.only:
            continue
        src = os.path.join(tmp, f"mm_{m}_{n}_{k}.mlir")
        with open(src, "w") as f:
            f.write(graph(m, n, k))
        ours_cmd = [SSM_RUN, src, "--engine", "cpu", "--seed", "1", "--repeat", str(a.repeat), "--threads", str(a.threads)]
        peer_cmd = [peer, "gemm", str(m), str(n), str(k), str(a.repeat)]
        read_cmd = [peer, "read", str(n * k * 4), str(a.repeat), str(a.threads)]
        ours, theirs, read = [], [], []
        for _ in range(a.rounds):
            ours.append(median_ms(ours_cmd, env))
            theirs.append(median_ms(peer_cmd, env))
            if m == 1:
                read.append(median_ms(read_cmd, env))
        o, p = statistics.median(ours), statistics.median(theirs)
        flops = 2.0 * m * n * k
        row = f"| {m} x {n} x {k} | {what} | {o:.3f} | {p:.3f} | {flops / o / 1e6:.1f} | {flops / p / 1e6:.1f} | {p / o:.2f} |"
        if m == 1:
            r = statistics.median(read)
            gb = n * k * 4 / 1e6
            row += f" {gb / o:.1f} | {gb / r:.1f} | {r / o:.2f} |"
        else:
            row += " | | |"
        print(row, flush=True)


if __name__ == "__main__":
    main()
