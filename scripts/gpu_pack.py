#!/usr/bin/env python3
"""Builds the GPU check's pack: everything scripts/gpu_check.py runs on a GPU machine,
compiled ahead here, so that machine needs no compiler (no MLIR, LLVM or Halide),
only its NVIDIA driver, Python 3 with NumPy, and PyTorch for the benchmarks.

    scripts/gpu_pack.py [--target T] [--shared ../shared] [-o build/gpu-pack] [--force]

The pack (a folder, a few MB):
  lib/              libssm_runtime.so.0 and the libraries it needs that a bare machine
                    may lack (libpthreadpool), for ctypes (runtime/python/ssm_runtime.py)
  golden/<case>/    the case folder (case.json, inputs/, expected/), graph.mlir (the
                    function ssm-run builds for it: ssm-run --golden --emit-graph), and
                    module/, that graph compiled for T (manifest.json, libssm_module.so)
  models/<name>/    an ssm-import folder of a ../shared tiny model with compiled/ for T,
                    and check.json: the tokens and the expected logits to compare
  bench/<case>/     the GPU benchmarks of bench/run.py (Mamba-1 scan 1536 x 16 at L 512
                    and 2048, batch 1 and 8, the decode step, causal conv1d, SSD), each
                    compiled for T, and bench.json: the torch peer's arguments
  pack.json         the target, the compiler version, the cases

T defaults to x86-64-linux-cuda-cuda_capability_80: a plain x86-64 host side (the GPU
machine's CPU is not this one) and PTX for sm_80, which the driver compiles forward for
newer GPUs (Halide 14 knows capabilities up to 8.6; DESIGN.md section 7). A target with
`opencl` instead packs for the OpenCL engine.

Needs build/bin (scripts/build.sh; --bin for another build) and ../shared (golden/, models/). Exits 2 when a tool
or input is missing or a compile fails (the failed command and its output on stderr);
an existing non-empty output folder is kept unless --force.
"""
import argparse
import concurrent.futures
import importlib.util
import json
import os
import shutil
import struct
import ast
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "build", "bin")  # --bin
KEEP = ("manifest.json", "libssm_module.so")


def die(msg):
    sys.stderr.write(f"gpu_pack: {msg}\n")
    sys.exit(2)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        die(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout}{p.stderr}")
    return p.stdout


def prune_module(d):
    """Keeps what the runtime loads (manifest and shared library) of a module folder."""
    for f in os.listdir(d):
        if f not in KEEP:
            path = os.path.join(d, f)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


def npy_shape(path):
    raw = open(path, "rb").read(4096)
    if raw[:6] != b"\x93NUMPY":
        die(f"{path}: not a .npy file")
    hlen, start = (struct.unpack("<H", raw[8:10])[0], 10) if raw[6] == 1 else (struct.unpack("<I", raw[8:12])[0], 12)
    return ast.literal_eval(raw[start:start + hlen].decode("latin1"))["shape"]


def pack_golden(shared, out, target):
    cases = sorted(c for c in os.listdir(os.path.join(shared, "golden"))
                   if os.path.isfile(os.path.join(shared, "golden", c, "case.json")))
    if not cases:
        die(f"no golden cases in {shared}/golden")

    def one(c):
        dst = os.path.join(out, "golden", c)
        shutil.copytree(os.path.join(shared, "golden", c), dst)
        graph = os.path.join(dst, "graph.mlir")
        run([os.path.join(BIN, "ssm-run"), "--golden", dst, "--emit-graph", graph])
        run([os.path.join(BIN, "ssm-compile"), graph, "-o", os.path.join(dst, "module"), "--target", target])
        prune_module(os.path.join(dst, "module"))
        return c

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        return list(ex.map(one, cases))


def pack_models(shared, out, target):
    m = os.path.join(shared, "models")
    todo = []
    # RWKV: the prompt '"in' (3 bytes), rwkv.cpp's logits after it (256 floats); the step
    # form for RWKV-4 and -5, as test/lit/Gpu/rwkv-models.mlir checks.
    for ver, name, step in (("4v0-660K", "tiny-rwkv-4v0-660K-FP32.bin", True),
                            ("4v0-660K", "tiny-rwkv-4v0-660K-FP16.bin", True),
                            ("5v2-730K", "tiny-rwkv-5v2-730K-FP32.bin", True),
                            ("6v0-170K", "tiny-rwkv-6v0-170K-FP32.bin", False),
                            ("7v0-834K", "tiny-rwkv-7v0-834K-FP32.bin", False)):
        if "FP16" in name and "cuda" not in target:
            continue  # OpenCL needs the cl_half target feature for f16 weights
        src = os.path.join(m, "rwkv", name)
        if not os.path.exists(src):
            die(f"{src} is missing")
        todo.append((name[:-4], ["rwkv", src, "--seq-len", "3"],
                     {"tokens": list(b'"in'), "expected": os.path.join(m, "rwkv", f"expected-logits-{ver}.bin"),
                      "expected_format": "f32_last", "step": step, "tolerance": 1e-4}))
    # Mamba-1 and -2: every position's logits (expected_logits.npy, (L, vocab)).
    for sub in ("mamba", "mamba2"):
        d = os.path.join(m, sub)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            src = os.path.join(d, name)
            if not os.path.isfile(os.path.join(src, "model.safetensors")):
                continue
            L = npy_shape(os.path.join(src, "tokens.npy"))[0]
            todo.append((name, ["mamba", os.path.join(src, "model.safetensors"), "--config",
                                os.path.join(src, "config.json"), "--seq-len", str(L)],
                         {"tokens": os.path.join(src, "tokens.npy"),
                          "expected": os.path.join(src, "expected_logits.npy"),
                          "expected_format": "npy_all", "step": True, "tolerance": 1e-4}))

    def one(item):
        name, imp, check = item
        dst = os.path.join(out, "models", name)
        run([os.path.join(BIN, "ssm-import"), *imp, "-o", dst])
        run([os.path.join(BIN, "ssm-compile"), dst, "--target", target])
        for d in os.listdir(os.path.join(dst, "compiled")):
            prune_module(os.path.join(dst, "compiled", d))
        for key in ("tokens", "expected"):
            if isinstance(check[key], str):
                base = os.path.basename(check[key])
                shutil.copy(check[key], os.path.join(dst, base))
                check[key] = base
        with open(os.path.join(dst, "check.json"), "w") as f:
            json.dump(check, f, indent=1)
        return name

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        return list(ex.map(one, todo))


