#!/usr/bin/python3
"""ssm.gated_delta_rule on the cpu engine: the chunked WY form (#ssm.schedule chunk = C)
against the token-by-token form (chunk = 0) of the same op, in one run, same shape and
thread count (issue 33: the chunked prefill should be >= 4x faster than the serial form
at L = 4096, 2 threads).

Shape: one Qwen3.5-0.8B Gated DeltaNet layer by default (16 key heads, 16 value heads,
Dk = Dv = 128, a scalar gate per value head), batch 1, L tokens (--lengths, default 4096),
q and k scaled to norm ~1 (beta ||k||^2 < 2, as the models' L2-normed keys), beta in
(0, 1), g = -exp(x - 3) (decays ~0.95 per token, as trained models mostly have); with
--per-channel the gate has one value per key channel (KDA). Also prints the default
chunk that ssm-assign-schedules picks for the shape (what the models run).

With NumPy (this file runs under /usr/bin/python3) the inputs are made in that form
once per shape and passed as .npy files, so the timed graph is the op alone; without it
(or with --in-graph) the graph makes them from ssm-run's uniform inputs (a few elementwise
ops, timed with the op in both forms). --vector-width sets the schedule's vector width
(default: the target's, what ssm-assign-schedules gives the models).

Each form alternates --rounds times; each run reports the median over --repeat calls;
the table shows medians of the per-round medians and serial/chunked (> 1: the chunked
form is faster). Needs build/bin/ssm-run and ssm-opt. --compile-only fills the compile
cache and prints nothing else (run it first, then time under chrt if you like).

--op wkv7 times ssm.wkv7 (RWKV-7's generalised delta rule) instead, at RWKV-7 0.1B's
layer shape by default (hidden 768: 12 heads of 64; --heads, --dk set them), its inputs
made as RWKV-7 makes them (w = -exp(-0.5) sigmoid(x), kk L2-normalised, a = -kk,
b = kk * iclr with iclr = sigmoid(x)); NumPy required.

Usage: bench/delta_rule_bench.py [--op gated_delta_rule|wkv7] [--threads 2] [--rounds 3] [--repeat 3] [--lengths 4096]
    [--chunks 0,16,32,64,128] [--heads 16] [--kv-heads 16] [--dk 128] [--dv 128]
    [--per-channel] [--vector-width N] [--in-graph] [--compile-only]
"""
import argparse
import os
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


def schedule(chunk, vw):
    if chunk is None:
        return ""
    fields = ([f"vector_width = {vw}"] if vw else []) + ["parallel = true", f"chunk = {chunk}"]
    return ", ssm.schedule = #ssm.schedule<" + ", ".join(fields) + ">"


def graph(L, hk, hv, dk, dv, per_channel, chunk, vw=None):
    """The op fed from ssm-run's uniform inputs through a few elementwise ops."""
    q, v = t(1, L, hk, dk), t(1, L, hv, dv)
    g = t(1, L, hv, dk) if per_channel else t(1, L, hv)
    b, s = t(1, L, hv), t(1, hv, dk, dv)
    sched = schedule(chunk, vw)
    knorm = (12.0 / dk) ** 0.5  # U(-0.5, 0.5) entries: E ||k||^2 = dk / 12
    return f"""func.func @main(%q0: {q}, %k0: {q}, %v: {v}, %x: {g}, %b0: {b}) -> ({v}, {s}) {{
  %c = arith.constant dense<{knorm}> : {q}
  %q = arith.mulf %q0, %c : {q}
  %k = arith.mulf %k0, %c : {q}
  %m3 = arith.constant dense<-3.0> : {g}
  %x3 = arith.addf %x, %m3 : {g}
  %e = math.exp %x3 : {g}
  %gate = arith.negf %e : {g}
  %half = arith.constant dense<0.5> : {b}
  %beta = arith.addf %b0, %half : {b}
  %o, %s1 = ssm.gated_delta_rule %q, %k, %v, %gate, %beta {{scale = {dk ** -0.5}: f64{sched}}}
      : ({q}, {q}, {v}, {g}, {b}) -> ({v}, {s})
  return %o, %s1 : {v}, {s}
}}
"""


