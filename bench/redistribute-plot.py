#!/usr/bin/env python3
"""Plot the CSV of bench/redistribute: total reconfiguration time (stacked
spawn / merge / transfer) per method, one panel per NS->ND pair, for the
largest size in the file, plus transfer time against size.  For the CSV of
bench/redistribute --paper: R, f(V,P) (with the speed-up against COL),
omega and N_it per version, one column per pair (the RMA paper's Figs. 3-9).
For the CSV of bench/redistribute --cycles: R of the first cycle against the
later ones (persistent redistribution) per method and mode, one row per pair
and direction, one column per size.

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

if rows and "first_ab_R" in rows[0]:
    # bench/redistribute --cycles: persistent redistribution, first cycle against the later ones
    pairs, sizes = [], []
    for r in rows:
        p, k = (int(r["ns"]), int(r["nd"])), int(r["kib"])
        if p not in pairs:
            pairs.append(p)
        if k not in sizes:
            sizes.append(k)
    sizes.sort()
    colors = {"off": "#bbbbbb", "on": "#4477aa", "shared": "#228833"}
    fig, axes = plt.subplots(2 * len(pairs), len(sizes), figsize=(4.2 * len(sizes), 2.9 * 2 * len(pairs)),
                             squeeze=False)
    for i, (a, b) in enumerate(pairs):
        for d, (first, later, label) in enumerate([("first_ab_R", "later_ab_R", "%d -> %d" % (a, b)),
                                                   ("first_ba_R", "later_ba_R", "%d -> %d" % (b, a))]):
            for j, kib in enumerate(sizes):
                ax = axes[2 * i + d][j]
                sel = [r for r in rows if (int(r["ns"]), int(r["nd"])) == (a, b) and int(r["kib"]) == kib]
                names = ["%s %s" % (r["method"], r["persistent"]) for r in sel]
                x = range(len(sel))
                ax.bar([k - 0.2 for k in x], [1e3 * float(r[first]) for r in sel], 0.4, color="#dddddd",
                       edgecolor=[colors.get(r["persistent"], "k") for r in sel], label="1st cycle")
                ax.bar([k + 0.2 for k in x], [1e3 * float(r[later]) for r in sel], 0.4,
                       color=[colors.get(r["persistent"], "k") for r in sel], label="later cycles")
                for k, r in enumerate(sel):
                    f, l = float(r[first]), float(r[later])
                    if f > 0:
                        ax.text(k + 0.2, 1e3 * l, "%.2f" % (l / f), ha="center", va="bottom", fontsize=5)
                ax.set_xticks(list(x))
                ax.set_xticklabels(names, rotation=70, fontsize=6)
                ax.set_ylabel("R (ms)", fontsize=7)
                ax.set_title("%s, matrix %d KiB (grey: persistence off, blue: on, green: shared)" % (label, kib),
                             fontsize=7)
                if i == 0 and d == 0 and j == 0:
                    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)
    sys.exit(0)

if rows and "version" in rows[0]:
    # bench/redistribute --paper: the RMA paper's Figs. 3-9 (R, f(V,P), omega, N_it per pair and version)
    pairs = []
    for r in rows:
        p = (int(r["ns"]), int(r["nd"]))
        if p not in pairs:
            pairs.append(p)
    metrics = [("R_s", "R: redistribution time (s)"), ("f_s", "f(V,P) = R + T_it(ND)(M - N_it) (s)"),
               ("omega", "omega (iteration time in background / without)"), ("N_it", "N_it (iterations overlapped)")]
    fig, axes = plt.subplots(len(metrics), len(pairs), figsize=(4.6 * len(pairs), 3.2 * len(metrics)), squeeze=False)
    for k, (ns, nd) in enumerate(pairs):
        sel = [r for r in rows if (int(r["ns"]), int(r["nd"])) == (ns, nd)]
        names = [r["version"] for r in sel]
        col = [r for r in sel if r["version"] == "COL"]
        for j, (key, label) in enumerate(metrics):
            ax = axes[j][k]
            vals = [float(r[key]) for r in sel]
            ax.bar(range(len(sel)), vals, color=["#4477aa" if "RMA" in n else "#cc6677" for n in names])
            ax.set_xticks(range(len(sel)))
            ax.set_xticklabels(names, rotation=70, fontsize=6)
            ax.set_title("%d -> %d: %s" % (ns, nd, label), fontsize=8)
            if key in ("R_s", "f_s") and col:
                ref = float(col[0][key])
                for i, v in enumerate(vals):
                    if v > 0:
                        ax.text(i, v, "%.2fx" % (ref / v), ha="center", va="bottom", fontsize=5)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)
    sys.exit(0)
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
