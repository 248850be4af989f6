#!/usr/bin/python3
"""Whole models at the sizes people deploy: ours against llama.cpp, rwkv.cpp and PyTorch eager.

Models (synthetic weights written by bench/synth_checkpoint.py, nothing downloaded):
  mamba130m   Mamba-1 at mamba-130m shapes (d_model 768, 24 layers, vocab 50280,
              d_state 16, tied head), Hugging Face layout; llama.cpp reads the same
              weights as GGUF (F32, F16 or Q8_0: the one matching --weights).
  rwkv4-169m  RWKV-4 at 169M shapes (768 x 12, vocab 50277), rwkv.cpp's format (FP32).
  rwkv7-0.1b  RWKV-7 at RWKV-7 0.1B shapes (768 x 12, heads of 64, vocab 65536, FFN
              3072, low-rank 64 / 64 / 32 / 128) as llama.cpp's `rwkv7` GGUF, which
              both llama.cpp and ours (`ssm-import model-<type>.gguf`) read.
  lfm2-350m   LFM2 at LFM2-350M shapes (hidden 1024, 16 layers: attention at layers
              2, 5, 8, 10, 12, 14 with 16 heads / 8 KV heads of 64, the rest gated short
              convolutions with L_cache 3; SwiGLU width 4608, vocab 65536, tied head).
  granite-h-350m
              Granite 4.0-H at Granite-4.0-H-350M-like shapes (hidden 768, 32 layers:
              attention at layers 4, 12, 20, 28 with 12 heads / 4 KV heads, no RoPE, the
              rest Mamba-2 with 48 heads of 32, d_state 128, one group; dense shared
              SwiGLU MLP 2048, vocab 100352, tied head).
  qwen35-0.8b Qwen3.5 dense text model at Qwen3.5-0.8B-like shapes (hidden 1024, 24
              layers: gated attention at every 4th layer with 8 heads / 2 KV heads of 256,
              a quarter of each rotated, the rest Gated DeltaNet with 16 key and 16 value
              heads of 128, conv 4; SwiGLU 3584, vocab 248320, tied head).
              All hybrids: Hugging Face layout, imported with `ssm-import <folder>
              --context N` (N: --context, default 4608); llama.cpp reads the same
              weights as GGUF, as for mamba130m. No torch peer (bench/torch_models.py
              has none).
Forms:
  prefill     --prefill tokens (512) from the initial state, logits of the last position
              only (ours: @forward_sequence; llama.cpp: llama-bench pp512, whose batch asks
              for the last logits; rwkv.cpp: rwkv_eval_sequence_in_chunks).
  decode      --decode tokens (64) one at a time with logits after each (ours:
              @forward_step; llama.cpp: llama-bench tg64; rwkv.cpp: rwkv_eval), per token.
  deep-decode the same --decode tokens stepped after --depth (4096) tokens of context,
              per token: the hybrids' attention layers read a 4096-position KV cache
              (ours: ssm-run --mode step --decode-from 4096 on 4096 + 64 tokens, the
              prefill untimed; llama.cpp: llama-bench -n 64 -d 4096, whose depth pass is
              untimed too, and done once per llama-bench call, its state then restored;
              ours prefills before every run, so a round takes minutes at 350M).
              rwkv.cpp and torch: not measured. If this ssm-run has no --decode-from,
              ours is left out ("-") with a note.
Ours: `ssm-run <model-dir> --engine cpu --threads N --mode sequence|step --repeat R`
(its first run is a warm-up: compilation or a cache lookup, weight mapping). The peers
and ours alternate --rounds times; each figure is the median of the per-round medians.
Peers are optional and built locally for the measurement only (never vendored):
  --llama-bench PATH   llama.cpp's llama-bench (cmake -DGGML_NATIVE=ON; -t N threads)
  --rwkv-lib PATH      rwkv.cpp's librwkv.so (driven by bench/rwkv_cpp_peer.c, ours)
  torch                bench/torch_models.py (eager, float32), unless --no-torch; timed
                       in a child process of its own, so that torch's and OpenBLAS's
                       spinning worker threads never share the machine with another
                       engine (they slowed llama.cpp and rwkv.cpp 1.3-2.8x when torch
                       lived in this process)

Weights (--weights, default f32): ours imports the checkpoint with `ssm-import --weights W`
(f32, f16, bf16, or q8: int8 with an f16 scale per block of 32, as Q8_0) and llama.cpp
reads the matching GGUF (f32 -> F32, f16 -> F16, bf16 -> BF16, q8 -> Q8_0). rwkv.cpp
always reads the FP32 file.

llama-bench runs with its defaults (F16 KV cache, flash attention "auto").

--llama-no-repack: llama.cpp's prefill and decode timed by bench/gguf/llama_decode.cpp
(ours, compiled into --work against the checkout above --llama-bench's build/bin) instead
of llama-bench, with llama.cpp's repacked weight buffers off (use_extra_bufts = false,
what llama-cli's --no-repack sets): llama-bench has no option for it (its -ot PATTERN=CPU
still picks the repacked CPU_REPACK / AMX buffers), and on this sandbox's AMX machines
their kernels were seen to die with an illegal instruction (bench/gguf/llama_logits.cpp
turns them off for that reason; llama-bench's Q8_0 decode with them ran here on 2026-12-06).
Same timing as llama-bench's pp / tg (a context of N tokens, default context parameters,
one warm-up decode, random ids). Not for deep-decode.
On a loaded machine (load average above the core count) prefer --threads 1: llama.cpp's
threads spin at each op's barrier, and with 2 threads on 2 busy cores a descheduled
partner cost it 10x (lfm2-350m Q8_0 decode 3.9 s/token against 0.33 s at 1 thread, load 11).

--ours-from-gguf: ours (the Hugging Face layout models: mamba130m and the hybrids)
imported from the very GGUF llama.cpp reads (`ssm-import model-<type>.gguf`: Q8_0
matrices kept as our q8 blocks byte for byte, the activations rounded as llama.cpp's
CPU matmuls round them, docs/gguf.md) instead of from the safetensors checkpoint with
--weights.

Usage: bench/realsize_bench.py [--models mamba130m,rwkv4-169m,lfm2-350m,granite-h-350m,qwen35-0.8b]
          [--forms prefill,decode,deep-decode] [--threads 2] [--rounds 3]
          [--weights f32|f16|bf16|q8|q4_0|q4_k] [--llama-bench PATH] [--rwkv-lib PATH] [--work DIR]
          [--depth 4096] [--context 4608] [--no-torch] [--llama-no-repack] [--ours-from-gguf]
The checkpoints (about 0.5-0.7 GB each, 1.4 GB for lfm2 / granite-h and 3 GB for qwen35
in F32, plus the GGUF and our imported folder) are kept in --work (default ~/.cache/ssm-opt-bench) and reused.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import median_ms  # noqa: E402  (bench/run.py: runs a command, reads its median_ms=)
ROOT = os.path.dirname(HERE)
SYNTH = os.path.join(HERE, "synth_checkpoint.py")
# --weights -> the GGUF type llama.cpp reads (synth_checkpoint.py writes no BF16 GGUF).
GGUF_OF = {"f32": "f32", "f16": "f16", "bf16": "bf16", "q8": "q8_0", "q4_0": "Q4_0", "q4_k": "Q4_K"}
# The types llama.cpp's llama-quantize writes from the F32 GGUF (--llama-quantize);
# ours then imports that very file (as --ours-from-gguf).
QUANTIZED = ("q4_0", "q4_k")
# Models in the Hugging Face layout: name -> (synth_checkpoint.py kind, folder in --work,
# vocabulary, whether ssm-import reads the folder as a hybrid (with --context)).
HF_MODELS = {"mamba130m": ("mamba", "mamba-130m", 50280, False),
             "lfm2-350m": ("lfm2", "lfm2-350m", 65536, True),
             "granite-h-350m": ("granite-h", "granite-h-350m", 100352, True),
             "qwen35-0.8b": ("qwen35", "qwen35-0.8b", 248320, True)}


def run(cmd, timeout=3600, env=None):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {p.returncode}:\n{p.stderr.strip()[-2000:]}")
    return p.stdout


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


class Model:
    def __init__(self, name, args):
        self.name, self.args = name, args
        w = args.work
        self.hybrid = False
        if name in HF_MODELS:
            self.synth_kind, folder, self.vocab, self.hybrid = HF_MODELS[name]
            self.ckpt = os.path.join(w, folder)
            self.gguf = os.path.join(self.ckpt, f"model-{GGUF_OF[args.weights]}.gguf")
        elif name == "rwkv4-169m":
            self.ckpt = os.path.join(w, "rwkv4-169m.bin")
            self.vocab = 50277
        elif name == "rwkv7-0.1b":
            self.ckpt = os.path.join(w, "rwkv7-0.1b")
            self.gguf = os.path.join(self.ckpt, f"model-{GGUF_OF[args.weights]}.gguf")
            self.vocab = 65536
        else:
            raise SystemExit(f"realsize_bench: unknown model '{name}' "
                             f"({', '.join(list(HF_MODELS) + ['rwkv4-169m', 'rwkv7-0.1b'])})")
        self.ours_dir = os.path.join(w, f"ours-{name}" + ("" if args.weights == "f32" else f"-{args.weights}")
                                     + ("-gguf" if args.ours_from_gguf and name in HF_MODELS else ""))
        # bench/torch_models.py implements Mamba and RWKV only
        self.torch_ok = name in ("mamba130m", "rwkv4-169m")

    def prepare(self):
        """Writes the synthetic checkpoint (and its GGUF) and imports ours, each unless
        already in --work. A hybrid imported with another --context is imported again."""
        a = self.args
        if self.name in HF_MODELS:
            types = sorted({"f32", "f32" if a.weights in QUANTIZED else GGUF_OF[a.weights]})
            missing = [t for t in types if not os.path.exists(os.path.join(self.ckpt, f"model-{t}.gguf"))]
            if not os.path.exists(os.path.join(self.ckpt, "model.safetensors")) or missing:
                run([sys.executable, SYNTH, self.synth_kind, self.ckpt, "--gguf", ",".join(types), "--force"])
            if a.weights in QUANTIZED and not os.path.exists(self.gguf):
                self.quantize()
            if a.weights in QUANTIZED:
                src, extra = [self.gguf], (["--context", str(a.context)] if self.hybrid else [])
            elif a.ours_from_gguf:
                src, extra = [self.gguf], (["--context", str(a.context)] if self.hybrid else [])
            elif self.hybrid:
                src, extra = [self.ckpt], ["--context", str(a.context)]
            else:
                src, extra = ["mamba", os.path.join(self.ckpt, "model.safetensors")], []
        elif self.name == "rwkv7-0.1b":
            types = sorted({"f32", GGUF_OF[a.weights]})
            if any(not os.path.exists(os.path.join(self.ckpt, f)) for f in
                   ["model.bin"] + [f"model-{t}.gguf" for t in types]):
                run([sys.executable, SYNTH, "rwkv7", self.ckpt, "--gguf", ",".join(types), "--force"])
            # ours from the very GGUF llama.cpp reads (the same weights as model.bin)
            src, extra = [self.gguf], []
        else:
            if not os.path.exists(self.ckpt):
                run([sys.executable, SYNTH, "rwkv4", self.ckpt])
            src, extra = ["rwkv", self.ckpt], []
        stamp = os.path.join(self.ours_dir, "bench-import.json")  # the ssm-import options it was made with
        want = {"weights": a.weights, "seq_len": a.prefill, "extra": extra}
        if self.name in HF_MODELS and a.ours_from_gguf:
            want["source"] = os.path.basename(self.gguf)
        try:
            with open(stamp) as f:
                have = json.load(f)
        except (OSError, ValueError):
            # a folder from before this stamp existed: fine for the models without options
            have = want if not extra and os.path.exists(os.path.join(self.ours_dir, "model.json")) else None
        if have != want or not os.path.exists(os.path.join(self.ours_dir, "model.json")):
            # From the GGUF: its own storage (Q8_0 kept as q8, F16 as f16; --weights source).
            weights = ("source" if (self.name in HF_MODELS and a.ours_from_gguf) or self.name == "rwkv7-0.1b"
                       or a.weights in QUANTIZED else a.weights)
            print(run([a.ssm_import] + src + ["-o", self.ours_dir, "--force", "--seq-len", str(a.prefill),
                                              "--weights", weights] + extra).strip(), flush=True)
            with open(stamp, "w") as f:
                json.dump(want, f)

    def quantize(self):
        """model-<Q4_0|Q4_K>.gguf from the F32 GGUF by llama.cpp's llama-quantize (the
        --llama-quantize binary, else the one beside --llama-bench). Matrices whose
        rows do not split into the type's blocks: Q4_K falls back by itself (to
        Q5_0 / Q8_0 / F16, as llama-quantize decides); Q4_0 has no fallback, so
        Mamba's dt projection (48 columns at mamba-130m) is kept F16."""
        a = self.args
        q = a.llama_quantize or (os.path.join(os.path.dirname(a.llama_bench), "llama-quantize")
                                 if a.llama_bench else None)
        if not q or not os.path.exists(q):
            raise SystemExit("realsize_bench: --weights %s needs llama.cpp's llama-quantize "
                             "(--llama-quantize PATH, or one beside --llama-bench)" % a.weights)
        extra = ["--tensor-type", "ssm_dt=f16"] if a.weights == "q4_0" else []
        run([q] + extra + [os.path.join(self.ckpt, "model-f32.gguf"), self.gguf, GGUF_OF[a.weights], "2"])

    def peer_name(self):
        if self.name in HF_MODELS or self.name == "rwkv7-0.1b":
            return "llama.cpp" if self.args.llama_bench else None
        return "rwkv.cpp" if self.args.rwkv_lib else None


