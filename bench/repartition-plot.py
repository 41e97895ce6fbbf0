#!/usr/bin/env python3
"""Plot the CSV of bench/repartition (seed 003's report): per configuration
(placement x scheme), a box plot per rank of the repartition time over the
repetitions (the seed's Fig. 5), and bars of the per-rank load (elements
held after repartitioning), bytes sent and messages sent.

usage: python3 bench/repartition-plot.py repartition.csv [out.png]

Needs matplotlib (the project's venv has it: .deps-local/venv/bin/python3).
"""
import csv
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(__doc__ + "\nerror: matplotlib is not installed")

if len(sys.argv) < 2:
    sys.exit(__doc__)
rows = list(csv.DictReader(open(sys.argv[1])))
out = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1].rsplit(".", 1)[0] + ".png"
configs = []
for r in rows:
    c = (r["placement"], r["scheme"])
    if c not in configs:
        configs.append(c)
ranks = sorted({int(r["rank"]) for r in rows})
fig, axes = plt.subplots(len(configs), 4, figsize=(18, 3.2 * len(configs)), squeeze=False)
for i, c in enumerate(configs):
    sel = [r for r in rows if (r["placement"], r["scheme"]) == c]
    times = [[float(r["time_s"]) * 1e3 for r in sel if int(r["rank"]) == k] for k in ranks]
    first = {int(r["rank"]): r for r in sel if r["rep"] == "0"}
    chosen = sel[0]["chosen"] if sel else ""
    name = "%s, %s%s" % (c[0], c[1], " -> " + chosen if c[1] == "auto" else "")
    ax = axes[i][0]
    ax.boxplot(times, positions=ranks)
    ax.set_title("%s: time per rank" % name)
    ax.set_xlabel("rank")
    ax.set_ylabel("ms")
    for j, (key, label) in enumerate([("elements", "load (elements)"), ("bytes_sent", "bytes sent"),
                                      ("messages", "messages sent")]):
        ax = axes[i][j + 1]
        ax.bar(ranks, [float(first[k][key]) if k in first else 0 for k in ranks])
        ax.set_title("%s: %s" % (name, label))
        ax.set_xlabel("rank")
fig.tight_layout()
fig.savefig(out, dpi=80)
print("wrote", out)
