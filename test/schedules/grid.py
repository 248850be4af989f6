#!/usr/bin/env python3
"""Schedule grid: every field of every schedule family, at its extremes and
interior points, compiled and checked against the reference interpreter.

For each graph in graphs/ (one op kind each, small shapes with tails: channel
counts that are not multiples of the vector width, lengths that are not
multiples of the chunk), a base schedule and variants that each change one
field. Every variant must

  1. compile and agree with the reference interpreter
     (`ssm-run --engine cpu --check`, rtol 1e-4, atol 1e-5, the tolerance of
     the other compiled-vs-reference tests), and
  2. change the generated code: its Halide statement (`ssm-compile
     --emit-stmt`) differs from the base's, so no field an op accepts is
     ignored.

With --compile-only (for targets this machine cannot run, e.g. arm-64-linux)
each case is only compiled.

With --gpu the grid is the GPU fields' (gpu_threads, gpu_tile) for a GPU
target: an OpenCL target runs on the opencl engine (PoCL here) against the
reference, a CUDA target is compile-only on a machine without a GPU.
--subset quick runs each graph's base and one variant (GPU_QUICK: thread
counts and tiles that do not divide the lanes, so the guarded tails run;
CPU_QUICK: the variant that reaches the most tail code, e.g. a vector width
or chunk that does not divide the shape), --subset rest every other variant
(the bases compiled for the comparison, not run again); the two together are
the whole grid (CI runs quick only: ctest's label `full` marks the rest).

Usage: grid.py --bin BUILD/bin [--target T] [--gpu] [--only NAME] [--base-only] [--compile-only]
               [--subset all|quick|rest] [-j N]
Exit 0 when every case passes, 1 otherwise (each failure named on stderr).
"""
import argparse
import concurrent.futures as cf
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent

def ssm(**f):
    return f

