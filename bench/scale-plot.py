#!/usr/bin/env python3
"""Plot bench/scale's CSVs: the ratio of Ductile's resize to the raw MPI
path against P (expansions P->2P, shrinks 2P->P; medians over the rounds),
each process's peak memory against P (max, and the sum divided by the
number of processes, Ductile and raw; with --spawn-parallel one line per
setting, e.g. "par off" and "par on"), and, given a CSV of
bench/scale --spawn, the spawn time against the number of new processes
(one MPI_Comm_spawn against parallel spawning).  One line per MPI.

usage: python3 bench/scale-plot.py OUT.png scale-ompi.csv scale-mpich.csv [spawn-*.csv ...]

Needs matplotlib.  If it is missing:
    python3 -m venv /work/main/.deps-local/venv
    /work/main/.deps-local/venv/bin/pip install matplotlib
"""
import csv
import statistics
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(__doc__ + "\nerror: matplotlib is not installed (see above)")

if len(sys.argv) < 3:
    sys.exit(__doc__)
out = sys.argv[1]
scale, spawn = [], []
for f in sys.argv[2:]:
    rows = list(csv.DictReader(open(f)))
    (spawn if rows and "mode" in rows[0] else scale).extend(rows)


def med(rows, key):
    v = [float(r[key]) for r in rows]
    return statistics.median(v) if v else float("nan")


ncol = 3 if spawn else 2
fig, axes = plt.subplots(1, ncol, figsize=(4.6 * ncol, 3.6))
mpis = sorted({r["mpi"] for r in scale})
styles = {"expand": "-o", "shrink": "--s"}
for m in mpis:
    # the Ductile variants: "ductile", or with --spawn-parallel "ductile-par-off", "ductile-par-on", ...
    variants = sorted({r["what"] for r in scale if r["mpi"] == m and r["what"].startswith("ductile")})
    for kind in ("expand", "shrink"):
        ps = sorted({int(r["p"]) for r in scale if r["mpi"] == m and r["kind"] == kind})
        raw_max = []
        for v in variants:
            ratio, mem_max, mem_mean = [], [], []
            for p in ps:
                sel = [r for r in scale if r["mpi"] == m and r["kind"] == kind and int(r["p"]) == p]
                duc = [r for r in sel if r["what"] == v]
                raw = [r for r in sel if r["what"] == "raw"]
                ratio.append(med(duc, "total_s") / med(raw, "total_s") if duc and raw else float("nan"))
                mem_max.append(med(duc, "mem_max_kib") / 1024)
                mem_mean.append(statistics.median([float(r["mem_sum_kib"]) / float(r["processes"]) for r in duc])
                                / 1024 if duc else float("nan"))
                if v == variants[0]:
                    raw_max.append(med(raw, "mem_max_kib") / 1024)
            tag = "" if v == "ductile" else " " + v[len("ductile-"):].replace("-", " ")
            label = "%s%s %s" % (m, tag, "P->2P" if kind == "expand" else "2P->P")
            axes[0].plot(ps, ratio, styles[kind], label=label, markersize=4)
            if kind == "expand":
                line, = axes[1].plot(ps, mem_max, "-o", markersize=4, label="%s%s Ductile max" % (m, tag))
                axes[1].plot(ps, mem_mean, ":", color=line.get_color(), label="%s%s Ductile mean" % (m, tag))
        if kind == "expand" and variants:
            axes[1].plot(ps, raw_max, "--", color="grey", alpha=0.6, label="%s raw max" % m)
axes[0].axhline(1.0, color="grey", lw=0.8)
axes[0].set_xscale("log", base=2)
axes[0].set_yscale("log")
axes[0].set_xlabel("P")
axes[0].set_ylabel("Ductile / raw MPI (whole resize)")
axes[0].set_title("resize cost against the raw path", fontsize=9)
axes[0].legend(fontsize=6)
axes[1].set_xscale("log", base=2)
axes[1].set_xlabel("P (expansion P->2P)")
axes[1].set_ylabel("peak resident set per process (MiB)")
axes[1].set_title("memory per process", fontsize=9)
axes[1].legend(fontsize=6)
if spawn:
    ax = axes[2]
    for m in sorted({r["mpi"] for r in spawn}):
        for mode, st in (("single", "-o"), ("parallel", "--s")):
            ns = sorted({int(r["n"]) for r in spawn if r["mpi"] == m and r["mode"] == mode})
            ax.plot(ns, [med([r for r in spawn if r["mpi"] == m and r["mode"] == mode and int(r["n"]) == n], "total_s")
                         for n in ns], st, markersize=4, label="%s %s" % (m, mode))
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("new processes n (from n parents)")
    ax.set_ylabel("spawn + merge (s)")
    ax.set_title("one MPI_Comm_spawn against parallel spawning", fontsize=9)
    ax.legend(fontsize=6)
fig.tight_layout()
fig.savefig(out, dpi=70)
print("wrote", out)
