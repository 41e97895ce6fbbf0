#!/usr/bin/env python3
"""bench/fold-plot.py -- draw bench/fold.sh's CSVs: for each MPI, kind
(compute, comm) and P, the time of P processes folded onto P/2 cores, of P
processes crammed onto P/2 cores by taskset, and of P processes on P cores,
each relative to the same job on P/2 processes (the median of the repeats).

usage: bench/fold-plot.py OUT.png fold-openmpi.csv [fold-mpich.csv ...]"""
import csv
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

CONFIGS = [("folded", "folded onto P/2 cores (Ductile)"), ("taskset", "on P/2 cores by taskset (MPI spins)"),
           ("unfolded", "P processes, not folded (2 cores here)")]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    times = {}
    for path in sys.argv[2:]:
        with open(path) as f:
            for r in csv.DictReader(f):
                try:
                    t = float(r["half_s"])
                except ValueError:
                    continue
                times.setdefault((r["mpi"], r["kind"], int(r["p"]), r["config"]), []).append(t)
    groups = sorted({k[:3] for k in times})
    fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(groups)), 4))
    width = 0.8 / len(CONFIGS)
    print("%-8s %-8s %3s  %s" % ("MPI", "kind", "P", "  ".join("%-9s" % c for c, _ in CONFIGS)))
    for i, (cfg, label) in enumerate(CONFIGS):
        ys = []
        for g in groups:
            base = times.get(g + ("half",))
            t = times.get(g + (cfg,))
            ys.append(statistics.median(t) / statistics.median(base) if base and t else 0)
        ax.bar([x + (i - 1) * width for x in range(len(groups))], ys, width, label=label)
    for g in groups:
        base = times.get(g + ("half",))
        row = []
        for cfg, _ in CONFIGS:
            t = times.get(g + (cfg,))
            row.append("%-9s" % ("%.2f" % (statistics.median(t) / statistics.median(base)) if base and t else "-"))
        print("%-8s %-8s %3d  %s" % (g[0], g[1], g[2], "  ".join(row)))
    ax.set_yscale("log")  # a spinning MPI on a shared core is 100-1000x slower
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(["%s\n%s P=%d" % g for g in groups], fontsize=8)
    ax.set_ylabel("time / time of P/2 processes")
    ax.set_title("Process folding: P processes on P/2 cores vs P/2 processes")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[1], dpi=90)
    print("wrote", sys.argv[1])


if __name__ == "__main__":
    main()