def op_graph(L, hk, hv, dk, dv, per_channel, chunk, vw=None):
    """The op alone, its inputs given as .npy files (make_inputs)."""
    q, v = t(1, L, hk, dk), t(1, L, hv, dv)
    g = t(1, L, hv, dk) if per_channel else t(1, L, hv)
    b, s = t(1, L, hv), t(1, hv, dk, dv)
    sched = schedule(chunk, vw)
    return f"""func.func @main(%q: {q}, %k: {q}, %v: {v}, %gate: {g}, %beta: {b}) -> ({v}, {s}) {{
  %o, %s1 = ssm.gated_delta_rule %q, %k, %v, %gate, %beta {{scale = {dk ** -0.5}: f64{sched}}}
      : ({q}, {q}, {v}, {g}, {b}) -> ({v}, {s})
  return %o, %s1 : {v}, {s}
}}
"""


def wkv7_graph(L, h, n, chunk, vw=None):
    """ssm.wkv7 alone, its inputs given as .npy files (make_wkv7_inputs)."""
    x, s = t(1, L, h, n), t(1, h, n, n)
    sched = schedule(chunk, vw)
    attr = " {" + sched[2:] + "}" if sched else ""
    return f"""func.func @main(%r: {x}, %w: {x}, %k: {x}, %v: {x}, %a: {x}, %b: {x}) -> ({x}, {s}) {{
  %y, %s1 = ssm.wkv7 %r, %w, %k, %v, %a, %b{attr}
      : ({x}, {x}, {x}, {x}, {x}, {x}) -> ({x}, {s})
  return %y, %s1 : {x}, {s}
}}
"""


def make_wkv7_inputs(np, folder, L, h, n):
    """RWKV-7's inputs to its wkv: r, k, v normal(0, 0.5), w = -exp(-0.5) sigmoid(x),
    a = -kk, b = kk * iclr (kk L2-normalised, iclr = sigmoid(x))."""
    rng = np.random.default_rng(1)
    shape = (1, L, h, n)
    sig = lambda x: 1.0 / (1.0 + np.exp(-x))
    kk = rng.standard_normal(shape)
    kk /= np.sqrt((kk * kk).sum(-1, keepdims=True))
    arrays = {"r": rng.standard_normal(shape) * 0.5,
              "w": -np.exp(-0.5) * sig(rng.standard_normal(shape)),
              "k": rng.standard_normal(shape) * 0.5, "v": rng.standard_normal(shape) * 0.5,
              "a": -kk, "b": kk * sig(rng.standard_normal(shape))}
    paths = []
    for name, x in arrays.items():
        path = os.path.join(folder, f"{name}.npy")
        np.save(path, x.astype(np.float32))
        paths.append(path)
    return paths