# graph -> (attribute family, base fields, [variants], {extra placeholders})
GRID = {
    "selective_scan": ("schedule", ssm(vector_width=8, channel_tile=8, parallel=True, unroll_state=True),
                       [ssm(vector_width=1, channel_tile=1), ssm(vector_width=4), ssm(vector_width=16, channel_tile=16),
                        ssm(channel_tile=16), ssm(channel_tile=24), ssm(parallel=False), ssm(unroll_state=False)]),
    "selective_update": ("schedule", ssm(vector_width=8, channel_tile=8, parallel=True, unroll_state=True),
                         [ssm(vector_width=1, channel_tile=1), ssm(vector_width=4), ssm(vector_width=16, channel_tile=16),
                          ssm(channel_tile=16), ssm(parallel=False), ssm(unroll_state=False)]),
    "causal_conv1d": ("schedule", ssm(vector_width=8, channel_tile=8, parallel=True),
                      [ssm(vector_width=1, channel_tile=1), ssm(vector_width=16, channel_tile=16),
                       ssm(channel_tile=24), ssm(parallel=False)]),
    "affine_scan": ("schedule", ssm(vector_width=8, channel_tile=8, parallel=True),
                    [ssm(vector_width=1, channel_tile=1), ssm(vector_width=16, channel_tile=16),
                     ssm(channel_tile=24), ssm(parallel=False)]),
    "discretize": ("schedule", ssm(vector_width=8, parallel=True),
                   [ssm(vector_width=1), ssm(vector_width=4), ssm(vector_width=32), ssm(parallel=False)]),
    "lti_kernel": ("schedule", ssm(vector_width=8, parallel=True),
                   [ssm(vector_width=1), ssm(vector_width=16), ssm(parallel=False)]),
    "lti_conv": ("schedule", ssm(vector_width=8, parallel=True),
                 [ssm(vector_width=1), ssm(vector_width=4), ssm(vector_width=16), ssm(parallel=False)]),
    "ssd_scan": ("schedule", ssm(vector_width=8, parallel=True),
                 [ssm(vector_width=2), ssm(vector_width=4), ssm(vector_width=16), ssm(parallel=False)]),
    "wkv4": ("schedule", ssm(vector_width=8, parallel=True),
             [ssm(vector_width=1), ssm(vector_width=16), ssm(parallel=False)]),
    # chunk: the chunked WY form (37 tokens: chunks with tails; 1, 7: no
    # unrolling of the pass's sums, U = 1)
    "wkv7": ("schedule", ssm(vector_width=8, parallel=True),
             [ssm(vector_width=1), ssm(vector_width=16), ssm(parallel=False),
              ssm(chunk=16), ssm(chunk=1), ssm(chunk=7), ssm(chunk=64),
              ssm(chunk=16, vector_width=1), ssm(chunk=16, vector_width=16),
              ssm(chunk=16, parallel=False)]),
    "gated_delta_rule": ("schedule", ssm(vector_width=8, parallel=True, chunk=16),
                         [ssm(vector_width=1), ssm(vector_width=16), ssm(parallel=False),
                          ssm(chunk=1), ssm(chunk=64), ssm(chunk=0),
                          ssm(chunk=0, vector_width=1), ssm(chunk=0, vector_width=16),
                          ssm(chunk=0, parallel=False)]),
    # channel_tile: queries per task; chunk: keys per key tile (0: the default)
    "attention": ("schedule", ssm(vector_width=8, channel_tile=8, parallel=True),
                  [ssm(vector_width=1, channel_tile=1), ssm(vector_width=16, channel_tile=16),
                   ssm(channel_tile=64), ssm(parallel=False), ssm(chunk=1), ssm(chunk=7),
                   ssm(channel_tile=24, chunk=128)]),
    "attention_decode": ("schedule", ssm(vector_width=8, parallel=True),
                         [ssm(vector_width=1), ssm(vector_width=16), ssm(vector_width=4, chunk=7),
                          ssm(chunk=512), ssm(parallel=False)]),
    "rope": ("schedule", ssm(vector_width=8, parallel=True),
             [ssm(vector_width=1), ssm(vector_width=16), ssm(parallel=False)]),
    "lti_conv_fft": ("schedule", ssm(vector_width=8, parallel=True),
                     [ssm(vector_width=1), ssm(vector_width=16), ssm(parallel=False)]),
    "matmul_tiled": ("matmul", ssm(algorithm="tiled", vector_width=8, tile_rows=4, tile_cols=24, tile_k=0,
                                   row_tiles=2, pack_b=True, parallel=True),
                     [ssm(vector_width=4, tile_cols=12), ssm(vector_width=16, tile_cols=32), ssm(tile_rows=1),
                      ssm(tile_rows=8), ssm(tile_cols=8), ssm(tile_cols=64), ssm(tile_k=4), ssm(tile_k=13),
                      ssm(row_tiles=1), ssm(row_tiles=5), ssm(pack_b=False), ssm(parallel=False)]),
    "matmul_plain": ("matmul", ssm(algorithm="tiled", vector_width=8, tile_rows=4, tile_cols=24, tile_k=0,
                                   row_tiles=2, pack_b=False, parallel=True),
                     [ssm(tile_rows=16, row_tiles=1), ssm(tile_k=8), ssm(pack_b=True), ssm(parallel=False)]),
    "matmul_dot": ("matmul", ssm(algorithm="dot", vector_width=8, tile_rows=1, tile_cols=8, row_tiles=1,
                                 col_tiles=4, parallel=True),
                   [ssm(vector_width=1), ssm(vector_width=4), ssm(vector_width=16), ssm(tile_cols=1),
                    ssm(tile_cols=3), ssm(tile_cols=64), ssm(col_tiles=1), ssm(col_tiles=25), ssm(parallel=False)]),
    "matmul_dot_rows": ("matmul", ssm(algorithm="dot", vector_width=8, tile_rows=4, tile_cols=3, row_tiles=2,
                                      col_tiles=2, parallel=True),
                        [ssm(tile_rows=1), ssm(tile_rows=8), ssm(tile_rows=16), ssm(tile_cols=1), ssm(tile_cols=5),
                         ssm(row_tiles=1), ssm(row_tiles=10), ssm(col_tiles=1), ssm(col_tiles=17),
                         ssm(vector_width=16), ssm(parallel=False)]),
    "matmul_dot_kblock": ("matmul", ssm(algorithm="dot", vector_width=8, tile_rows=4, tile_cols=3, tile_k=64,
                                        row_tiles=2, col_tiles=2, parallel=True),
                          [ssm(tile_k=0), ssm(tile_k=8), ssm(tile_k=160), ssm(tile_k=320), ssm(row_tiles=4),
                           ssm(col_tiles=8), ssm(vector_width=16), ssm(parallel=False),
                           # 324 is not a whole number of 64-element blocks: not blocked (a
                           # partial last block read past K with one lane)
                           ssm(vector_width=1)]),
    "stage": ("stage", ssm(compute="root", vector_width=8, parallel=True, task_elements=8192),
              [ssm(vector_width=1), ssm(vector_width=16), ssm(parallel=False), ssm(task_elements=1),
               ssm(task_elements=1 << 20)]),
}
# GPU targets: the GPU fields only (dialect/SsmAttrs.td); thread counts that
# do not divide the lanes exercise the guarded tails.
def gpu_ssm(base=64):
    return ("schedule", ssm(gpu_threads=base),
            [ssm(gpu_threads=1), ssm(gpu_threads=7), ssm(gpu_threads=1024)])
