#!/usr/bin/env python3
"""The fused selective scan keeps its memory bounded (issue: CPU code generation).

1. Scratch: the kernels' peak heap scratch (inputs and outputs excluded) at
   L = 8192 stays within 10% of that at L = 512: long inputs run as a host
   loop over time chunks carrying the state. Measured on one thread: with
   more, the peak counts the scratch of the chunks that happen to run at
   once, which depends on timing (on 2 cores it doubled from one run to the
   next), not on L.
2. No (batch, L, dim, N) buffer: no allocation in the lowered Halide statement
   of the L = 512 scan holds L * dim * N elements or more.

Usage: scan_memory.py <build/bin>
"""
import os
import re
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
DIM, N = 1536, 16  # the benchmark scan of the issue (batch 1, 1536 channels, N 16)


def t(*s):
    return "tensor<" + "x".join(map(str, s)) + "xf32>"


def scan(L):
    seq, bc = t(1, L, DIM), t(1, L, N)
    return f"""func.func @main(%u: {seq}, %dt: {seq}, %A: {t(DIM, N)}, %B: {bc}, %C: {bc}, %D: {t(DIM)}, %z: {seq}) -> ({seq}, {t(1, DIM, N)}) {{
  %y, %h = ssm.selective_scan time_major %u, %dt, %A, %B, %C D(%D) z(%z) {{delta_softplus}}
      : ({seq}, {seq}, {t(DIM, N)}, {bc}, {bc}, {t(DIM)}, {seq}) -> ({seq}, {t(1, DIM, N)})
  return %y, %h : {seq}, {t(1, DIM, N)}
}}
"""


def run(cmd, env):
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"FAILED: {' '.join(cmd)}\n{out.stdout}{out.stderr}")
    return out.stdout


def main():
    tmp = tempfile.mkdtemp(prefix="ssm-scan-memory-")
    env = dict(os.environ)
    env.setdefault("SSM_CACHE_DIR", os.path.join(tmp, "cache"))
    peaks = {}
    for L in (512, 8192):
        path = os.path.join(tmp, f"scan{L}.mlir")
        with open(path, "w") as f:
            f.write(scan(L))
        out = run([os.path.join(BIN, "ssm-run"), path, "--seed", "1", "--engine", "cpu", "--threads", "1",
                   "--report-scratch"], env)
        peaks[L] = int(re.search(r"scratch_peak_bytes=(\d+)", out).group(1))
        print(f"L={L}: scratch_peak_bytes={peaks[L]}")
    growth = peaks[8192] / max(1, peaks[512])
    print(f"growth from L=512 to L=8192: {growth:.3f}x (limit 1.10x)")
    ok = growth <= 1.10

    stmt_dir = os.path.join(tmp, "stmt")
    run([os.path.join(BIN, "ssm-compile"), os.path.join(tmp, "scan512.mlir"), "-o", stmt_dir, "--emit-stmt"], env)
    stmt = open(os.path.join(stmt_dir, "ssm_main.stmt")).read()
    limit = 512 * DIM * N
    for name, dims in re.findall(r"allocate (\S+)\[\w+ \* ([^\]]+)\]", stmt):
        elems = 1
        for d in dims.split("*"):
            d = d.strip()
            elems *= int(d) if d.isdigit() else 1
        print(f"allocation {name}: {elems} elements")
        if elems >= limit:
            print(f"FAIL: {name} holds a (batch, L, dim, N)-sized buffer")
            ok = False
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
