#!/usr/bin/env python3
"""io-interference-plot.py -- table, CSV and timeline of bench/io-interference.sh.

usage: io-interference-plot.py OUT_DIR

Reads OUT_DIR/CASE-MODE.jobN.json (Ductile reports), .out (the jobs' final
lines), CASE-MODE.daemon.log (mode policy: ductiled's I/O decisions) and
device.txt (which storage device the bench used: real or emulated, and why);
prints the table per job and the summary per case (I/O time of all jobs in
each mode, and what the policy chose), writes OUT_DIR/io-interference.csv
and, if matplotlib is available, OUT_DIR/io-interference-CASE.png (per mode:
each job's processes over time above, its I/O phases below, like Fig. 13 of
the CLARISSE/FlexMPI paper; one time origin per run: the start of its first
job).  matplotlib: /work/main/.deps-local/venv/bin/pip
install matplotlib (or any python3 with `pip install matplotlib`).
"""
import csv
import glob
import json
import os
import re
import sys

MODES = ["none", "exclusive", "phase-shift", "period-coupling", "policy"]


def load_runs(out):
    runs = {}
    for p in sorted(glob.glob(os.path.join(out, "*.job*.json"))):
        m = re.match(r"(.+)-(none|exclusive|phase-shift|period-coupling|policy)\.job([0-9]+)\.json$", os.path.basename(p))
        if not m:
            continue
        case, mode, job = m.group(1), m.group(2), int(m.group(3))
        rep = json.load(open(p))
        line = ""
        try:
            line = [l for l in open(p[:-5] + ".out") if l.startswith("io_jacobi:")][0]
        except (OSError, IndexError):
            pass
        tot = re.search(r"total ([0-9.]+) s", line)
        ph = (rep.get("io") or {}).get("phases", [])
        t0 = ph[0]["start_epoch"] - ph[0]["start_s"] if ph else 0.0
        procs0 = ph[0]["procs"] if ph else 0
        recs = [r for r in rep.get("reconfigurations", []) if r.get("status") == "ok"]
        if recs:
            procs0 = recs[0]["from"]
        runs.setdefault((case, mode), {})[job] = {
            "phases": ph, "t0": t0, "procs0": procs0, "recs": recs,
            "total": float(tot.group(1)) if tot else float("nan"),
            # I/O time: each phase's duration (which starts after its token wait) plus that wait
            "io": sum(p["duration_s"] + p.get("delay_s", 0) for p in ph), "delay": sum(p.get("delay_s", 0) for p in ph),
        }
    return runs


def table(runs, out):
    rows = []
    for case in sorted({c for c, _ in runs}):
        base = runs.get((case, "none"), {})
        for mode in MODES:
            r = runs.get((case, mode))
            if not r:
                continue
            for job in sorted(r):
                x = r[job]
                b = base.get(job)
                red = (1 - x["io"] / b["io"]) * 100 if b and b["io"] > 0 else 0.0
                redt = (1 - x["total"] / b["total"]) * 100 if b and b["total"] > 0 else 0.0
                rows.append({"case": case, "mode": mode, "job": job, "procs": x["procs0"], "phases": len(x["phases"]),
                             "resizes": len(x["recs"]), "io_s": round(x["io"], 3), "delay_s": round(x["delay"], 3),
                             "io_without_delay_s": round(x["io"] - x["delay"], 3), "total_s": round(x["total"], 3),
                             "io_reduction_pct": round(red, 1), "total_reduction_pct": round(redt, 1)})
    keys = list(rows[0].keys()) if rows else []
    with open(os.path.join(out, "io-interference.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    print("%-4s %-16s %3s %5s %6s %7s %8s %8s %9s %8s %7s %7s" % ("case", "mode", "job", "procs", "phases", "resizes",
          "io_s", "delay_s", "io-delay", "total_s", "io -%", "tot -%"))
    for r in rows:
        print("%-4s %-16s %3d %5d %6d %7d %8.2f %8.2f %9.2f %8.2f %6.1f%% %6.1f%%" % (
            r["case"], r["mode"], r["job"], r["procs"], r["phases"], r["resizes"], r["io_s"], r["delay_s"],
            r["io_without_delay_s"], r["total_s"], r["io_reduction_pct"], r["total_reduction_pct"]))
    for case in sorted({c for c, _ in runs}):
        for mode in MODES:
            r = runs.get((case, mode))
            b = runs.get((case, "none"))
            if r and b and mode != "none":
                io, bio = sum(x["io"] for x in r.values()), sum(x["io"] for x in b.values())
                print("case %s, %s: I/O time of all jobs %.2f s vs %.2f s uncoordinated: %.1f%% less" % (
                    case, mode, io, bio, (1 - io / bio) * 100 if bio else 0))
    # markdown summary (docs/policies.md): total I/O time per mode, and the policy's choices
    print()
    print("| case | " + " | ".join(MODES) + " | policy chose |")
    print("|---|" + "---|" * (len(MODES) + 1))
    for case in sorted({c for c, _ in runs}):
        b = runs.get((case, "none"))
        bio = sum(x["io"] for x in b.values()) if b else 0
        cells = []
        for mode in MODES:
            r = runs.get((case, mode))
            if not r:
                cells.append("-")
                continue
            io = sum(x["io"] for x in r.values())
            rs = sum(len(x["recs"]) for x in r.values())
            cells.append("%.2f s%s%s" % (io, " (%+.0f %%)" % ((io / bio - 1) * 100) if bio and mode != "none" else "",
                                          ", %d resizes" % rs if rs else ""))
        print("| %s | %s | %s |" % (case, " | ".join(cells), policy_choices(out, case)))
    print("CSV: %s" % os.path.join(out, "io-interference.csv"))


