#!/usr/bin/python3
"""The LTI path (issue 14): ssm.lti_conv direct / fft and the scan form against PyTorch's
rfft convolution (the s4 repository's FFTConv: rfft(k, 2L) * rfft(u, 2L), irfft, first L),
in one run, same shapes and thread count.

Two tables, H = 256 channels, batch 1, L in --lengths (default 1024, 16384, 65536):

* conv: ssm.lti_conv on a given K (H, L), algorithm direct and fft, against torch.
* layer: a time-invariant Mamba-style layer (selective_scan with a constant (H) step, real A,
  B, C of (H, N), D) in its three forms, as ssm-lti-to-conv writes them with
  algorithm=direct|fft|scan (kernel + conv, or the fused scan), and the form the pass's cost
  model picks (algorithm=auto for --target); `picked/best` > 1.2 means the model chose a form
  more than 1.2x slower than the best.

Each ours/torch pair alternates --rounds times; each run reports the median over --repeat
calls (direct at L > 16384 takes most of a minute per call: one call, first round only); tables show
medians of the per-round medians. Needs build/bin/ssm-run, ssm-opt and python3-torch.

--compile-only compiles every graph into the cache (one untimed call each, at the caller's
priority) and prints nothing else, so that a timed run under `chrt` does not compile: run it
first, then the timed command. --skip-conv / --skip-layer run one table.

Usage: bench/lti_bench.py [--threads 2] [--rounds 3] [--repeat 5] [--lengths 1024,16384,65536]
                          [--state 16] [--target host] [--compile-only] [--skip-conv] [--skip-layer]
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
SSM_OPT = os.path.join(ROOT, "build", "bin", "ssm-opt")
sys.path.insert(0, os.path.join(ROOT, "bench"))
from run import median_ms  # noqa: E402


def t(*shape):
    return "tensor<" + "x".join(str(s) for s in shape) + "xf32>"


def conv_mlir(alg, H, L):
    return f"""func.func @main(%u: {t(1, H, L)}, %K: {t(H, L)}) -> {t(1, H, L)} {{
  %y = ssm.lti_conv {alg} %u, %K : ({t(1, H, L)}, {t(H, L)}) -> {t(1, H, L)}
  return %y : {t(1, H, L)}
}}
"""


def layer_mlir(H, N, L):
    u = t(1, H, L)
    return f"""func.func @main(%u: {u}, %Alog: {t(H, N)}, %B: {t(H, N)}, %C: {t(H, N)},
                %dt0: {t(H)}, %D: {t(H)}) -> {u} {{
  %e = math.exp %Alog : {t(H, N)}
  %A = arith.negf %e : {t(H, N)}
  %bias = arith.constant dense<-4.6> : {t(H)}
  %init = tensor.empty() : {u}
  %dt = linalg.broadcast ins(%dt0 : {t(H)}) outs(%init : {u}) dimensions = [0, 2]
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C D(%D) delta_bias(%bias) {{delta_softplus}}
      : ({u}, {u}, {t(H, N)}, {t(H, N)}, {t(H, N)}, {t(H)}, {t(H)}) -> ({u}, {t(1, H, N)})
  return %y : {u}
}}
"""


TORCH_PEER = r"""
import sys, time, statistics, torch
torch.set_num_threads(int(sys.argv[1]))
H, L, repeat = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
g = torch.Generator().manual_seed(0)
u = torch.rand(1, H, L, generator=g) - 0.5
k = torch.rand(H, L, generator=g) - 0.5
def fftconv():
    n = 2 * L
    return torch.fft.irfft(torch.fft.rfft(u, n=n) * torch.fft.rfft(k, n=n), n=n)[..., :L]
fftconv()
ts = []
for _ in range(repeat):
    t0 = time.perf_counter(); fftconv(); ts.append((time.perf_counter() - t0) * 1e3)
