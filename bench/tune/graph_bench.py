#!/usr/bin/python3
"""A whole graph with its heuristic schedules against the same graph tuned, in one run.

For each graph: `ssm-run GRAPH --engine cpu --seed 1 --threads N --repeat R`
without and with `--tuning-db DB` (the schedules ssm-tune chose; ops without a
record keep the heuristic), alternating --rounds times; each side's figure is
the median of its per-round medians. Run `ssm-tune GRAPH --db DB` first.

Usage: bench/tune/graph_bench.py --db tuning.db GRAPH.mlir... [--threads 2] [--rounds 5] [--repeat 10]
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
    a = ap.parse_args()
    env = dict(os.environ)
    env.setdefault("SSM_CACHE_DIR", os.path.join(ROOT, "build", "compile-cache"))
    print(f"threads={a.threads} rounds={a.rounds} repeat={a.repeat} (medians of per-round medians, ms)")
    print(f"{'graph':40} {'heuristic':>10} {'tuned':>10} {'heur/tuned':>10}")
    for g in a.graphs:
        base = [SSM_RUN, g, "--engine", "cpu", "--seed", "1", "--threads", str(a.threads),
                "--repeat", str(a.repeat)]
        heur, tuned = [], []
        for _ in range(a.rounds):
            heur.append(median_ms(base, env))
            tuned.append(median_ms(base + ["--tuning-db", a.db], env))
        h, t = statistics.median(heur), statistics.median(tuned)
        print(f"{os.path.basename(g):40} {h:10.3f} {t:10.3f} {h / t:9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