GPU_GRID = {name: gpu_ssm() for name in ("selective_scan", "selective_update", "causal_conv1d",
                                          "affine_scan", "discretize", "lti_kernel", "lti_conv", "lti_conv_fft",
                                          "ssd_scan", "wkv4", "wkv7", "gated_delta_rule", "attention",
                                          "attention_decode", "rope")}
GPU_GRID.update({
    "matmul_tiled": ("matmul", ssm(algorithm="tiled", gpu_tile=16),
                     [ssm(gpu_tile=1), ssm(gpu_tile=5), ssm(gpu_tile=32)]),
    "matmul_plain": ("matmul", ssm(algorithm="tiled", gpu_tile=16), [ssm(gpu_tile=8)]),
    "matmul_dot": ("matmul", ssm(algorithm="dot", gpu_tile=16),
                   [ssm(gpu_tile=4), ssm(algorithm="tiled")]),
    "matmul_dot_rows": ("matmul", ssm(algorithm="dot", gpu_tile=16), [ssm(gpu_tile=2)]),
    "stage": ("stage", ssm(compute="root", gpu_threads=256),
              [ssm(gpu_threads=1), ssm(gpu_threads=33), ssm(gpu_threads=1024)]),
})

# --subset quick: the index of each GPU graph's variant run in CI (default 1,
# gpu_threads = 7 of gpu_ssm: 7 does not divide the lanes).
GPU_QUICK = {"matmul_tiled": 1, "matmul_plain": 0, "matmul_dot": 0, "matmul_dot_rows": 0, "stage": 1}

# --subset quick on a CPU target: the index of the variant each graph runs in
# CI besides its base (the others: schedules.grid-rest, label full). Chosen
# for the tails they reach: vector widths and tiles that do not divide the
# graphs' channel counts, chunks that do not divide their lengths, the
# serial form of the chunked ops, blocks that are not whole.
CPU_QUICK = {"selective_scan": 2, "selective_update": 2, "causal_conv1d": 2, "affine_scan": 2,
             "discretize": 2, "lti_kernel": 1, "lti_conv": 2, "ssd_scan": 2, "wkv4": 1,
             "wkv7": 5, "gated_delta_rule": 5, "attention": 5, "attention_decode": 2, "rope": 1,
             "lti_conv_fft": 1, "matmul_tiled": 7, "matmul_plain": 1, "matmul_dot": 4,
             "matmul_dot_rows": 4, "matmul_dot_kblock": 8, "stage": 0}

# The second placeholder of stage.mlir: the producer's schedule (inline in the base).
STAGE2 = {"base": "#ssm.stage<compute = inline>", "root": "#ssm.stage<compute = root>"}

def attr(family, fields):
    def value(v):
        return ("true" if v else "false") if isinstance(v, bool) else str(v)
    body = ", ".join(f"{k} = {value(v)}" for k, v in fields.items())
    return f"#ssm.{family}<{body}>"

