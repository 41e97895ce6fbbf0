#!/usr/bin/env python3
"""Plot the CSV of bench/redistribute: total reconfiguration time (stacked
spawn / merge / transfer) per method, one panel per NS->ND pair, for the
largest size in the file, plus transfer time against size.

usage: python3 bench/redistribute-plot.py redistribute.csv [out.png]

Needs matplotlib.  If it is missing:
    python3 -m venv /work/main/.deps-local/venv
    /work/main/.deps-local/venv/bin/pip install matplotlib
    /work/main/.deps-local/venv/bin/python3 bench/redistribute-plot.py redistribute.csv
"""
import csv
import sys

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    sys.exit(__doc__ + "\nerror: matplotlib is not installed (see above)")

if len(sys.argv) < 2:
    sys.exit(__doc__)
rows = list(csv.DictReader(open(sys.argv[1])))
out = sys.argv[2] if len(sys.argv) > 2 else sys.argv[1].rsplit(".", 1)[0] + ".png"
pairs = []
for r in rows:
    p = (int(r["ns"]), int(r["nd"]))
    if p not in pairs:
        pairs.append(p)
big = max(int(r["mib"]) for r in rows)
fig, axes = plt.subplots(2, len(pairs), figsize=(4.2 * len(pairs), 8), squeeze=False)
for k, (ns, nd) in enumerate(pairs):
    ax = axes[0][k]
    sel = [r for r in rows if (int(r["ns"]), int(r["nd"])) == (ns, nd) and int(r["mib"]) == big
           and "second" not in r["method"]]
    names = [r["method"] for r in sel]
    sp = [float(r["spawn_s"]) for r in sel]
    mg = [float(r["merge_s"]) for r in sel]
    tr = [float(r["transfer_s"]) for r in sel]
    y = range(len(sel))
    ax.barh(y, sp, label="spawn")
    ax.barh(y, mg, left=sp, label="merge")
    ax.barh(y, tr, left=[a + b for a, b in zip(sp, mg)], label="transfer")
    ax.set_yticks(list(y))
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_title("%d -> %d, %d MiB" % (ns, nd, big))
    ax.set_xlabel("seconds")
    if k == 0:
        ax.legend(fontsize=7)
    ax2 = axes[1][k]
    methods = []
    for r in rows:
        if (int(r["ns"]), int(r["nd"])) == (ns, nd) and r["method"] not in methods:
            methods.append(r["method"])
    for m in methods:
        pts = sorted((int(r["mib"]), float(r["transfer_s"])) for r in rows
                     if (int(r["ns"]), int(r["nd"])) == (ns, nd) and r["method"] == m)
        ax2.loglog([p[0] for p in pts], [max(p[1], 1e-6) for p in pts], marker="o", label=m)
    ax2.set_xlabel("MiB in total")
    ax2.set_ylabel("transfer s")
    if k == 0:
        ax2.legend(fontsize=6)
fig.tight_layout()
fig.savefig(out, dpi=110)
print("wrote", out)
