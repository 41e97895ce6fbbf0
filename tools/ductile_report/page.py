"""page.py -- the report page: one self-contained HTML file (inline CSS,
inline SVG charts from charts.py, no script, no network) with the job's
header and settings, time split, per-rank imbalance, top functions, the
main loop's iteration times with the resizes and their phases, processes
over time, I/O phases per file, departed processes, and failed and refused
resizes with their reasons."""
import html
import os

from . import charts, model

CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#222;background:#fff}
main{max-width:1100px;margin:0 auto;padding:1em 1.5em 3em}
h1{font-size:1.5em;margin:.4em 0 .1em}h2{font-size:1.15em;margin:1.6em 0 .4em;border-bottom:1px solid #ddd}
.sub{color:#555;margin:0 0 1em;font-family:ui-monospace,monospace;font-size:.9em;word-break:break-all}
table{border-collapse:collapse;font-size:.88em;margin:.4em 0 1em}
th,td{padding:.2em .7em;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.kv td:first-child{color:#555;white-space:nowrap}
figure.chart{margin:.5em 0 1em}figure.chart svg{width:100%;height:auto;display:block}
figure.chart figcaption{color:#555;font-size:.85em}
.note{color:#555;font-size:.9em}tr.failed td{color:#b00}tr.refused td{color:#666}
tr.set td{background:#fff8e0}details summary{cursor:pointer;color:#555}
nav a{margin-right:1em;font-size:.9em}
"""


def esc(x):
    return html.escape("" if x is None else str(x))


def table(head, rows, numeric=(), cls=""):
    """An HTML table; numeric: the indices of right-aligned columns."""
    out = ['<table%s><tr>' % (' class="%s"' % cls if cls else "")]
    out += ['<th%s>%s</th>' % (' class="n"' if i in numeric else "", esc(h)) for i, h in enumerate(head)]
    out.append("</tr>")
    for r in rows:
        attrs = ""
        if isinstance(r, tuple) and len(r) == 2 and isinstance(r[1], dict):
            r, attrs = r[0], "".join(' %s="%s"' % (k, esc(v)) for k, v in r[1].items())
        out.append("<tr%s>" % attrs + "".join('<td%s>%s</td>' % (' class="n"' if i in numeric else "", c)
                                              for i, c in enumerate(r)) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def figure(name, svg, caption):
    if svg is None:
        return ""
    return '<figure class="chart" id="chart-%s">%s<figcaption>%s</figcaption></figure>' % (name, svg, caption)


def timing_text(rep):
    """How the MPI times were taken (the report's "timing": sampled timing, DUCTILE_TIME_SAMPLE)."""
    t = rep.get("timing") or {}
    if t.get("mode") == "sampled":
        return ("ESTIMATED: 1 call in %s timed at random, %s of %s calls untimed; every time is time x calls / "
                "timed calls; calls and bytes are exact" % (t.get("sample_every"), t.get("estimated_calls"),
                                                            t.get("calls")))
    return "measured: every call timed"


def header(rep, src):
    mpi = rep.get("mpi") or {}
    it = rep.get("iterations") or {}
    rs = model.resizes(rep)
    counts = {s: sum(1 for r in rs if r["status"] == s) for s in ("ok", "failed", "refused")}
    t, n = model.process_steps(rep)
    loop = ("%d iterations of %d MPI calls, %s each on average; head %s" %
            (it.get("count", 0), it.get("period_calls", 0), model.human_seconds(it.get("time_mean_s")),
             it.get("head", "")) if it.get("detected") else "not detected (%s)" % it.get("state", "off"))
    rows = [("job", esc(rep.get("job"))), ("started (UTC)", esc(rep.get("start_time"))),
            ("wall time", esc(model.human_seconds(rep.get("wall_time_s")))),
            ("processes", "%s at the end, %s at most, %d left during the run" %
             (esc(rep.get("nprocs")), esc(max(n)), len(rep.get("departed") or []))),
            ("MPI", "%s (MPI %s): %s" % (esc(mpi.get("family")), esc(mpi.get("standard")), esc(mpi.get("library")))),
            ("MPI times", esc(timing_text(rep))),
            ("main loop", esc(loop)),
            ("resizes", "%d done, %d failed, %d refused" % (counts["ok"], counts["failed"], counts["refused"])),
            ("report", "%s (%s, Ductile %s)" % (esc(src), esc(rep.get("schema")), esc(rep.get("ductile_version"))))]
    return '<table class="kv">%s</table>' % "".join("<tr><td>%s</td><td>%s</td></tr>" % (esc(k), v) for k, v in rows)


def settings_table(rep, defaults):
    s = rep.get("settings") or {}
    set_rows, default_rows = [], []
    for k in sorted(s):
        d = defaults.get(k)
        changed = d is not None and str(s[k]) != d[0]
        row = ["<code>%s</code>" % esc(k), "<code>%s</code>" % esc(s[k]),
               "<code>%s</code>" % esc(d[0]) if d else "", esc(d[1]) if d else ""]
        (set_rows if changed or d is None else default_rows).append((row, {"class": "set"}) if changed else row)
    head = ["setting", "value", "default", "meaning"]
    out = table(head, set_rows) if set_rows else '<p class="note">every setting at its default</p>'
    if default_rows:
        out += "<details><summary>%d settings at their default</summary>%s</details>" % (
            len(default_rows), table(head, default_rows))
    return out


def load_defaults(paths):
    """{name: (default, meaning)} from the settings table (settings.toml), when found."""
    try:
        import tomllib
    except ImportError:
        return {}
    for p in paths:
        if p and os.path.exists(p):
            with open(p, "rb") as f:
                data = tomllib.load(f)
            return {s["name"]: (s.get("default", ""), s.get("meaning", "").replace("`", ""))
                    for s in data.get("setting", [])}
    return {}


def functions_table(rep, n):
    tot_mpi = model.num((rep.get("totals") or {}).get("mpi_time_s")) or 1.0
    rows = [[esc(f), "%d" % c, esc(model.human_seconds(t)), "%.1f%%" % (100 * t / tot_mpi), esc(model.human_seconds(mx)),
             esc(model.human_bytes(s)), esc(model.human_bytes(r))] for f, c, t, s, r, mx in model.top_functions(rep, n)]
    return table(["function", "calls", "time", "% of MPI time", "longest process", "sent", "received"], rows,
                 numeric=(1, 2, 3, 4, 5, 6))


def imbalance_table(rep):
    imb = rep.get("imbalance") or {}
    rows = []
    for k, label in (("wall_time", "wall time"), ("mpi_time", "MPI time"), ("compute_time", "compute"),
                     ("io_time", "I/O")):
        v = imb.get(k) or {}
        rows.append([label, esc(model.human_seconds(v.get("min_s"))), esc(model.human_seconds(v.get("mean_s"))),
                     esc(model.human_seconds(v.get("max_s"))), "%.2f" % model.num(v.get("max_over_mean")),
                     esc(v.get("max_rank"))])
    return table(["", "min", "mean", "max", "max / mean", "rank of the max"], rows, numeric=(1, 2, 3, 4, 5))


def resizes_table(rep):
    rows = [[esc(r["id"]), esc(r["iteration"]), "%s -> %s" % (esc(r["frm"]), esc(r["to"])), esc(r["kind"]),
             esc(r["method"]), esc(r["redist"]), "%.2f" % r["start"], esc(model.human_seconds(r["total"])),
             esc(", ".join("%s %s" % (p, model.human_seconds(d)) for p, d in r["phases"])),
             esc(model.human_bytes(r["bytes"]))] for r in model.ok_resizes(rep)]
    if not rows:
        return '<p class="note">no resize was done</p>'
    return table(["#", "iteration", "processes", "kind", "method", "transfer", "start (s)", "total", "phases",
                  "data moved"], rows, numeric=(0, 1, 6, 7, 9))


def failed_table(rep):
    rows = [([esc(r["id"]), esc(r["iteration"]), "%s -> %s" % (esc(r["frm"]), esc(r["to"])), esc(r["kind"]),
              esc(r["status"]), "%.2f" % r["start"], esc(r["reason"])], {"class": r["status"]})
            for r in model.resizes(rep) if r["status"] != "ok"]
    if not rows:
        return '<p class="note">none</p>'
    return table(["#", "iteration", "processes", "kind", "status", "at (s)", "reason"], rows, numeric=(0, 1, 5))


def departed_table(rep):
    rows = [[esc(d.get("rank")), esc(d.get("host")), esc(d.get("pid")), esc(d.get("left_at_iteration")),
             "%.2f" % d["left_s"] if d.get("left_s") is not None else "", esc(d.get("end", "")),
             esc(model.human_seconds(d.get("wall_time_s"))), esc(model.human_seconds(d.get("mpi_time_s"))),
             esc(d.get("calls"))] for d in model.departed_rows(rep)]
    if not rows:
        return '<p class="note">no process left the job</p>'
    return table(["former rank", "host", "pid", "left at iteration", "at (s)", "then", "wall time", "MPI time",
                  "calls"], rows, numeric=(0, 2, 3, 4, 6, 7, 8))


def io_section(rep):
    io = rep.get("io")
    if not io:
        return '<p class="note">no MPI-IO calls</p>'
    out = figure("io", charts.io_phases(rep), "Each bar is an I/O phase (a burst of MPI-IO calls, separated by "
                 "more than DUCTILE_IO_PHASE_GAP without I/O) on the files it accessed; shaded: resizes.")
    out += figure("io-bytes", charts.io_bytes(rep), "Bytes written and read per file, all processes.")
    files = [[esc(f.get("name")), esc(f.get("opens")), esc(f.get("calls")), esc(model.human_bytes(f.get("bytes_written", 0))),
              esc(model.human_bytes(f.get("bytes_read", 0))), esc(model.human_seconds(f.get("time_s")))]
             for f in io.get("files") or []]
    out += table(["file", "opens", "calls", "written", "read", "time"], files, numeric=(1, 2, 3, 4, 5))
    ph = [[esc(p.get("index")), "%.2f" % model.num(p.get("start_s")), esc(model.human_seconds(p.get("duration_s"))),
           esc(model.human_seconds(p.get("delay_s"))), esc(model.human_bytes(p.get("bytes_written", 0))),
           esc(model.human_bytes(p.get("bytes_read", 0))), esc(p.get("iteration")), esc(p.get("procs")),
           esc(", ".join(p.get("files") or []))] for p in io.get("phases") or []]
    if ph:
        out += "<details><summary>%d I/O phases</summary>%s</details>" % (len(ph), table(
            ["#", "start (s)", "duration", "token wait", "written", "read", "iteration", "processes", "files"], ph,
            numeric=(0, 1, 2, 3, 4, 5, 6, 7)))
    return out


def build(rep, src, top=12, defaults=None):
    """The whole page, as text."""
    title = "Ductile job %s" % rep.get("job", "?")
    cmd = " ".join(rep.get("command") or [])
    split = ", ".join("%s %s" % (n, model.human_seconds(v)) for n, v in model.time_split(rep))
    parts = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>%s</title><style>%s</style></head><body><main>" % (esc(title), CSS),
             "<h1>%s</h1><p class=\"sub\">%s</p>" % (esc(title), esc(cmd)),
             '<nav><a href="#time">time</a><a href="#functions">functions</a><a href="#loop">main loop</a>'
             '<a href="#procs">processes</a><a href="#io">I/O</a><a href="#departed">departed</a>'
             '<a href="#failed">failed resizes</a><a href="#settings">settings</a></nav>',
             header(rep, src),
             '<h2 id="time">Time split</h2>',
             figure("time-split", charts.time_split(rep), "Over every process, those that left included: " + split),
             '<h2 id="imbalance">Time per process (imbalance)</h2>',
             figure("imbalance", charts.imbalance(rep), "Compute, communication and I/O seconds per process; "
                    "dashed: the mean of the processes at the end."),
             imbalance_table(rep),
             '<h2 id="functions">Top MPI functions</h2>',
             figure("functions", charts.functions(rep, top), "Time and bytes per MPI function, summed over processes." +
                    (" Times ESTIMATED from a sample of the calls (%s)." % timing_text(rep)
                     if (rep.get("timing") or {}).get("mode") == "sampled" else "")),
             functions_table(rep, max(top, 20)),
             '<h2 id="loop">Main loop and resizes</h2>']
    it_svg = charts.iterations(rep)
    if it_svg:
        parts.append(figure("iterations", it_svg, "Shaded: each resize's phases (spawn, merge, plan, transfer, "
                            "background, ...) one after another from its start, each the longest over the "
                            "processes; grey: the rest of its total. Dashed: failed, dotted: refused."))
    else:
        parts.append('<p class="note">%s; no resizes</p>' % esc(model.iteration_series(rep)[5]))
    parts += ['<h2 id="procs">Processes over time</h2>',
              figure("processes", charts.processes(rep), "The number of processes in the job's world."),
              resizes_table(rep),
              '<h2 id="failed">Failed and refused resizes</h2>', failed_table(rep),
              '<h2 id="io">I/O</h2>', io_section(rep),
              '<h2 id="departed">Departed processes</h2>', departed_table(rep),
              '<h2 id="settings">Settings</h2>', settings_table(rep, defaults or {}),
              '<p class="note">Made by ductile-report from %s. docs/report.md describes every figure.</p>' % esc(src),
              "</main></body></html>\n"]
    return "\n".join(p for p in parts if p)
