#!/usr/bin/python3
"""Bar chart of an ssm-tune report: per kernel, the time of the heuristic, the
tuned schedule and each Halide autoscheduler, relative to the tuned one.

Usage: tune_chart.py REPORT.json OUT.png   (ssm-tune --report writes the JSON)
Needs matplotlib (Debian: python3-matplotlib). Exit 2 when it cannot run.
"""
import json
import sys
import textwrap

KINDS = [("heuristic", "heuristic (ssm-assign-schedules)", "#7f7f7f"),
         ("tuned", "tuned (ssm-tune)", "#2ca02c"),
         ("adams2019", "Adams2019", "#1f77b4"),
         ("li2018", "Li2018", "#ff7f0e"),
         ("mullapudi2016", "Mullapudi2016", "#9467bd")]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:
        print(f"tune_chart.py: error: matplotlib is missing ({e}); apt-get install python3-matplotlib",
              file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        report = json.load(f)
    rows = [k for k in report["kernels"] if k.get("tuned")]
    fig, ax = plt.subplots(figsize=(max(7, 1.6 * len(rows) + 4), 4.8))
    width = 0.8 / len(KINDS)
    for i, (kind, label, color) in enumerate(KINDS):
        xs, ys = [], []
        for j, k in enumerate(rows):
            if k.get(kind):
                xs.append(j + (i - (len(KINDS) - 1) / 2) * width)
                ys.append(k[kind] / k["tuned"])
        bars = ax.bar(xs, ys, width, label=label, color=color)
        for b, y in zip(bars, ys):
            ax.annotate(f"{y:.2f}", (b.get_x() + b.get_width() / 2, y), ha="center", va="bottom",
                        fontsize=6, rotation=90)
        # No time: say why (an autoscheduler whose results were wrong, or that
        # failed or timed out) where its bar would be.
        for j, k in enumerate(rows):
            status = k.get(f"{kind}_status")
            if not k.get(kind) and status:
                ax.annotate(status, (j + (i - (len(KINDS) - 1) / 2) * width, 1.0), ha="center",
                            va="bottom", fontsize=6, rotation=90, color=color)
    ax.set_xlim(-0.5, len(rows) - 0.5)  # room for the status of a kind without a bar
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{k['op'].replace('linalg.', '').replace('ssm.', '')}\n{k['shapes'][:40]}\n"
                        f"tuned {k['tuned']:.3f} ms" for k in rows], fontsize=6)
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.set_ylabel("time / tuned time (log scale; lower is faster)")
    threads = sorted({k["threads"] for k in rows if k.get("threads")})
    title = "\n".join(textwrap.wrap(f"ssm-tune: {report['target']}", 100))
    ax.set_title(f"{title}\n{report['cpu_model']}, threads {threads}, "
                 f"{report['ssm_version']}, Halide {report['halide_version']}", fontsize=7)
    # Legend from the kinds (a kind without any bar still gets its colour).
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=c, label=l) for _, l, c in KINDS], fontsize=7,
              loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
