#!/usr/bin/python3
"""Whole-model benchmark: our compiled CPU kernels against PyTorch eager, in one run.

For each model, two forms:
  prefill  forward_sequence on --prefill tokens (512) from the initial state;
  decode   forward_step, one token at a time, over --decode tokens (64) from the
           initial state, reported per token.
Ours: the model is imported (ssm-import) into a temporary folder and run with
`ssm-run <dir> --engine cpu --threads N --tokens F --mode sequence|step --repeat R`:
its first run is the warm-up (compilation, or a lookup in $SSM_CACHE_DIR, weight
loading); the R timed runs that follow exclude all of that (see ssm-run --help).
Torch: bench/torch_models.py (eager, float32, inference_mode, set_num_threads(N),
OpenBLAS threads N, OMP_WAIT_POLICY=PASSIVE unless set, denormals flushed to zero),
one warm-up run then R timed runs, in this process; the same model at 1 thread is
measured alongside (tiny ops often run faster on one thread).
Ours and torch alternate --rounds times; each side's figure is the median of its
per-round medians. rwkv.cpp figures are quoted from issue 4 (measured there on this
machine kind with 2 threads), not measured in this run.

Usage: bench/model_bench.py [--models rwkv4,rwkv5,mamba] [--threads 2] [--rounds 3]
                            [--repeat 7] [--prefill 512] [--decode 64]
Needs build/bin/ssm-import, build/bin/ssm-run, build/bin/ssm-compile and python3-torch.
"""
import argparse
import ctypes
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# On a shared, loaded machine torch's OpenMP threads spinning at barriers make
# its 2-thread runs several times slower than 1 thread; passive waiting avoids
# most of that (set OMP_WAIT_POLICY yourself to override). Must precede torch.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_models as tm  # noqa: E402  (re-executes under /usr/bin/python3 when torch is missing)
import numpy as np  # noqa: E402
import torch  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
RWKV = os.path.join(SHARED, "models", "rwkv")
MAMBA = os.path.join(SHARED, "models", "mamba", "tiny-mamba-seed5")

# name -> (source for torch_models.load_model, ssm-import arguments, rwkv.cpp figures
# quoted from issue 4: (ms for a 512-token sequence, us per step) or None)
MODELS = {
    "rwkv4": (os.path.join(RWKV, "tiny-rwkv-4v0-660K-FP32.bin"),
              ["rwkv", os.path.join(RWKV, "tiny-rwkv-4v0-660K-FP32.bin")], (50.4, 245.0)),
    "rwkv5": (os.path.join(RWKV, "tiny-rwkv-5v2-730K-FP32.bin"),
              ["rwkv", os.path.join(RWKV, "tiny-rwkv-5v2-730K-FP32.bin")], (35.6, 567.0)),
    "mamba": (MAMBA, ["mamba", os.path.join(MAMBA, "model.safetensors"), "--config",
                      os.path.join(MAMBA, "config.json")], None),
}


def run(cmd, timeout):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr.strip()[-2000:]}")
    return p.stdout, p.stderr


def ours(args, model_dir, tokens_file, mode, timeout):
    out, _ = run([args.ssm_run, model_dir, "--engine", "cpu", "--threads", str(args.threads),
                  "--tokens", tokens_file, "--mode", mode, "--repeat", str(args.repeat)], timeout)
    m = re.search(r"median_ms=([0-9.eE+-]+)", out)
    if not m:
        raise RuntimeError(f"ssm-run printed no median_ms: {out!r}")
    return float(m.group(1))


def blas_in_use():
    """The BLAS library torch loaded (Debian's torch calls the system libblas.so.3)."""
    try:
        with open("/proc/self/maps") as f:
            libs = {line.split()[-1] for line in f if "blas" in line.lower() and "/" in line}
        real = sorted({os.path.realpath(l) for l in libs})
        return ", ".join(os.path.basename(os.path.dirname(r)) + "/" + os.path.basename(r) for r in real) or "?"
    except OSError:
        return "?"


