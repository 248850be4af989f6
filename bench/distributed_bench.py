#!/usr/bin/python3
"""Distributed prefill (docs/distributed.md): one process against R MPI ranks, one thread each.

Times the prefill of one L-token prompt through a Mamba-1 model (default: a
synthetic checkpoint at mamba-130m shapes, bench/synth_checkpoint.py: d_model
768, d_inner 1536, d_state 16, vocab 50280; --layers of them):

  single   ssm-run <model> --tokens T --engine cpu --threads 1 --repeat 1
           (median_ms: one forward_sequence call, embedding to logits)
  R ranks  mpirun -np R ssm-run <model> --tokens T --engine cpu --threads 1 --distributed
           (the last rank's "distributed prefill: ... in X ms": embedding,
           every layer with its exchanges, logits; compilation excluded)

in alternating rounds after one untimed warm-up of each (compilation), and
prints per configuration the median and the spread, the ratio single / R
ranks, and the bytes each rank receives per layer (halo rows and state
summaries). The machine's load is printed with each round: timings on a
loaded machine are not the algorithm's. So each distributed run also
reports every rank's CPU time per layer (SSM_DISTRIBUTED_TIMES=1), and the
script replays them as if each rank had a core of its own: rank r's layer l
starts when its layer l - 1 is done and the ranks before it are done with
layer l (their summaries; a middle rank's two runs count as one block, so
this bounds it from above), against the sum of the 1-rank run's layer CPU
times. That "dedicated-core" figure is a model built from measured CPU
times, not a wall-clock measurement, and is printed as such.

Usage: bench/distributed_bench.py --bin build/bin [--model DIR] [--layers 24]
           [--tokens 65536] [--ranks 2] [--rounds 3]
Needs python3-numpy, mpirun (Open MPI) and a build with MPI (-DSSM_MPI).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np


def run(cmd, env):
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"distributed_bench: {' '.join(cmd)} failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", required=True, help="the build's bin folder (ssm-run, ssm-import)")
    ap.add_argument("--model", help="an imported Mamba-1 model folder (default: synthesised)")
    ap.add_argument("--layers", type=int, default=24, help="layers of the synthesised model")
    ap.add_argument("--tokens", type=int, default=65536)
    ap.add_argument("--ranks", default="2", help="comma-separated rank counts to time")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", default="", help="folder for the model and tokens (default: a temp dir)")
    a = ap.parse_args()

    work = a.work or tempfile.mkdtemp(prefix="ssm-dist-bench-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    env.setdefault("SSM_CACHE_DIR", os.path.join(work, "cache"))
    env["SSM_DISTRIBUTED_TIMES"] = "1"
    here = os.path.dirname(os.path.abspath(__file__))
    model = a.model
    if not model:
        ckpt, model = os.path.join(work, "ckpt"), os.path.join(work, "model")
        if not os.path.exists(os.path.join(model, "model.json")):
            run([sys.executable, os.path.join(here, "synth_checkpoint.py"), "mamba", ckpt,
                 "--layers", str(a.layers), "--force"], env)
            run([os.path.join(a.bin, "ssm-import"), ckpt, "-o", model, "--force"], env)
    tokens = os.path.join(work, f"tokens{a.tokens}.npy")
    rng = np.random.default_rng(0)
    np.save(tokens, rng.integers(0, 50280, a.tokens, dtype=np.int32))
    ssm_run = os.path.join(a.bin, "ssm-run")
    single = [ssm_run, model, "--tokens", tokens, "--engine", "cpu", "--threads", "1", "--repeat", "1"]
    ranks = sorted(set([1] + [int(r) for r in a.ranks.split(",")]))

    def dist(r):
        return ["mpirun", "--oversubscribe", "-np", str(r), "-x", "SSM_DISTRIBUTED_TIMES", ssm_run,
                model, "--tokens", tokens, "--engine", "cpu", "--threads", "1", "--distributed"]

    def layer_cpu(out):
        """{rank: [cpu ms per layer]} from the SSM_DISTRIBUTED_TIMES lines."""
        per = {}
        for m in re.finditer(r"rank (\d+) layer (\d+): .*; cpu ([0-9.]+) ms", out):
            per.setdefault(int(m.group(1)), {})[int(m.group(2))] = float(m.group(3))
        return {r: [v[k] for k in sorted(v)] for r, v in per.items()}

    def replay(cpu):
        """Finish time of the last rank with one core per rank (see the docstring)."""
        ranks_, layers = sorted(cpu), len(next(iter(cpu.values())))
        done = {r: 0.0 for r in ranks_}
        for l in range(layers):
            ready = 0.0
            for r in ranks_:
                start = max(done[r], ready)
                done[r] = start + cpu[r][l]
                ready = max(ready, done[r])
        return done[ranks_[-1]]

    # Warm-up: compiles every graph (one per slice length) into the cache.
    run(single[:-2], env)
    for r in ranks:
        run(dist(r), env)
    times = {"single": []}
    times.update({r: [] for r in ranks})
    bytes_per_layer, modeled = {}, {r: [] for r in ranks}
    for i in range(a.rounds):
        order = ["single"] + ranks if i % 2 == 0 else ranks[::-1] + ["single"]
        for what in order:
            if what == "single":
                out = run(single, env)
                times["single"].append(float(re.search(r"median_ms=([0-9.]+)", out).group(1)))
            else:
                out = run(dist(what), env)
                m = re.search(r"in ([0-9.]+) ms; ([0-9]+) bytes received per layer", out)
                times[what].append(float(m.group(1)))
                bytes_per_layer[what] = int(m.group(2))
                modeled[what].append(replay(layer_cpu(out)))
        load = open("/proc/loadavg").read().split()[0]
        print(f"round {i + 1}: " + ", ".join(
            f"{k if k == 'single' else str(k) + ' ranks'} {v[-1]:.0f} ms" for k, v in times.items())
            + f" (load {load})", flush=True)
    base = statistics.median(times["single"])
    print(f"L = {a.tokens}, {a.layers if not a.model else '?'} layers, 1 thread per process, "
          f"{a.rounds} alternating rounds, medians:")
    print(f"  1 process : {base:.0f} ms (min {min(times['single']):.0f}, max {max(times['single']):.0f})")
    for r in ranks:
        med = statistics.median(times[r])
        print(f"  {r} ranks   : {med:.0f} ms (min {min(times[r]):.0f}, max {max(times[r]):.0f}), "
              f"{base / med:.2f}x the single process; {bytes_per_layer[r]} bytes received per "
              f"layer by the last rank")
    one = statistics.median(modeled[1])
    print("dedicated-core replay of the measured per-layer CPU times (a model, not a wall time):")
    for r in ranks:
        med = statistics.median(modeled[r])
        print(f"  {r} ranks   : {med:.0f} ms of layers, {one / med:.2f}x 1 rank")


if __name__ == "__main__":
    main()
