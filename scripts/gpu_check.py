#!/usr/bin/env python3
"""Runs a GPU check pack (scripts/gpu_pack.py) on the machine with the GPU: every golden
case and the tiny models on the pack's compiled GPU modules, through the runtime library
and its Python bindings (runtime/python/ssm_runtime.py), then the benchmarks against
PyTorch on the same GPU. No compiler is needed here: NumPy for the checks, PyTorch with
CUDA for the benchmarks (skipped, saying so, without it).

    scripts/gpu_check.py [build/gpu-pack] [--no-bench] [--rounds 3] [--repeat 20]

Golden cases print the `ssm-run --golden` lines (../shared/CONTRACTS.md):
`<name> max_abs=<x> max_rel=<x> worst=<x> PASS|FAIL`, worst = max |got - expected| /
(atol + rtol |expected|) with the case's own tolerances. Models: the logits after the
prompt (sequence form, the compiled @forward_sequence) and, stepping one token at a time
(@forward_step, the state carried on the device), after every token, within the
tolerance in check.json (1e-4 absolute, as test/lit/Gpu).

Benchmarks, per case (bench/run.py's shapes), medians over --rounds alternating rounds:
  ours h2h    one ssm_module_call_dlpack on host (NumPy) arrays: binds the call, uploads
              every input, runs the kernels, copies the results back (what the C API's
              kernel call costs a caller with host data)
  ours gpu    the GPU time of our kernels in that call (CUDA kernel durations summed, from
              CUPTI through torch.profiler; copies excluded)
  ours copies the GPU time of its host/device copies
  torch       bench/torch_peer.py's eager call on tensors resident on the GPU, synchronised
Ratios: torch / ours gpu (kernel against kernel-plus-launch; the fair one for resident
data), torch / ours h2h (the conservative one: our copies and binding are counted, the
peer's are not).

Exit 0 when every check passes, 1 when one fails, 2 when the pack is missing or broken.
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg):
    sys.stderr.write(f"gpu_check: {msg}\n")
    sys.exit(2)


def load_runtime(pack, target):
    if "cuda" in target:
        # Halide's CUDA runtime takes cuInit & co. from the process when they
        # are there, else it opens "libcuda.so", the development link that a
        # driver-only machine lacks: load the driver's libcuda.so.1 globally.
        try:
            ctypes.CDLL("libcuda.so.1", mode=ctypes.RTLD_GLOBAL)
        except OSError as e:
            die(f"the pack is for {target} but the NVIDIA driver library is not loadable ({e})")
    lib = os.path.join(pack, "lib")
    if not os.path.isdir(lib):
        die(f"{pack} is not a pack (no lib/): build one with scripts/gpu_pack.py")
    # The runtime's own dependencies first, by path, so a machine without them
    # (libpthreadpool) needs no LD_LIBRARY_PATH.
    for f in sorted(os.listdir(lib)):
        if f != "libssm_runtime.so.0":
            ctypes.CDLL(os.path.join(lib, f), mode=ctypes.RTLD_GLOBAL)
    os.environ["SSM_RUNTIME_LIBRARY"] = os.path.join(lib, "libssm_runtime.so.0")
    sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
    import ssm_runtime
    return ssm_runtime


def compare(np, got, exp, rtol, atol):
    """(max_abs, max_rel, worst, pass) as ssm-run --golden computes them."""
    if got.shape != exp.shape:
        return float("inf"), float("inf"), float("inf"), False
    g, e = got.astype(np.float64), exp.astype(np.float64)
    diff = np.abs(g - e)
    bad = ~np.isfinite(g) & np.isfinite(e)
    diff = np.where(bad, np.inf, diff)
    nz = e != 0
    max_rel = float((diff[nz] / np.abs(e[nz])).max()) if nz.any() else 0.0
    worst = float((diff / (atol + rtol * np.abs(e))).max()) if diff.size else 0.0
    max_abs = float(diff.max()) if diff.size else 0.0
    return max_abs, max_rel, worst, worst <= 1 and not bad.any()


def module_arrays(np, spec, values):
    arrays = []
    for t in spec:
        a = np.ascontiguousarray(values[t.name], dtype=np.float32)
        if tuple(a.shape) != tuple(t.shape):
            raise ValueError(f"{t.name}: shape {a.shape}, the function takes {t.shape}")
        arrays.append(a)
    return arrays


def call(km, name, args, results):
    caps_in = [a.__dlpack__() for a in args]
    caps_out = [r.__dlpack__() for r in results]
    km.call(name, caps_in, caps_out)


def run_golden(np, rt, pack, cases):
    ok = True
    for c in cases:
        d = os.path.join(pack, "golden", c)
        try:
            case = json.load(open(os.path.join(d, "case.json")))
            tol = case["tolerance"]
            km = rt.KernelModule(os.path.join(d, "module"))
            fn = km.functions["main"]
            values = {t.name: np.load(os.path.join(d, "inputs", t.name + ".npy")) for t in fn.arguments}
            args = module_arrays(np, fn.arguments, values)
            results = [np.zeros(t.shape, dtype=np.float32) for t in fn.results]
            call(km, "main", args, results)
            by_name = {t.name: r for t, r in zip(fn.results, results)}
            lines, passed = [], True
            for name in case["expected"]:
                exp = np.load(os.path.join(d, "expected", name + ".npy"))
                ma, mr, w, p = compare(np, by_name[name], exp, tol["rtol"], tol["atol"])
                lines.append(f"  {name} max_abs={ma:.3g} max_rel={mr:.3g} worst={w:.3g} {'PASS' if p else 'FAIL'}")
                passed &= p
            print(f"{'PASS' if passed else 'FAIL'} golden {c}")
            print("\n".join(lines), flush=True)
            ok &= passed
        except Exception as e:  # a broken module or call fails the case, the others still run
            print(f"FAIL golden {c}: {type(e).__name__}: {e}", flush=True)
            ok = False
    return ok


def run_models(np, rt, pack, models):
    ok = True
    for name in models:
        d = os.path.join(pack, "models", name)
        try:
            check = json.load(open(os.path.join(d, "check.json")))
            toks = check["tokens"]
            toks = [int(t) for t in (np.load(os.path.join(d, toks)).reshape(-1) if isinstance(toks, str) else toks)]
            exp_path = os.path.join(d, check["expected"])
            exp = (np.fromfile(exp_path, dtype="<f4") if check["expected_format"] == "f32_last"
                   else np.load(exp_path))
            last = exp if exp.ndim == 1 else exp[-1]
            tol = check["tolerance"]
            model = rt.Model(d)
            forms = []
            got = np.array(rt.Stream(model).prefill(toks), dtype=np.float32)
            forms.append(("sequence", float(np.abs(got - last).max()) if got.shape == last.shape else float("inf")))
            if check.get("step"):
                s = rt.Stream(model)
                rows = np.stack([np.array(s.step(t), dtype=np.float32) for t in toks])
                want = exp if exp.ndim == 2 else exp[None, :]
                rows = rows if exp.ndim == 2 else rows[-1:]
                forms.append(("step", float(np.abs(rows - want).max()) if rows.shape == want.shape else float("inf")))
            passed = all(v <= tol for _, v in forms)
            detail = ", ".join(f"{f} max_abs_diff={v:.3g}" for f, v in forms)
            print(f"{'PASS' if passed else 'FAIL'} model {name}: {detail} (tolerance {tol})", flush=True)
            ok &= passed
        except Exception as e:
            print(f"FAIL model {name}: {type(e).__name__}: {e}", flush=True)
            ok = False
    return ok


def gpu_times(torch, fn, calls):
    """Per call: (kernel ms, copy ms) on the GPU, from a CUPTI trace of `calls` calls."""
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    path = tempfile.mktemp(suffix=".json")
    prof.export_chrome_trace(path)
    data = json.load(open(path))
    events = data.get("traceEvents", []) if isinstance(data, dict) else data  # torch < 2 writes a list
    os.remove(path)
    kern = sum(e.get("dur", 0) for e in events if e.get("cat") == "kernel")
    copy = sum(e.get("dur", 0) for e in events if e.get("cat") in ("gpu_memcpy", "gpu_memset"))
    return kern / 1e3 / calls, copy / 1e3 / calls


def run_bench(np, rt, pack, benches, rounds, repeat):
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch.cuda.is_available() is False")
    except ImportError as e:
        print(f"gpu_check: benchmarks skipped: no torch with CUDA ({e})")
        return
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import torch_peer
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}; rounds={rounds} repeat={repeat}; "
          "medians of per-round medians, ms")
    print(f"{'case':40} {'ours h2h':>9} {'ours gpu':>9} {'copies':>8} {'torch':>9} {'t/gpu':>7} {'t/h2h':>7}")
    rng = np.random.default_rng(0)
    for slug in benches:
        d = os.path.join(pack, "bench", slug)
        info = json.load(open(os.path.join(d, "bench.json")))
        km = rt.KernelModule(os.path.join(d, "module"))
        fn = km.functions["main"]
        values = {}
        for t in fn.arguments:
            v = rng.uniform(-0.5, 0.5, size=t.shape).astype(np.float32)
            if t.name == "A":  # decays: -exp(U) per channel and state, small log decays for SSD
                v = -np.exp(v) if len(t.shape) == 2 else -rng.uniform(0, 0.1, size=t.shape).astype(np.float32)
            values[t.name] = v
        args = module_arrays(np, fn.arguments, values)
        results = [np.zeros(t.shape, dtype=np.float32) for t in fn.results]
        ours = lambda: call(km, "main", args, results)
        pa = torch_peer.peer_parser().parse_args(info["peer"] + ["--device", "cuda"])
        peer = torch_peer.make_case(pa)
        with torch.no_grad():
            ours(); peer(); torch.cuda.synchronize()
            h2h, theirs = [], []
            for _ in range(rounds):
                ts = []
                for _ in range(repeat):
                    t0 = time.perf_counter(); ours(); ts.append((time.perf_counter() - t0) * 1e3)
                h2h.append(statistics.median(ts))
                ts = []
                for _ in range(repeat):
                    t0 = time.perf_counter(); peer(); torch.cuda.synchronize()
                    ts.append((time.perf_counter() - t0) * 1e3)
                theirs.append(statistics.median(ts))
            try:
                kern, copy = gpu_times(torch, ours, min(repeat, 10))
            except Exception as e:  # no CUPTI: the wall times still stand
                print(f"  (no GPU trace: {type(e).__name__}: {e})")
                kern, copy = float("nan"), float("nan")
        o, p = statistics.median(h2h), statistics.median(theirs)
        print(f"{info['name']:40} {o:9.4f} {kern:9.4f} {copy:8.4f} {p:9.4f} {p / kern:6.1f}x {p / o:6.1f}x", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pack", nargs="?", default=os.path.join(ROOT, "build", "gpu-pack"))
    ap.add_argument("--no-bench", action="store_true")
    ap.add_argument("--only", default="", help="run only the golden cases, models and benchmarks whose name contains this")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()
    try:
        pack = json.load(open(os.path.join(a.pack, "pack.json")))
    except (OSError, ValueError) as e:
        die(f"cannot read {a.pack}/pack.json ({e}): build a pack with scripts/gpu_pack.py")
    try:
        import numpy as np
    except ImportError:
        die("NumPy is needed (pip install numpy)")
    rt = load_runtime(a.pack, pack["target"])
    print(f"pack: {pack['target']}, {pack['compiler']}", flush=True)
    sel = lambda names: [n for n in names if a.only in n]
    ok = run_golden(np, rt, a.pack, sel(pack["golden"]))
    ok &= run_models(np, rt, a.pack, sel(pack["models"]))
    if not a.no_bench and pack.get("bench"):
        run_bench(np, rt, a.pack, sel(pack["bench"]), a.rounds, a.repeat)
    print("gpu_check: all checks passed" if ok else "gpu_check: some checks FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
