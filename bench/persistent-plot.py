#!/usr/bin/env python3
"""Plot the CSV of bench/persistent: time per use against block size (log-log),
non-persistent (solid) against persistent (dashed), one panel per method
(col, p2p, rma-fence, rma-lock), with the persistent init cost spread over
the run's --uses uses (dotted: init/U + persistent per use), the plain
MPI_Alltoallv (col non-persistent, thick and pale) as a reference in the
other panels, and a vertical line at 32,768 bytes, where "Analyzing
Persistent Alltoallv RMA Implementations" finds that persistence starts to
pay off.  Several CSV files (for example one per MPI library or NS->ND
pair) go into the same panels.

usage: python3 bench/persistent-plot.py persistent.csv [more.csv ...] [-o out.png]

Needs matplotlib.  If it is missing:
    python3 -m venv /work/main/.deps-local/venv
    /work/main/.deps-local/venv/bin/pip install matplotlib
    /work/main/.deps-local/venv/bin/python3 bench/persistent-plot.py persistent.csv
"""
import argparse
import csv
import math
import sys

PAPER_BREAK_EVEN = 32768


def num(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return math.nan
    return v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="Needs matplotlib (see the module docstring).")
    ap.add_argument("csv", nargs="+", help="CSV written by bench/persistent --csv")
    ap.add_argument("-o", "--out", help="PNG to write (default: the first CSV with .png)")
    ap.add_argument("--x", choices=["block", "msg"], default="block",
                    help="x axis: block size (default) or the largest message of a use")
    ap.add_argument("--no-init", action="store_true", help="leave out the init/U + persistent curve")
    ap.add_argument("--no-col-ref", action="store_true",
                    help="leave out the plain MPI_Alltoallv (col non-persistent) reference in the other panels")
    args = ap.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit(__doc__ + "\nerror: matplotlib is not installed (see above)")

    rows = []
    for f in args.csv:
        with open(f, newline="") as fh:
            for r in csv.DictReader(fh):
                r["_file"] = f
                rows.append(r)
    if not rows:
        sys.exit("no rows in " + ", ".join(args.csv))
    out = args.out or args.csv[0].rsplit(".", 1)[0] + ".png"

    methods = []
    for r in rows:
        if r["method"] not in methods:
            methods.append(r["method"])
    # one series per (MPI, NS->ND, file)
    series = []
    for r in rows:
        key = (r["_file"], r["mpi"], r["ns"], r["nd"])
        if key not in series:
            series.append(key)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    xkey = "block_bytes" if args.x == "block" else "max_msg_bytes"

    ncol = 2 if len(methods) > 1 else 1
    nrow = (len(methods) + ncol - 1) // ncol
    fig, axes = plt.subplots(nrow, ncol, figsize=(6.2 * ncol, 4.4 * nrow), squeeze=False)
    for k, m in enumerate(methods):
        ax = axes[k // ncol][k % ncol]
        for si, key in enumerate(series):
            sel = sorted((r for r in rows if (r["_file"], r["mpi"], r["ns"], r["nd"]) == key and r["method"] == m),
                         key=lambda r: int(r[xkey]))
            if not sel:
                continue
            c = colors[si % len(colors)]
            label = "%s %s->%s" % (key[1], key[2], key[3]) if len(series) > 1 else ""
            x = [int(r[xkey]) for r in sel]
            np_ = [num(r["nonpersistent_us"]) for r in sel]
            p = [num(r["persistent_us"]) for r in sel]
            ax.loglog(x, np_, color=c, marker="o", ms=3, ls="-", label=(label + " " if label else "") + "non-persistent")
            if any(not math.isnan(v) for v in p):
                ax.loglog(x, p, color=c, marker="s", ms=3, ls="--", label=(label + " " if label else "") + "persistent")
                if not args.no_init:
                    amort = [num(r["init_us"]) / max(1, int(r["uses"])) + num(r["persistent_us"]) for r in sel]
                    ax.loglog(x, amort, color=c, ls=":", lw=1,
                              label=(label + " " if label else "") + "persistent + init/%s" % sel[0]["uses"])
            else:
                ax.text(0.5, 0.9, "no persistent variant in %s" % key[1], transform=ax.transAxes, ha="center",
                        fontsize=7)
            if m != "col" and not args.no_col_ref:
                ref = sorted((r for r in rows if (r["_file"], r["mpi"], r["ns"], r["nd"]) == key
                              and r["method"] == "col"), key=lambda r: int(r[xkey]))
                if ref:
                    ax.loglog([int(r[xkey]) for r in ref], [num(r["nonpersistent_us"]) for r in ref], color=c,
                              alpha=0.35, lw=2.5, label=(label + " " if label else "") + "col non-persistent")
        ax.axvline(PAPER_BREAK_EVEN, color="grey", lw=1, ls="-.")
        ax.text(PAPER_BREAK_EVEN, 0.02, " paper: 32 KiB", transform=ax.get_xaxis_transform(), fontsize=7,
                color="grey")
        ax.set_title(m)
        ax.set_xlabel("block bytes" if args.x == "block" else "largest message bytes")
        ax.set_ylabel("time per use (us)")
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=6)
    for k in range(len(methods), nrow * ncol):
        axes[k // ncol][k % ncol].set_visible(False)
    first = rows[0]
    if len(series) == 1:
        fig.suptitle("%s: %s -> %s processes, median of %s" % (first["mpi"], first["ns"], first["nd"],
                                                                "max over ranks"), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