class OptionMissing(Exception):
    """This ssm-run does not know a command-line option the form needs."""


def ours_ms(args, model, tokens, mode, decode_from=0, repeat=None):
    """Median ms of our timed runs (bench/run.py's median_ms; repeat: --repeat unless
    given); with decode_from P (step mode) the first P tokens are prefilled untimed
    before each run (ssm-run --decode-from), and OptionMissing is raised when this
    ssm-run has no --decode-from."""
    cmd = [args.ssm_run, model.ours_dir, "--engine", "cpu", "--threads", str(args.threads),
           "--tokens", tokens, "--mode", mode, "--repeat", str(repeat or args.repeat)]
    if not decode_from:
        return median_ms(cmd)
    cmd.append(f"--decode-from={decode_from}")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0 and "Unknown command line argument '--decode-from" in p.stderr:
        raise OptionMissing("this ssm-run has no --decode-from")
    m = re.search(r"median_ms=([0-9.eE+-]+)", p.stdout)
    if p.returncode != 0 or not m:
        sys.stderr.write(p.stdout + p.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return float(m.group(1))


def llama_ms(args, model, form):
    n = args.prefill if form == "prefill" else args.decode
    if args.llama_no_repack:
        if form == "deep-decode":
            raise SystemExit("realsize_bench: --llama-no-repack times prefill and decode only")
        out = run([args.llama_decode, model.gguf, form, str(n), str(args.threads), str(args.repeat)])
        res = json.loads(out)
        return statistics.median(res[0]["samples_ns"]) / 1e6
    cmd = [args.llama_bench, "-m", model.gguf, "-t", str(args.threads), "-r", str(args.repeat),
           "-o", "json", "-p", str(n if form == "prefill" else 0), "-n", str(0 if form == "prefill" else n)]
    if form == "deep-decode":
        cmd += ["-d", str(args.depth)]
    try:
        out = run(cmd)
    except RuntimeError as e:
        if "cur_backend_id != -1" in str(e):
            # Seen on Intel Sapphire Rapids: with -DGGML_NATIVE=ON ggml builds
            # its AMX buffer type, which cannot hold the F16 and Q8_0 Mamba
            # tensors, and llama-bench aborts while scheduling the graph.
            raise SystemExit(
                f"realsize_bench: llama-bench aborted on {model.gguf} in ggml's backend scheduler "
                "(GGML_ASSERT(*cur_backend_id != -1)): its AMX buffer type, built on a CPU with AMX, "
                "does not take Mamba's F16/Q8_0 tensors. Rebuild llama.cpp without AMX: cmake ... "
                "-DCMAKE_C_FLAGS='-mno-amx-int8 -mno-amx-tile -mno-amx-bf16' -DCMAKE_CXX_FLAGS='-mno-amx-int8 "
                "-mno-amx-tile -mno-amx-bf16' (README, 'Real-size models').") from None
        raise
    res = json.loads(out)
    ns = res[0].get("samples_ns") or [res[0]["avg_ns"]]
    return statistics.median(ns) / 1e6


def rwkv_ms(args, model, tokens_i32, form):
    return median_ms([args.rwkv_peer, args.rwkv_lib, model.ckpt, tokens_i32, str(args.threads),
                      form, str(args.repeat), str(args.rwkv_chunk)])


def torch_worker(args):
    """--torch-worker: time the torch model in this (child) process and exit, so that
    torch's and OpenBLAS's worker threads never linger beside the other engines."""
    import numpy as np
    import torch
    sys.path.insert(0, HERE)
    import torch_models as tm
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)
    try:
        import ctypes
        lib = ctypes.CDLL("libblas.so.3")
        if hasattr(lib, "openblas_set_num_threads"):
            lib.openblas_set_num_threads(args.threads)
    except OSError:
        pass
    ckpt, npy, mode = args.torch_worker
    tmod = tm.load_model(ckpt)
    tt = torch.from_numpy(np.load(npy).astype(np.int64))
    ms = []
    with torch.inference_mode():
        for r in range(args.repeat + 1):
            st = tmod.initial_state()
            t0 = time.perf_counter()
            if mode == "sequence":
                tmod.forward_sequence(tt, st)
            else:
                for tok in tt:
                    _, st = tmod.forward_step(tok, st)
            if r:
                ms.append((time.perf_counter() - t0) * 1e3)
    print(f"median_ms={statistics.median(ms):.4f}")