def pack_bench(out, target):
    spec = importlib.util.spec_from_file_location("bench_run", os.path.join(ROOT, "bench", "run.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    names = []

    def one(item):
        name, mlir, peer = item
        slug = "".join(ch if ch.isalnum() else "_" for ch in name)
        dst = os.path.join(out, "bench", slug)
        os.makedirs(dst)
        with open(os.path.join(dst, "graph.mlir"), "w") as f:
            f.write(mlir)
        run([os.path.join(BIN, "ssm-compile"), os.path.join(dst, "graph.mlir"), "-o",
             os.path.join(dst, "module"), "--target", target])
        prune_module(os.path.join(dst, "module"))
        with open(os.path.join(dst, "bench.json"), "w") as f:
            json.dump({"name": name, "peer": peer}, f, indent=1)
        return slug

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as ex:
        names = list(ex.map(one, bench.CASES + bench.GPU_CASES))
    return names


def main():
    global BIN
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="x86-64-linux-cuda-cuda_capability_80")
    ap.add_argument("--bin", default=BIN, help="the build's bin/ folder (its lib/ beside it holds the runtime)")
    ap.add_argument("--shared", default=os.environ.get("SSM_SHARED_DIR", os.path.join(ROOT, "..", "shared")))
    ap.add_argument("-o", "--output", default=os.path.join(ROOT, "build", "gpu-pack"))
    ap.add_argument("--force", action="store_true", help="replace an existing non-empty output folder")
    ap.add_argument("--no-bench", action="store_true", help="leave the benchmarks out")
    a = ap.parse_args()
    BIN = os.path.abspath(a.bin)
    for tool in ("ssm-run", "ssm-compile", "ssm-import"):
        if not os.access(os.path.join(BIN, tool), os.X_OK):
            die(f"{BIN}/{tool} is missing: build first (scripts/build.sh)")
    if "cuda" not in a.target and "opencl" not in a.target:
        die(f"--target {a.target} has no GPU feature (cuda or opencl)")
    for sub in ("golden", "models"):
        if not os.path.isdir(os.path.join(a.shared, sub)):
            die(f"{a.shared}/{sub} is missing (set --shared or SSM_SHARED_DIR)")
    if os.path.isdir(a.output) and os.listdir(a.output):
        if not a.force:
            die(f"'{a.output}' is not empty; pass --force to replace it")
        shutil.rmtree(a.output)
    os.makedirs(os.path.join(a.output, "lib"), exist_ok=True)
    lib = os.path.join(os.path.dirname(BIN), "lib", "libssm_runtime.so.0")
    if not os.path.exists(lib):
        die(f"{lib} is missing: build first (scripts/build.sh)")
    shutil.copy(os.path.realpath(lib), os.path.join(a.output, "lib", "libssm_runtime.so.0"))
    for line in run(["ldd", lib]).splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>" and "pthreadpool" in parts[0]:
            shutil.copy(os.path.realpath(parts[2]), os.path.join(a.output, "lib", parts[0]))
    pack = {"target": a.target}
    pack["golden"] = pack_golden(a.shared, a.output, a.target)
    with open(os.path.join(a.output, "golden", pack["golden"][0], "module", "manifest.json")) as f:
        pack["compiler"] = json.load(f).get("compiler", "?")
    print(f"gpu_pack: {len(pack['golden'])} golden cases", flush=True)
    pack["models"] = pack_models(a.shared, a.output, a.target)
    print(f"gpu_pack: {len(pack['models'])} models", flush=True)
    pack["bench"] = [] if a.no_bench else pack_bench(a.output, a.target)
    print(f"gpu_pack: {len(pack['bench'])} benchmarks", flush=True)
    with open(os.path.join(a.output, "pack.json"), "w") as f:
        json.dump(pack, f, indent=1)
    size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(a.output) for f in fs)
    print(f"gpu_pack: {a.output} ({size / 2**20:.1f} MiB) for {a.target}")


if __name__ == "__main__":
    main()