def cases(only, base_only, grid, subset="all", quick=None):
    for name, (family, base, variants) in grid.items():
        if only and name not in only:
            continue
        yield name, "base", attr(family, base), STAGE2["base"]
        if base_only:
            continue
        q = (quick or {}).get(name, 1)
        for i, v in enumerate(variants):
            if (subset == "quick" and i != q) or (subset == "rest" and i == q):
                continue
            fields = dict(base)
            fields.update(v)
            label = ",".join(f"{k}={fields[k]}" for k in v)
            yield name, label, attr(family, fields), STAGE2["base"]
        if name == "stage" and subset != "quick":
            yield name, "producer=root", attr(family, base), STAGE2["root"]

def run_case(args, tmp, name, label, sched, sched2):
    text = (HERE / "graphs" / f"{name}.mlir").read_text()
    text = text.replace("@SCHED@", sched).replace("@SCHED2@", sched2)
    slug = f"{name}-{abs(hash(label)) % 10**8}"
    src = pathlib.Path(tmp) / f"{slug}.mlir"
    src.write_text(text)
    out = pathlib.Path(tmp) / slug
    env = dict(os.environ, SSM_CACHE_DIR=str(pathlib.Path(tmp) / "cache"))
    comp = subprocess.run([f"{args.bin}/ssm-compile", str(src), "--target", args.target, "--emit-stmt",
                           "-o", str(out)], capture_output=True, text=True, env=env)
    if comp.returncode != 0:
        return name, label, None, f"ssm-compile failed ({comp.returncode}): {comp.stderr.strip()[-600:]}"
    stmt = "".join(p.read_text() for p in sorted(out.glob("*.stmt")))
    if args.compile_only or (args.subset == "rest" and label == "base"):
        return name, label, stmt, None  # rest: the bases ran with --subset quick
    engine = "opencl" if "opencl" in args.target else "cuda" if "cuda" in args.target else "cpu"
    runp = subprocess.run([f"{args.bin}/ssm-run", str(src), "--engine", engine, "--target", args.target,
                           "--seed", "7", "--check", "--rtol", "1e-4", "--atol", "1e-5"],
                          capture_output=True, text=True, env=env)
    if runp.returncode != 0 or "FAIL" in runp.stdout:
        return name, label, stmt, f"compiled != reference (exit {runp.returncode}):\n{runp.stdout}{runp.stderr[-600:]}"
    return name, label, stmt, None

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--target", default="host")
    ap.add_argument("--gpu", action="store_true", help="the GPU fields' grid (a GPU target)")
    ap.add_argument("--only", action="append")
    ap.add_argument("--base-only", action="store_true", help="only each graph's base schedule")
    ap.add_argument("--compile-only", action="store_true", help="compile, do not run")
    ap.add_argument("--subset", choices=["all", "quick", "rest"], default="all",
                    help="quick: each graph's base and one variant (GPU_QUICK, CPU_QUICK); rest: the bases and the others")
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory(prefix="ssm-grid-") as tmp:
        todo = list(cases(args.only, args.base_only, GPU_GRID if args.gpu else GRID, args.subset,
                          GPU_QUICK if args.gpu else CPU_QUICK))
        with cf.ThreadPoolExecutor(max_workers=args.j) as pool:
            results = list(pool.map(lambda c: run_case(args, tmp, *c), todo))
    stmts = {}
    for name, label, stmt, err in results:
        if label == "base":
            stmts[name] = stmt
    for name, label, stmt, err in results:
        if err is None and label != "base" and stmt is not None and stmt == stmts.get(name):
            err = "the Halide statement equals the base's: this field changed no code"
        status = "PASS" if err is None else "FAIL"
        print(f"{name} [{label}] {status}")
        if err:
            failures += 1
            print(f"  {err}", file=sys.stderr)
    passed = len(results) - failures
    print(f"schedules: {passed} passed, {failures} failed")
    return 0 if failures == 0 else 1

if __name__ == "__main__":
    sys.exit(main())
