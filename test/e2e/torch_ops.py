#!/usr/bin/env python3
"""Compiled kernels as PyTorch ops (runtime/python/ssm_torch.py), checked against the
reference interpreter.

    torch_ops.py <build-bin-dir> <work-dir> (GRAPH.mlir | RWKV.bin)...

An rwkv.cpp file is imported first (ssm-import rwkv, --seq-len 16) and its model.mlir
used: segmented functions (one kernel per layer) with int32 tokens and states, run on
the model's weights and initial states. For each graph: ssm-compile it, register its functions as torch ops, run each on
seeded inputs, and compare every result with `ssm-run --engine reference` on the same
inputs (rtol 1e-4, atol 1e-5: the compiled kernels and the interpreter differ only in
float32 rounding order). Also checks that the op's results are written in place (the
kernel module's call fills preallocated tensors, their data pointers unchanged), that a
wrong shape, dtype or non-CPU argument raises ValueError naming the argument before
anything runs, and that the C API refuses a non-contiguous tensor instead of copying it.

Needs torch (Debian python3-torch). Without it the test fails under CI (CI=true) and
is skipped (exit 77) elsewhere.
"""
import json
import os
import subprocess
import sys

try:
    import numpy as np
    import torch
    import torch.utils.dlpack
except ImportError as e:
    print(f"torch_ops.py: needs torch and numpy ({e})", file=sys.stderr)
    sys.exit(1 if os.environ.get("CI") else 77)

bin_dir, work = sys.argv[1], sys.argv[2]
graphs = sys.argv[3:]
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "runtime", "python"))
os.environ.setdefault("SSM_RUNTIME_LIBRARY",
                      os.path.join(bin_dir, "..", "lib", "libssm_runtime.so.0"))
import ssm_runtime  # noqa: E402
import ssm_torch  # noqa: E402

os.makedirs(work, exist_ok=True)
failures = 0


def check(ok, what):
    global failures
    print(f"{'PASS' if ok else 'FAIL'} {what}")
    failures += not ok


def seeded(spec, rng):
    shape = spec.shape
    if spec.dtype == "int32":
        return torch.from_numpy(rng.integers(0, 8, size=shape).astype(np.int32))
    x = rng.uniform(-0.5, 0.5, size=shape).astype(np.float32)
    if spec.name == "A" or spec.name.endswith("A_log"):
        x = -np.exp(x)  # a decay: keeps the scan stable
    return torch.from_numpy(x).to({"float32": torch.float32, "float16": torch.float16,
                                   "bfloat16": torch.bfloat16}[spec.dtype])


