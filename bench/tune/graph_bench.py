#!/usr/bin/python3
"""A whole graph with its heuristic schedules against the same graph tuned, in one run.

For each graph: `ssm-run GRAPH --engine cpu --seed 1 --threads N --repeat R`
without and with `--tuning-db DB` (the schedules ssm-tune chose; ops without a
record keep the heuristic), alternating --rounds times; each side's figure is
the median of its per-round medians. Run `ssm-tune GRAPH --db DB` first.
A model folder (ssm-import output) instead runs `ssm-run DIR --tokens NPY
--mode M` for each --mode given (sequence: one forward_sequence call on the
tokens, the prefill; step: forward_step per token, the decode), after one
warm-up run per side (compilation or the compile cache, not timed).

Usage: bench/tune/graph_bench.py --db tuning.db GRAPH.mlir|MODEL_DIR... [--threads 2] [--rounds 5]
           [--repeat 10] [--tokens prompt.npy] [--mode sequence,step] [--ssm-run PATH]
Needs build/bin/ssm-run (and ssm-compile next to it).
"""
import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from run import median_ms  # noqa: E402  bench/run.py: runs a command, reads its median_ms=

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SSM_RUN = os.path.join(ROOT, "build", "bin", "ssm-run")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--db", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--tokens", help="model folders: the prompt (.npy of int32 token ids)")
    ap.add_argument("--mode", default="sequence,step", help="model folders: sequence, step or both")
    ap.add_argument("--ssm-run", default=SSM_RUN, help="the ssm-run binary (ssm-compile next to it)")
    a = ap.parse_args()
    env = dict(os.environ)
    env.setdefault("SSM_CACHE_DIR", os.path.join(ROOT, "build", "compile-cache"))
    print(f"threads={a.threads} rounds={a.rounds} repeat={a.repeat} (medians of per-round medians, ms)")
    print(f"{'graph':40} {'heuristic':>10} {'tuned':>10} {'heur/tuned':>10}")
    cases = []
    for g in a.graphs:
        if os.path.isdir(g):
            if not a.tokens:
                ap.error(f"{g} is a model folder: give --tokens prompt.npy")
            for mode in [m for m in a.mode.split(",") if m]:
                cases.append((f"{os.path.basename(os.path.normpath(g))} {mode}",
                              [a.ssm_run, g, "--engine", "cpu", "--tokens", a.tokens, "--mode", mode,
                               "--threads", str(a.threads), "--repeat", str(a.repeat)]))
        else:
            cases.append((os.path.basename(g),
                          [a.ssm_run, g, "--engine", "cpu", "--seed", "1", "--threads", str(a.threads),
                           "--repeat", str(a.repeat)]))
    for name, base in cases:
        # One warm-up per side: compilation (or the cache), not timed.
        median_ms(base[:-1] + ["1"], env)
        median_ms(base[:-1] + ["1", "--tuning-db", a.db], env)
        heur, tuned = [], []
        for _ in range(a.rounds):
            heur.append(median_ms(base, env))
            tuned.append(median_ms(base + ["--tuning-db", a.db], env))
        h, t = statistics.median(heur), statistics.median(tuned)
        print(f"{name:40} {h:10.3f} {t:10.3f} {h / t:9.2f}x   rounds: heuristic "
              f"{[round(x, 3) for x in heur]} tuned {[round(x, 3) for x in tuned]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