def make_inputs(np, folder, L, hk, hv, dk, dv, per_channel):
    """The same distributions as graph(): q, k uniform scaled to E||k||^2 = 1, v uniform,
    g = -exp(x - 3), beta = x + 0.5 with x uniform in (-0.5, 0.5). Returns the paths."""
    rng = np.random.default_rng(1)
    knorm = (12.0 / dk) ** 0.5
    u = lambda *shape: rng.uniform(-0.5, 0.5, size=shape).astype(np.float32)
    gshape = (1, L, hv, dk) if per_channel else (1, L, hv)
    arrays = {"q": u(1, L, hk, dk) * np.float32(knorm), "k": u(1, L, hk, dk) * np.float32(knorm),
              "v": u(1, L, hv, dv), "g": -np.exp(u(*gshape) - np.float32(3.0)),
              "beta": u(1, L, hv) + np.float32(0.5)}
    paths = []
    for name, a in arrays.items():
        path = os.path.join(folder, f"{name}.npy")
        np.save(path, a.astype(np.float32))
        paths.append(path)
    return paths


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--op", default="gated_delta_rule", choices=["gated_delta_rule", "wkv7"])
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--lengths", default="4096")
    ap.add_argument("--chunks", default="0,16,32,64,128")
    ap.add_argument("--heads", type=int, default=0, help="value heads (default 16; wkv7 12)")
    ap.add_argument("--kv-heads", type=int, default=16, help="key heads")
    ap.add_argument("--dk", type=int, default=0, help="key head size (default 128; wkv7 64)")
    ap.add_argument("--dv", type=int, default=128)
    ap.add_argument("--per-channel", action="store_true")
    ap.add_argument("--vector-width", type=int, default=0,
                    help="the schedule's vector width (0: the target's default)")
    ap.add_argument("--in-graph", action="store_true",
                    help="make the inputs in the graph even where NumPy is present")
    ap.add_argument("--compile-only", action="store_true")
    a = ap.parse_args()
    wkv7 = a.op == "wkv7"
    a.heads = a.heads or (12 if wkv7 else 16)
    a.dk = a.dk or (64 if wkv7 else 128)
    np = None
    if not a.in_graph:
        try:
            import numpy as np  # noqa: F811
        except ImportError:
            np = None
    env = dict(os.environ)
    env.setdefault("SSM_CACHE_DIR", os.path.join(ROOT, "build", "compile-cache"))
    tmp = tempfile.mkdtemp(prefix="ssm-gdr-bench-")
    chunks = [int(c) for c in a.chunks.split(",")]
    make = op_graph if np is not None else graph
    if wkv7:
        if np is None:
            raise SystemExit("--op wkv7 needs NumPy (run with /usr/bin/python3)")
        make = lambda L, hk, hv, dk, dv, pc, c, vw=None: wkv7_graph(L, hv, dk, c, vw)
    for L in [int(x) for x in a.lengths.split(",")]:
        inputs = []
        if wkv7:
            inputs = make_wkv7_inputs(np, tmp, L, a.heads, a.dk)
        elif np is not None:
            inputs = make_inputs(np, tmp, L, a.kv_heads, a.heads, a.dk, a.dv, a.per_channel)
        files = {}
        for c in chunks:
            path = os.path.join(tmp, f"gdr_{L}_{c}.mlir")
            with open(path, "w") as f:
                f.write(make(L, a.kv_heads, a.heads, a.dk, a.dv, a.per_channel, c, a.vector_width))
            files[c] = path
        # The default the pipeline assigns (no schedule written).
        dpath = os.path.join(tmp, f"gdr_{L}_default.mlir")
        with open(dpath, "w") as f:
            f.write(make(L, a.kv_heads, a.heads, a.dk, a.dv, a.per_channel, None))
        out = subprocess.run([SSM_OPT, dpath, "--ssm-assign-schedules"], capture_output=True,
                             text=True)
        default = "?"
        for line in out.stdout.splitlines():
            if "ssm." + a.op in line and "chunk = " in line:
                default = line.split("chunk = ")[1].split(">")[0].split(",")[0]
        feed = [arg for p in inputs for arg in ("--input", p)]
        cmd = lambda p, rep: [SSM_RUN, p, "--engine", "cpu", "--seed", "1", "--threads",
                              str(a.threads), "--repeat", str(rep)] + feed
        if a.compile_only:
            for c in chunks:
                median_ms(cmd(files[c], 1), env)
            continue
        times = {c: [] for c in chunks}
        for _ in range(a.rounds):
            for c in chunks:
                times[c].append(median_ms(cmd(files[c], a.repeat), env))
        gate = "per-channel" if a.per_channel else "scalar"
        vw = a.vector_width or "target default"
        form = "op alone, .npy inputs" if inputs else "inputs made in the graph"
        shape = (f"ssm.wkv7 H={a.heads} N={a.dk}" if wkv7 else
                 f"Hk={a.kv_heads} Hv={a.heads} Dk={a.dk} Dv={a.dv} gate={gate}")
        print(f"L={L} {shape} "
              f"threads={a.threads} vector_width={vw} ({form}) rounds={a.rounds} repeat={a.repeat} "
              f"(medians of per-round medians, ms); default chunk here: {default}")
        serial = statistics.median(times[0]) if 0 in times else None
        print(f"{'chunk':>6} {'ms':>10} {'serial/this':>12}   per-round")
        for c in chunks:
            m = statistics.median(times[c])
            ratio = f"{serial / m:12.2f}" if serial else f"{'':>12}"
            print(f"{c:6d} {m:10.1f} {ratio}   " + " ".join(f"{x:.1f}" for x in times[c]))


if __name__ == "__main__":
    main()