def set_blas_threads(n):
    # OpenBLAS keeps its own thread count (default: every core); torch's
    # set_num_threads does not reach it.
    try:
        lib = ctypes.CDLL("libblas.so.3")
        if hasattr(lib, "openblas_set_num_threads"):
            lib.openblas_set_num_threads(n)
    except OSError:
        pass


def torch_time(model, tokens, mode, repeat):
    def once():
        st = model.initial_state()
        t0 = time.perf_counter()
        if mode == "sequence":
            model.forward_sequence(tokens, st)
        else:
            for t in tokens:
                _, st = model.forward_step(t, st)
        return (time.perf_counter() - t0) * 1e3
    once()  # warm-up
    return statistics.median(once() for _ in range(repeat))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="rwkv4,rwkv5,mamba", help="comma-separated: " + ",".join(MODELS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3, help="ours/torch alternations per case")
    ap.add_argument("--repeat", type=int, default=7, help="timed runs per round (after one warm-up)")
    ap.add_argument("--prefill", type=int, default=512, help="tokens in the prefill (sequence form)")
    ap.add_argument("--decode", type=int, default=64, help="tokens fed one at a time (step form)")
    ap.add_argument("--forms", default="prefill,decode")
    ap.add_argument("--wkv", default="chunked", choices=["chunked", "loop"],
                    help="torch RWKV time mixing in the sequence form")
    ap.add_argument("--no-torch-1-thread", dest="torch_1_thread", action="store_false",
                    help="skip the extra torch column at 1 thread (tiny ops often run faster on one "
                         "thread, and on a loaded machine 2 OpenMP threads wait on each other)")
    ap.add_argument("--compile-timeout", type=float, default=3600,
                    help="seconds allowed for an ssm-run call that compiles (the first of each form)")
    ap.add_argument("--ssm-run", default=os.path.join(ROOT, "build", "bin", "ssm-run"))
    ap.add_argument("--ssm-import", default=os.path.join(ROOT, "build", "bin", "ssm-import"))
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)
    blas = blas_in_use()
    set_blas_threads(args.threads)
    names = [n.strip() for n in args.models.split(",") if n.strip()]
    for n in names:
        if n not in MODELS:
            ap.error(f"unknown model '{n}' (known: {', '.join(MODELS)})")
    forms = [f.strip() for f in args.forms.split(",") if f.strip()]

    rng = np.random.default_rng(0)
    tmp = tempfile.mkdtemp(prefix="ssm-model-bench-")
    rows = []
    print(f"threads {args.threads} (ours: ssm-run --threads; torch: set_num_threads), rounds {args.rounds}, "
          f"repeat {args.repeat}, torch {torch.__version__} (BLAS {blas}, OMP_WAIT_POLICY={os.environ['OMP_WAIT_POLICY']}), cache {os.environ.get('SSM_CACHE_DIR', '~/.cache/ssm-opt')}",
          flush=True)
    for name in names:
        src, import_args, quoted = MODELS[name]
        model = tm.load_model(src, wkv=args.wkv) if not os.path.isdir(src) else tm.load_model(src)
        vocab = model.n_vocab
        model_dir = os.path.join(tmp, name)
        run([args.ssm_import] + import_args + ["-o", model_dir], 600)
        for form in forms:
            n = args.prefill if form == "prefill" else args.decode
            mode = "sequence" if form == "prefill" else "step"
            toks = rng.integers(0, vocab, size=n).astype(np.int32)
            tok_file = os.path.join(tmp, f"{name}-{form}.npy")
            np.save(tok_file, toks)
            ttoks = torch.from_numpy(toks.astype(np.int64))
            our_ms, torch_ms, torch1_ms, note = [], [], [], ""
            try:
                t0 = time.time()
                # The first call compiles (or finds the kernels in the cache).
                our_ms.append(ours(args, model_dir, tok_file, mode, args.compile_timeout))
                first = time.time() - t0
                for r in range(args.rounds):
                    if r:
                        our_ms.append(ours(args, model_dir, tok_file, mode, 600))
                    with torch.inference_mode():
                        torch_ms.append(torch_time(model, ttoks, mode, args.repeat))
                        if args.torch_1_thread and args.threads != 1:
                            torch.set_num_threads(1)
                            set_blas_threads(1)
                            torch1_ms.append(torch_time(model, ttoks, mode, args.repeat))
                            torch.set_num_threads(args.threads)
                            set_blas_threads(args.threads)
                note = f"first ssm-run call {first:.0f} s"
            except subprocess.TimeoutExpired:
                note = f"ssm-run timed out after {args.compile_timeout:.0f} s (compilation)"
            except RuntimeError as e:
                note = "ssm-run failed: " + str(e).splitlines()[-1][:200]
            o = statistics.median(our_ms) if our_ms else None
            t = statistics.median(torch_ms) if torch_ms else None
            t1 = statistics.median(torch1_ms) if torch1_ms else None
            q = None
            if quoted:
                q = quoted[0] * n / 512 if form == "prefill" else quoted[1] * n / 1e3
            rows.append(dict(model=name, desc=model.describe(), form=form, n=n, ours=o, torch=t, torch1=t1, quoted=q,
                             note=note, rounds_ours=our_ms, rounds_torch=torch_ms))
            print(f"  {name} {form}: per-round medians, ms: ours {[round(x, 2) for x in our_ms]}, torch "
                  f"{[round(x, 2) for x in torch_ms]}" + (f", torch 1 thread {[round(x, 2) for x in torch1_ms]}"
                                                          if torch1_ms else "") + f"  ({note})", flush=True)

    shutil.rmtree(tmp, ignore_errors=True)
    print()
    print(f"Medians over {args.rounds} rounds x {args.repeat} runs, {args.threads} threads on both sides. "
          "prefill: one forward_sequence call on the tokens, per call; decode: forward_step per token.")
    print("rwkv.cpp: QUOTED from issue 4 (2 threads, this machine kind), NOT measured in this run.")
    hdr = ("model", "form", "tokens", "ours", "torch eager", "ours/torch", "ours tok/s", "torch tok/s",
           "torch 1 thr", "ours/torch 1 thr", "rwkv.cpp (QUOTED)", "ours/rwkv.cpp")
    lines = []
    for r in rows:
        n, prefill = r["n"], r["form"] == "prefill"
        # prefill: ms per call of n tokens; decode: us per token.
        per = lambda x: None if x is None else (x if prefill else x * 1e3 / n)
        o, t, t1, q = per(r["ours"]), per(r["torch"]), per(r["torch1"]), per(r["quoted"])
        show = lambda x: "-" if x is None else (f"{x:.2f} ms" if prefill else f"{x:.0f} us/tok")
        ratio = lambda a, b: "-" if a is None or b is None else f"{a / b:.3f}"
        tps = lambda x: "-" if x is None else f"{(n / (x / 1e3)) if prefill else (1e6 / x):.0f}"
        lines.append((r["model"], r["form"], str(n), show(o), show(t), ratio(o, t), tps(o), tps(t), show(t1),
                      ratio(o, t1), show(q), ratio(o, q)))
    widths = [max(len(h), *(len(l[i]) for l in lines)) if lines else len(h) for i, h in enumerate(hdr)]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(hdr, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for l in lines:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(l, widths)) + " |")
    print()
    for r in rows:
        print(f"{r['model']}: {r['desc']}" + (f"; {r['form']}: {r['note']}" if r["note"] else ""))
    print("ratios are time ratios: below 1 means ours is faster. 'torch 1 thr': the same torch model at "
          "1 thread, measured alongside.")
    return 0 if all(r["ours"] is not None for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