def model_values(folder):
    """An imported model's weights (weights.safetensors, F32) and initial states by name:
    random weights would drive RWKV's exponentials far from where its kernels are tested."""
    raw = open(os.path.join(folder, "weights.safetensors"), "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    values = {}
    for key, t in header.items():
        if key == "__metadata__" or t["dtype"] != "F32":
            continue
        lo, hi = t["data_offsets"]
        values[key] = torch.from_numpy(
            np.frombuffer(raw, np.float32, (hi - lo) // 4, 8 + n + lo).reshape(t["shape"]).copy())
    spec = json.load(open(os.path.join(folder, "model.json")))
    for st in spec["states"]:
        values[st["name"]] = torch.full(st["shape"], float(st["init"]))
    return values


for k, graph in enumerate(graphs):
    known = {}
    name = os.path.splitext(os.path.basename(graph))[0]
    if not os.path.exists(graph):
        print(f"torch_ops.py: {graph} is missing (the .bin models come from ../shared/models)",
              file=sys.stderr)
        sys.exit(1)
    if graph.endswith(".bin"):
        imported = os.path.join(work, name + "-import")
        subprocess.run([os.path.join(bin_dir, "ssm-import"), "rwkv", graph, "-o", imported,
                        "--seq-len", "16", "--force"], check=True)
        graph = os.path.join(imported, "model.mlir")
        known = model_values(imported)
    out = os.path.join(work, name)
    subprocess.run([os.path.join(bin_dir, "ssm-compile"), graph, "-o", out, "--force"], check=True)
    ops = ssm_torch.load_library(out, namespace=f"ssm_test{k}")
    module = ops.kernel_module
    rng = np.random.default_rng(7 + k)
    for spec in module.functions.values():
        args = [known[a.name].reshape(a.shape) if a.name in known else seeded(a, rng)
                for a in spec.arguments]
        listed = len(spec.arguments) > 64 or len(spec.results) > 64  # list schema (ssm_torch)
        op = getattr(ops, spec.name)
        call = (lambda *ts, op=op: tuple(op(list(ts)))) if listed else op
        got = call(*args)
        got = got if isinstance(got, tuple) else (got,)
        # The reference interpreter on the same inputs.
        case = os.path.join(work, f"{name}-{spec.name}")
        os.makedirs(case, exist_ok=True)
        cmd = [os.path.join(bin_dir, "ssm-run"), graph, "--function", spec.name, "--engine",
               "reference", "--output-dir", os.path.join(case, "ref"), "--force"]
        for i, t in enumerate(args):
            path = os.path.join(case, f"arg{i}.npy")
            np.save(path, t.float().numpy() if t.dtype in (torch.float16, torch.bfloat16) else t.numpy())
            cmd += ["--input", path]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        for i, t in enumerate(got):
            want = torch.from_numpy(np.load(os.path.join(case, "ref", f"result{i}.npy")))
            r = spec.results[i]
            ok = tuple(t.shape) == r.shape and torch.allclose(t.float(), want.float(), rtol=1e-4, atol=1e-5)
            worst = (t.float() - want.float()).abs().max().item() if t.shape == want.shape else float("inf")
            check(ok, f"{name} @{spec.name} result '{r.name}' {tuple(t.shape)} vs reference: max_abs={worst:.3g}")

        # In place: the module writes into the tensors handed to it.
        outs = [torch.full(r.shape, float("nan")) for r in spec.results]
        ptrs = [t.data_ptr() for t in outs]
        module.call(spec.name, [torch.utils.dlpack.to_dlpack(t) for t in args],
                    [torch.utils.dlpack.to_dlpack(t) for t in outs])
        same = all(t.data_ptr() == p for t, p in zip(outs, ptrs))
        check(same and all(torch.equal(a, b) for a, b in zip(outs, got)),
              f"{name} @{spec.name}: results written into the caller's tensors")

        # Bad input: a clear error before anything runs.
        a0 = spec.arguments[0]
        bad = torch.zeros(tuple(d + 1 for d in a0.shape))
        try:
            call(bad, *args[1:])
            check(False, f"{name}: wrong shape accepted")
        except (ValueError, RuntimeError) as e:
            check(a0.name in str(e) and "takes" in str(e), f"{name}: wrong shape refused: {e}")
        try:
            call(args[0].double(), *args[1:])
            check(False, f"{name}: wrong dtype accepted")
        except (ValueError, RuntimeError) as e:
            check(a0.name in str(e), f"{name}: wrong dtype refused: {e}")
        if len(a0.shape) >= 2 and a0.shape[-1] > 1 and a0.shape[-2] > 1:
            strided = torch.zeros(tuple(reversed(a0.shape))).t() if len(a0.shape) == 2 else \
                torch.zeros(a0.shape[:-2] + (a0.shape[-1], a0.shape[-2])).transpose(-1, -2)
            try:
                module.call(spec.name, [torch.utils.dlpack.to_dlpack(strided)] +
                            [torch.utils.dlpack.to_dlpack(t) for t in args[1:]],
                            [torch.utils.dlpack.to_dlpack(t) for t in outs])
                check(False, f"{name}: non-contiguous tensor accepted by the C API")
            except ssm_runtime.Error as e:
                check("not contiguous" in e.message and a0.name in e.message,
                      f"{name}: non-contiguous tensor refused: {e.message}")

try:
    ssm_runtime.KernelModule(os.path.join(work, "no-such-module"))
    check(False, "missing module folder accepted")
except ssm_runtime.Error as e:
    check(e.status == "SSM_ERROR_NOT_FOUND" and "manifest.json" in e.message,
          f"missing module folder: {e.message}")

print(f"torch_ops: {'PASS' if failures == 0 else f'{failures} FAILED'}")
sys.exit(1 if failures else 0)