def policy_choices(out, case):
    """the modes ductiled's --io-policy auto chose in this case's policy run, in order"""
    seq = []
    try:
        for line in open(os.path.join(out, "%s-policy.daemon.log" % case)):
            m = re.search(r"I/O decision \(after a phase of job \d+\): ([a-z-]+):", line)
            mode = m.group(1) if m else None
            if re.search(r"I/O decision .*: prior voided", line):
                mode = "none (prior voided)"
            if mode and (not seq or seq[-1] != mode):
                seq.append(mode)
    except OSError:
        return "-"
    # before its first prediction the policy serialises (its prior: docs/policies.md)
    return " -> ".join(["exclusive (prior)"] + seq) if not seq or seq[0] != "exclusive" else " -> ".join(seq)


def device(out):
    """the bench's device line(s): real (and its probe) or emulated, and why"""
    try:
        return [l.strip() for l in open(os.path.join(out, "device.txt")) if l.strip()]
    except OSError:
        return []


def plot(runs, out):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no matplotlib: no timeline plot.  Install it with "
              "/work/main/.deps-local/venv/bin/pip install matplotlib and run this script with that venv's python3")
        return
    colors = {1: "tab:blue", 2: "tab:orange", 3: "tab:green", 4: "tab:red"}
    for case in sorted({c for c, _ in runs}):
        modes = [m for m in MODES if (case, m) in runs]
        fig, axes = plt.subplots(2 * len(modes), 1, figsize=(11, 2.6 * len(modes)), sharex=True,
                                 gridspec_kw={"height_ratios": [2, 1] * len(modes)})
        for i, mode in enumerate(modes):
            up, lo = axes[2 * i], axes[2 * i + 1]
            # one time origin per run: the start of its first job (process lines and I/O phases alike)
            t00 = min(x["t0"] for x in runs[(case, mode)].values())
            for job, x in sorted(runs[(case, mode)].items()):
                ts, ps = [x["t0"] - t00], [x["procs0"]]
                for r in x["recs"]:
                    t = x["t0"] - t00 + r["start_s"] + r["times_s"]["total"]
                    ts.append(t); ps.append(ps[-1]); ts.append(t); ps.append(r["to"])
                end = max([p["end_epoch"] for p in x["phases"]] + [x["t0"]]) - t00
                ts.append(end); ps.append(ps[-1])
                up.plot(ts, ps, color=colors.get(job, "black"), label="job %d" % job)
                bars = [(p["start_epoch"] - t00, p["duration_s"]) for p in x["phases"]]
                lo.broken_barh(bars, (job - 0.4, 0.8), color=colors.get(job, "black"))
                # a reported phase starts after its token wait: the wait is drawn before it
                dl = [(p["start_epoch"] - p.get("delay_s", 0) - t00, p.get("delay_s", 0)) for p in x["phases"]
                      if p.get("delay_s", 0) > 0]
                if dl:
                    lo.broken_barh(dl, (job - 0.4, 0.8), color="lightgray", hatch="//")
            up.set_ylabel("processes")
            up.set_title("case %s, %s" % (case, mode), fontsize=10)
            up.legend(loc="upper right", fontsize=8)
            up.set_ylim(0, 4)
            njobs = sorted(runs[(case, mode)])
            lo.set_yticks(njobs)
            lo.set_yticklabels(["job %d I/O" % k for k in njobs], fontsize=8)
        axes[-1].set_xlabel("time since the run's first job started (s); gray: waiting for the I/O token")
        dev = device(out)
        if dev:
            kind = "real device" if "real device" in dev[0] else "emulated device"
            fig.suptitle("case %s, %s" % (case, kind), fontsize=10)
        fig.tight_layout(rect=(0, 0, 1, 0.985) if dev else None)
        path = os.path.join(out, "io-interference-%s.png" % case)
        fig.savefig(path, dpi=90)
        print("timeline: %s" % path)


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    runs = load_runs(sys.argv[1])
    if not runs:
        print("no results in", sys.argv[1])
        return 1
    for line in device(sys.argv[1]):
        print(line)
    table(runs, sys.argv[1])
    plot(runs, sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