def torch_ms(args, model, npy, mode):
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    return median_ms([sys.executable, os.path.abspath(__file__), "--threads", str(args.threads), "--repeat",
                      str(args.repeat), "--torch-worker", model.ckpt, npy, mode], env)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="mamba130m,rwkv4-169m")
    ap.add_argument("--forms", default="prefill,decode",
                    help="comma-separated: prefill, decode, deep-decode (decode after --depth tokens)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per round and side (after a warm-up)")
    ap.add_argument("--prefill", type=int, default=512)
    ap.add_argument("--decode", type=int, default=64)
    ap.add_argument("--depth", type=int, default=4096, help="deep-decode: context tokens before the decode")
    ap.add_argument("--context", type=int, default=4608,
                    help="hybrids: ssm-import --context, the positions our KV cache holds")
    ap.add_argument("--weights", default="f32", choices=["f32", "f16", "bf16", "q8", "q8_0", "q4_0", "q4_k"],
                    help="weight storage: ours (ssm-import --weights) and llama.cpp's matching GGUF; "
                         "q4_0 / q4_k: llama-quantize's file, which ours imports too")
    ap.add_argument("--llama-quantize", default=None,
                    help="llama.cpp's llama-quantize for --weights q4_0 / q4_k (default: beside --llama-bench)")
    ap.add_argument("--llama-bench", default=None)
    ap.add_argument("--llama-no-repack", action="store_true",
                    help="time llama.cpp with bench/gguf/llama_decode.cpp, repacked weight buffers off")
    ap.add_argument("--ours-from-gguf", action="store_true",
                    help="mamba130m and the hybrids: import ours from the GGUF llama.cpp reads")
    ap.add_argument("--rwkv-lib", default=None)
    ap.add_argument("--rwkv-chunk", type=int, default=16, help="rwkv_eval_sequence_in_chunks chunk")
    ap.add_argument("--no-torch", dest="torch", action="store_false")
    ap.add_argument("--work", default=os.path.join(os.path.expanduser("~"), ".cache", "ssm-opt-bench"))
    ap.add_argument("--ssm-run", default=os.path.join(ROOT, "build", "bin", "ssm-run"))
    ap.add_argument("--ssm-import", default=os.path.join(ROOT, "build", "bin", "ssm-import"))
    ap.add_argument("--torch-worker", nargs=3, metavar=("CKPT", "TOKENS", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.weights == "q8_0":
        args.weights = "q8"  # llama.cpp's name, accepted as before
    if args.torch_worker:
        return torch_worker(args)
    os.makedirs(args.work, exist_ok=True)
    import numpy as np

    if args.llama_no_repack:
        if not args.llama_bench:
            raise SystemExit("realsize_bench: --llama-no-repack needs --llama-bench (its checkout is used)")
        lroot = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(args.llama_bench))))
        lbin = os.path.dirname(os.path.abspath(args.llama_bench))
        args.llama_decode = os.path.join(args.work, "llama_decode")
        run(["g++", "-O2", "-std=c++17", "-I" + os.path.join(lroot, "include"),
             "-I" + os.path.join(lroot, "ggml", "include"), os.path.join(HERE, "gguf", "llama_decode.cpp"),
             "-L" + lbin, "-lllama", "-lggml", "-lggml-base", "-Wl,-rpath," + lbin, "-o", args.llama_decode])
    if args.rwkv_lib:
        args.rwkv_peer = os.path.join(args.work, "rwkv_cpp_peer")
        run(["cc", "-O2", os.path.join(HERE, "rwkv_cpp_peer.c"), "-o", args.rwkv_peer, "-ldl"])

    forms = [f for f in args.forms.split(",") if f]
    for f in forms:
        if f not in ("prefill", "decode", "deep-decode"):
            raise SystemExit(f"realsize_bench: unknown form '{f}' (prefill, decode, deep-decode)")
    if "deep-decode" in forms and args.depth + args.decode > args.context:
        raise SystemExit(f"realsize_bench: --depth {args.depth} + --decode {args.decode} exceeds "
                         f"--context {args.context}")
    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores; threads {args.threads} on every side; "
          f"rounds {args.rounds} x repeat {args.repeat}; prefill {args.prefill} tokens, decode "
          f"{args.decode} tokens" + (f" (deep-decode: after {args.depth})" if "deep-decode" in forms else "")
          + f"; weights {args.weights} (llama.cpp {GGUF_OF[args.weights].upper()})"
          + ("; llama.cpp via bench/gguf/llama_decode.cpp, repacking off" if args.llama_no_repack else "")
          + ("; ours imported from the same GGUF" if args.ours_from_gguf else "")
          + f"; load average {' '.join('%.1f' % x for x in os.getloadavg())}", flush=True)
    rng = np.random.default_rng(0)
    rows = []
    for name in [m for m in args.models.split(",") if m]:
        model = Model(name, args)
        model.prepare()
        for form in forms:
            n = args.prefill if form == "prefill" else args.decode
            depth = args.depth if form == "deep-decode" else 0
            toks = rng.integers(0, model.vocab, size=depth + n).astype(np.int32)
            npy = os.path.join(args.work, f"{name}-{form}.npy")
            raw = os.path.join(args.work, f"{name}-{form}.i32")
            np.save(npy, toks)
            toks.tofile(raw)
            mode = "sequence" if form == "prefill" else "step"
            peer = model.peer_name()
            if form == "deep-decode" and peer == "rwkv.cpp":
                peer = None  # bench/rwkv_cpp_peer.c has no depth form
            use_torch = args.torch and model.torch_ok and form != "deep-decode"
            try:
                # compiles or finds the kernels in the cache (one timed run: a deep-decode
                # run prefills --depth tokens first)
                ours_ms(args, model, npy, mode, depth, repeat=1)
                ours_ok = True
            except OptionMissing as e:
                print(f"  {name} {form}: ours left out: {e}", flush=True)
                ours_ok = False
            o, p, t = [], [], []
            for _ in range(args.rounds):
                if ours_ok:
                    o.append(ours_ms(args, model, npy, mode, depth))
                if peer == "llama.cpp":
                    p.append(llama_ms(args, model, form))
                elif peer == "rwkv.cpp":
                    p.append(rwkv_ms(args, model, raw, form))
                if use_torch:
                    t.append(torch_ms(args, model, npy, mode))
            rows.append(dict(model=name, form=form, n=n, depth=depth, peer=peer,
                             ours=statistics.median(o) if o else None,
                             peer_ms=statistics.median(p) if p else None,
                             torch=statistics.median(t) if t else None, rounds=(o, p, t)))
            print(f"  {name} {form}: rounds, ms: ours {[round(x, 1) for x in o]} peer "
                  f"{[round(x, 1) for x in p]} torch {[round(x, 1) for x in t]}"
                  + (f"; per-round ours / peer {[round(x / y, 2) for x, y in zip(o, p)]}" if o and p else "")
                  + f"; load average {' '.join('%.1f' % x for x in os.getloadavg())}", flush=True)

    print()
    print("| model | form | ours | peer | peer time | ours / peer | torch eager | ours / torch |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        per = (lambda x: x) if r["form"] == "prefill" else (lambda x: x / r["n"])
        unit = "ms" if r["form"] == "prefill" else "ms/token"
        show = lambda x: "-" if x is None else f"{per(x):.2f} {unit}"
        ratio = lambda a, b: "-" if a is None or b is None else f"{a / b:.2f}"
        at = f" at {r['depth']}" if r["depth"] else ""
        print(f"| {r['model']} | {r['form']} ({r['n']} tokens{at}) | {show(r['ours'])} | {r['peer'] or '-'} | "
              f"{show(r['peer_ms'])} | {ratio(r['ours'], r['peer_ms'])} | {show(r['torch'])} | "
              f"{ratio(r['ours'], r['torch'])} |")


if __name__ == "__main__":
    main()