print(f"median_ms={statistics.median(ts):.4f}")
"""


def warm(path, threads, env):
    """Compiles `path` into the cache (the first call of ssm-run; nothing timed)."""
    subprocess.run([SSM_RUN, path, "--engine", "cpu", "--seed", "1", "--threads", str(threads)],
                   env=env, check=True, stdout=subprocess.DEVNULL)


def ours(path, threads, repeat, env):
    return median_ms([SSM_RUN, path, "--engine", "cpu", "--seed", "1", "--threads", str(threads),
                      "--repeat", str(repeat)], env)


def torch_ms(threads, H, L, repeat, env):
    return median_ms([sys.executable, "-c", TORCH_PEER, str(threads), str(H), str(L), str(repeat)], env)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--lengths", default="1024,16384,65536")
    ap.add_argument("--channels", type=int, default=256)
    ap.add_argument("--state", type=int, default=16)
    ap.add_argument("--target", default="host")
    ap.add_argument("--skip-layer", action="store_true")
    ap.add_argument("--skip-conv", action="store_true")
    ap.add_argument("--compile-only", action="store_true")
    a = ap.parse_args()
    env = dict(os.environ)
    env.setdefault("SSM_CACHE_DIR", os.path.join(ROOT, "build", "compile-cache"))
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    tmp = tempfile.mkdtemp(prefix="ssm-lti-bench-")
    H = a.channels
    lengths = [int(x) for x in a.lengths.split(",")]
    if not a.compile_only:
        print(f"threads={a.threads} rounds={a.rounds} repeat={a.repeat} H={H} batch=1 "
              f"(medians of per-round medians, ms; ratio = ours / torch, below 1: ours faster)")
    for L in ([] if a.skip_conv else lengths):
        if L == lengths[0] and not a.compile_only:
            print(f"{'L':>6} {'direct':>10} {'fft':>10} {'torch rfft':>11} {'direct/torch':>13} "
                  f"{'fft/torch':>10} {'torch/fft':>10}")
        res = {"direct": [], "fft": [], "torch": []}
        paths = {}
        for alg in ("direct", "fft"):
            paths[alg] = os.path.join(tmp, f"conv_{alg}_{L}.mlir")
            with open(paths[alg], "w") as f:
                f.write(conv_mlir(alg, H, L))
            if a.compile_only:
                warm(paths[alg], a.threads, env)
        if a.compile_only:
            continue
        for r in range(a.rounds):
            for alg in ("direct", "fft"):
                if alg == "direct" and L > 16384 and r > 0:
                    continue  # O(L^2): one call, in the first round only
                rep = 1 if (alg == "direct" and L > 16384) else a.repeat
                res[alg].append(ours(paths[alg], a.threads, rep, env))
            res["torch"].append(torch_ms(a.threads, H, L, a.repeat, env))
        m = {k: statistics.median(v) for k, v in res.items()}
        print(f"{L:>6} {m['direct']:>10.2f} {m['fft']:>10.2f} {m['torch']:>11.2f} "
              f"{m['direct'] / m['torch']:>13.3f} {m['fft'] / m['torch']:>10.3f} "
              f"{m['torch'] / m['fft']:>10.2f}", flush=True)
    if a.skip_layer:
        return
    N = a.state
    if not a.compile_only:
        print(f"\nlayer: selective scan with constant step, real A, N={N}; forms from "
              f"ssm-lti-to-conv algorithm=...; picked = algorithm=auto (target={a.target}); "
              f"picked/best above 1.2 fails issue 14's check")
        print(f"{'L':>6} {'direct':>10} {'fft':>10} {'scan':>10} {'best':>6} {'picked':>8} "
              f"{'picked/best':>12}")
    for L in lengths:
        src = os.path.join(tmp, f"layer_{L}.mlir")
        with open(src, "w") as f:
            f.write(layer_mlir(H, N, L))
        forms = {}
        for form in ("direct", "fft", "scan"):
            forms[form] = os.path.join(tmp, f"layer_{form}_{L}.mlir")
            subprocess.run([SSM_OPT, src, f"-ssm-lti-to-conv=algorithm={form}", "-canonicalize",
                            "-o", forms[form]], check=True)
            if a.compile_only:
                warm(forms[form], a.threads, env)
        if a.compile_only:
            continue
        auto = subprocess.run([SSM_OPT, src, f"-ssm-lti-to-conv=target={a.target}"],
                              capture_output=True, text=True, check=True).stdout
        mm = re.search(r"ssm\.lti_conv (direct|fft)", auto)
        picked = mm.group(1) if mm else "scan"
        res = {k: [] for k in forms}
        for r in range(a.rounds):
            for form in forms:
                if form == "direct" and L > 16384 and r > 0:
                    continue
                rep = 1 if (form == "direct" and L > 16384) else a.repeat
                res[form].append(ours(forms[form], a.threads, rep, env))
        m = {k: statistics.median(v) for k, v in res.items()}
        best = min(m, key=m.get)
        print(f"{L:>6} {m['direct']:>10.2f} {m['fft']:>10.2f} {m['scan']:>10.2f} {best:>6} "
              f"{picked:>8} {m[picked] / m[best]:>12.2f}", flush=True)


if __name__ == "__main__":
    main()
