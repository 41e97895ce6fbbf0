"""charts.py -- the report page's charts, drawn with matplotlib and returned
as SVG text to embed in the page (vector, text kept as text so the page
can be searched, no network and no JavaScript needed to view it).  Each
function returns None when the report has nothing to draw."""
import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from . import model  # noqa: E402

CAT = {"compute": "#4C78A8", "communication": "#F58518", "I/O": "#54A24B"}
PHASE = {"spawn": "#B279A2", "merge": "#FF9DA6", "plan": "#9D755D", "window": "#BAB0AC", "prepare": "#EECA3B",
         "transfer": "#E45756", "background": "#72B7B2"}
FAILED, REFUSED = "#D62728", "#7F7F7F"
WIDTH = 10.0  # inches; the page scales the SVG to its column

plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.titlesize": 10, "axes.spines.top": False,
                     "axes.spines.right": False, "svg.hashsalt": "ductile"})
_count = [0]


def to_svg(fig):
    """The figure as an <svg> element whose ids cannot clash with another chart's."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    plt.close(fig)
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    _count[0] += 1
    pre = "c%d-" % _count[0]
    svg = re.sub(r'\bid="([^"]+)"', lambda m: 'id="%s%s"' % (pre, m.group(1)), svg)
    svg = re.sub(r'url\(#([^)]+)\)', lambda m: "url(#%s%s)" % (pre, m.group(1)), svg)
    svg = re.sub(r'href="#([^"]+)"', lambda m: 'href="#%s%s"' % (pre, m.group(1)), svg)
    return svg


def time_split(rep):
    parts = model.time_split(rep)
    total = sum(v for _, v in parts)
    if total <= 0:
        return None
    fig, ax = plt.subplots(figsize=(WIDTH, 1.1))
    left = 0.0
    for name, v in parts:
        frac = v / total
        ax.barh([0], [frac], left=left, color=CAT[name], label="%s %.1f%%" % (name, 100 * frac))
        if frac > 0.06:
            ax.text(left + frac / 2, 0, "%s\n%.1f%%" % (name, 100 * frac), ha="center", va="center", color="white",
                    fontsize=9)
        left += frac
    ax.set_xlim(0, 1)
    ax.set_yticks([])
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1])
    ax.set_xticklabels(["0", "25%", "50%", "75%", "100%"])
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.45), ncol=3, frameon=False)
    ax.set_title("time of all processes (%s in total)" % model.human_seconds(total), loc="left")
    return to_svg(fig)


def imbalance(rep):
    rows = model.rank_rows(rep)
    fig, ax = plt.subplots(figsize=(WIDTH, 3.0))
    if rows:
        x = list(range(len(rows)))
        bottom = [0.0] * len(rows)
        for i, name in enumerate(("compute", "communication", "I/O")):
            vals = [r[1 + i] for r in rows]
            bars = ax.bar(x, vals, bottom=bottom, color=CAT[name], label=name, width=0.8)
            for b, r in zip(bars, rows):
                if r[4]:
                    b.set_hatch("//")
                    b.set_alpha(0.7)
            bottom = [a + b for a, b in zip(bottom, vals)]
        step = max(1, len(rows) // 32)
        ax.set_xticks(x[::step])
        ax.set_xticklabels([r[0] for r in rows][::step])
        now = [r[1] + r[2] + r[3] for r in rows if not r[4]]
        if now:
            mean = sum(now) / len(now)
            ax.axhline(mean, color="black", linewidth=0.8, linestyle="--")
            ax.text(len(rows) - 0.5, mean, " mean", va="bottom", ha="right", fontsize=8)
        ax.set_xlabel("rank (' : a process that left the job at a shrink, hatched)")
    else:  # a large job: the report has the reductions only
        imb = rep.get("imbalance") or {}
        cats = [("wall_time", "wall"), ("mpi_time", "MPI"), ("compute_time", "compute"), ("io_time", "I/O")]
        for i, (k, label) in enumerate(cats):
            v = imb.get(k) or {}
            ax.bar([i - 0.25, i, i + 0.25], [v.get("min_s", 0), v.get("mean_s", 0), v.get("max_s", 0)], width=0.22,
                   color=["#9ecae1", "#4C78A8", "#08306b"])
        ax.set_xticks(range(len(cats)))
        ax.set_xticklabels([c[1] for c in cats])
        ax.set_xlabel("minimum, mean and maximum over the ranks")
    ax.set_ylabel("seconds")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.set_title("time per process", loc="left")
    return to_svg(fig)


def functions(rep, n):
    rows = model.top_functions(rep, n)
    if not rows:
        return None
    rows = rows[::-1]
    h = 0.9 + 0.26 * len(rows)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(WIDTH, h), sharey=True, gridspec_kw={"wspace": 0.05})
    y = list(range(len(rows)))
    a1.barh(y, [r[2] for r in rows], color="#4C78A8")
    a1.set_yticks(y)
    a1.set_yticklabels([r[0] for r in rows])
    a1.set_xlabel("time (s, all processes)")
    a1.set_title("top %d MPI functions by time" % len(rows), loc="left")
    sent = [r[3] / 1e6 for r in rows]
    recv = [r[4] / 1e6 for r in rows]
    a2.barh(y, sent, color="#F58518", label="sent")
    a2.barh(y, recv, left=sent, color="#72B7B2", label="received")
    a2.set_xlabel("bytes moved (MB)")
    a2.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return to_svg(fig)


def _resize_marks(ax, rep, top, label=True):
    """Each resize on a time axis: its phases one after another from its start
    (ok), a dashed line (failed) or a dotted one (refused)."""
    seen = set()
    for r in model.resizes(rep):
        if r["status"] == "ok":
            t = r["start"]
            for p, d in r["phases"]:
                ax.axvspan(t, t + d, color=PHASE[p], alpha=0.55, linewidth=0)
                seen.add(p)
                t += d
            if r["total"] > t - r["start"]:
                ax.axvspan(t, r["start"] + r["total"], color="#DDDDDD", alpha=0.6, linewidth=0)
            if label:
                ax.text(r["start"], top, "%s->%s" % (r["frm"], r["to"]), fontsize=7, va="top", ha="left")
        else:
            col = FAILED if r["status"] == "failed" else REFUSED
            ax.axvline(r["start"], color=col, linestyle="--" if r["status"] == "failed" else ":", linewidth=1.2)
            if label:
                ax.text(r["start"], top, " %s" % r["status"], color=col, fontsize=7, va="top", ha="left",
                        rotation=90)
    return seen


def _phase_legend(ax, seen, rep):
    handles = [Patch(color=PHASE[p], alpha=0.55, label=p) for p in model.PHASES if p in seen]
    st = {r["status"] for r in model.resizes(rep)}
    if "failed" in st:
        handles.append(plt.Line2D([], [], color=FAILED, linestyle="--", label="failed resize"))
    if "refused" in st:
        handles.append(plt.Line2D([], [], color=REFUSED, linestyle=":", label="refused resize"))
    if handles:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False, fontsize=8)


def iterations(rep):
    xs, mean, lo, hi, width, note = model.iteration_series(rep)
    if not xs and not model.resizes(rep):
        return None
    fig, ax = plt.subplots(figsize=(WIDTH, 3.2))
    top = max(hi) * 1.15 if hi else 1.0
    if xs:
        if width > 1:
            ax.fill_between(xs, lo, hi, step="post", color="#9ecae1", alpha=0.5, linewidth=0)
        if width > 1:
            ax.plot(xs, mean, drawstyle="steps-post", color="#08519c", linewidth=1)
        else:  # one point per iteration, at its start: no line across a resize
            ax.plot(xs, mean, ".", color="#08519c", markersize=3 if len(xs) < 200 else 1.5)
        ax.set_ylim(0, top)
    else:
        ax.set_yticks([])
        ax.text(0.5, 0.5, note, transform=ax.transAxes, ha="center", va="center", color="#555555")
    seen = _resize_marks(ax, rep, top if xs else 1.0)
    _phase_legend(ax, seen, rep)
    ax.set_xlim(0, max(model.num(rep.get("wall_time_s")), xs[-1] if xs else 0) * 1.01 or 1)
    ax.set_xlabel("time since MPI_Init (s)")
    ax.set_ylabel("iteration time (ms)" if xs else "")
    ax.set_title("main loop: iteration times over the whole run (%s) and the resizes" % note, loc="left")
    return to_svg(fig)


def processes(rep):
    t, n = model.process_steps(rep)
    fig, ax = plt.subplots(figsize=(WIDTH, 2.4))
    ax.step(t, n, where="post", color="#4C78A8", linewidth=2)
    top = max(n + [r["to"] for r in model.resizes(rep) if isinstance(r["to"], int)] + [1]) + 1
    seen = _resize_marks(ax, rep, top, label=False)
    for r in model.ok_resizes(rep):
        ax.annotate("%d->%d" % (r["frm"], r["to"]), (r["start"] + r["total"], r["to"]), textcoords="offset points",
                    xytext=(3, 3), fontsize=8)
    for r in model.resizes(rep):
        if r["status"] != "ok":
            ax.text(r["start"], top - 0.2, " %s->%s" % (r["frm"], r["to"]), fontsize=7, va="top",
                    color=FAILED if r["status"] == "failed" else REFUSED)
    _phase_legend(ax, seen, rep)
    ax.set_ylim(0, top)
    ax.set_xlim(0, t[-1] * 1.01 or 1)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("time since MPI_Init (s)")
    ax.set_ylabel("processes")
    ax.set_title("processes over time", loc="left")
    return to_svg(fig)


def io_phases(rep):
    names, per = model.io_files(rep)
    if not per:
        return None
    palette = ["#54A24B", "#4C78A8", "#F58518", "#B279A2", "#E45756", "#72B7B2", "#EECA3B", "#9D755D"]
    h = 1.2 + 0.35 * len(names)
    fig, ax = plt.subplots(figsize=(WIDTH, h))
    end = model.num(rep.get("wall_time_s"))
    for i, name in enumerate(names):
        spans = per.get(name, [])
        vis = [(s, max(d, end / 400.0)) for s, d, _ in spans]
        ax.broken_barh(vis, (i - 0.35, 0.7), color=palette[i % len(palette)])
        for (s, d, b) in spans:
            if b:
                ax.text(s, i + 0.38, model.human_bytes(b), fontsize=7, va="bottom")
    _resize_marks(ax, rep, len(names), label=False)
    short = [n if len(n) <= 40 else "..." + n[-37:] for n in names]
    ax.set_yticks(range(len(names)))
    ax.set_yticklabels(short)
    ax.set_ylim(-0.6, len(names) - 0.1)
    ax.set_xlim(0, end * 1.01 or 1)
    ax.set_xlabel("time since MPI_Init (s); labels: bytes written and read in the phase (all processes)")
    ax.set_title("I/O phases per file", loc="left")
    return to_svg(fig)


def io_bytes(rep):
    files = (rep.get("io") or {}).get("files") or []
    if not files:
        return None
    files = sorted(files, key=lambda f: -(f.get("bytes_written", 0) + f.get("bytes_read", 0)))[:12][::-1]
    fig, ax = plt.subplots(figsize=(WIDTH, 0.9 + 0.3 * len(files)))
    y = list(range(len(files)))
    w = [f.get("bytes_written", 0) / 1e6 for f in files]
    r = [f.get("bytes_read", 0) / 1e6 for f in files]
    ax.barh(y, w, color="#54A24B", label="written")
    ax.barh(y, r, left=w, color="#4C78A8", label="read")
    ax.set_yticks(y)
    ax.set_yticklabels([f.get("name", "?") if len(f.get("name", "")) <= 40 else "..." + f["name"][-37:]
                        for f in files])
    ax.set_xlabel("MB (all processes)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    ax.set_title("bytes per file", loc="left")
    return to_svg(fig)
