"""model.py -- what the page shows, taken from a Ductile report
(docs/report.md, schema ductile-report/1): pure functions of the report's
JSON, no plotting, so that the charts and the tables agree."""

# a resize's phases, in the order they happen (docs/malleability.md)
PHASES = ["spawn", "merge", "plan", "window", "prepare", "transfer", "background"]


def num(x, default=0.0):
    return x if isinstance(x, (int, float)) and not isinstance(x, bool) else default


def resizes(rep):
    """Every reconfiguration: its status, when it started (seconds since
    MPI_Init), how long it took and its phases."""
    out = []
    for r in rep.get("reconfigurations") or []:
        t = r.get("times_s") or {}
        out.append(dict(id=r.get("id"), iteration=r.get("iteration"), frm=r.get("from"), to=r.get("to"),
                        kind=r.get("kind", ""), method=r.get("method", ""), redist=r.get("redistribution", ""),
                        status=r.get("status", ""), reason=r.get("reason", ""), start=num(r.get("start_s")),
                        total=num(t.get("total")), bytes=num(r.get("bytes_moved"), 0),
                        phases=[(p, num(t.get(p))) for p in PHASES if num(t.get(p)) > 0],
                        choice=(r.get("choice") or {}).get("by", ""), persistent=r.get("persistent")))
    return out


def ok_resizes(rep):
    return [r for r in resizes(rep) if r["status"] == "ok"]


def process_steps(rep):
    """Processes over time: (times, counts) of a step function that starts
    at MPI_Init and changes when each successful resize completes."""
    ok = ok_resizes(rep)
    wall = num(rep.get("wall_time_s"))
    p = ok[0]["frm"] if ok else rep.get("nprocs", 1)
    t, n = [0.0], [p]
    for r in ok:
        end = r["start"] + r["total"]
        t.append(end)
        n.append(r["to"])
    t.append(max(wall, t[-1]))
    n.append(n[-1])
    return t, n


def time_split(rep):
    """Compute, communication and I/O seconds over every process (departed included)."""
    tot = rep.get("totals") or {}
    return [("compute", num(tot.get("compute_time_s"))), ("communication", num(tot.get("comm_time_s"))),
            ("I/O", num(tot.get("io_time_s")))]


def rank_rows(rep):
    """Per process: (label, compute, communication, I/O seconds, departed?),
    the ranks at the end first, then the processes that left."""
    rows = []
    for r in rep.get("ranks") or []:
        rows.append(("%d" % r.get("rank", 0), num(r.get("compute_time_s")), num(r.get("comm_time_s")),
                     num(r.get("io_time_s")), False))
    for d in rep.get("departed") or []:
        rows.append(("%d'" % d.get("rank", 0), num(d.get("compute_time_s")), num(d.get("comm_time_s")),
                     num(d.get("io_time_s")), True))
    return rows


def top_functions(rep, n):
    """The n functions with the most time: (name, calls, time, sent, received, max per process)."""
    fns = rep.get("functions") or {}
    rows = [(k, num(v.get("calls"), 0), num(v.get("time_s")), num(v.get("bytes_sent"), 0),
             num(v.get("bytes_recv"), 0), num(v.get("time_max_rank_s"))) for k, v in fns.items()]
    rows.sort(key=lambda x: (-x[2], -x[1], x[0]))
    return rows[:n]


def iteration_series(rep):
    """The main loop's iteration times over the whole run: (start times,
    mean ms, min ms, max ms, iterations per point, note); empty lists when
    no loop was found."""
    it = rep.get("iterations") or {}
    tl = it.get("timeline") or {}
    b = tl.get("buckets") or []
    if it.get("detected") and b:
        w = tl.get("iterations_per_bucket", 1)
        note = "each point: %d iteration%s" % (w, "" if w == 1 else "s (mean; band: min to max)")
        return ([x[0] for x in b], [1e3 * x[3] for x in b], [1e3 * x[4] for x in b], [1e3 * x[5] for x in b], w,
                note)
    recent = it.get("recent_times_s") or []
    if it.get("detected") and recent:  # a report without the timeline: its last iterations, one after another
        t, xs = num(rep.get("wall_time_s")) - sum(recent), []
        for d in recent:
            xs.append(t)
            t += d
        ms = [1e3 * d for d in recent]
        return xs, ms, ms, ms, 1, "the report's last %d iterations" % len(recent)
    return [], [], [], [], 1, "no main loop was detected (state: %s)" % it.get("state", "off")


def departed_rows(rep):
    """Processes that left: the resize's start as the time they left, when known."""
    when = {}
    for r in ok_resizes(rep):
        when.setdefault(r["iteration"], r["start"] + r["total"])
    out = []
    for d in rep.get("departed") or []:
        out.append(dict(d, left_s=when.get(d.get("left_at_iteration"))))
    return out


def io_files(rep):
    """(file names in order of first use, {name: [(start, duration, bytes)]}) for the I/O chart."""
    io = rep.get("io") or {}
    names = [f.get("name", "?") for f in io.get("files") or []]
    per = {}
    for p in io.get("phases") or []:
        fs = p.get("files")
        if fs is None:
            fs = ["(all files)"]
        for f in fs:
            if f not in names:
                names.append(f)
            per.setdefault(f, []).append((num(p.get("start_s")), num(p.get("duration_s")),
                                          num(p.get("bytes_written"), 0) + num(p.get("bytes_read"), 0)))
    return [n for n in names if n in per], per


def human_bytes(n):
    n = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1000.0
    return "%.1f TB" % n


def human_seconds(s):
    s = num(s)
    if s >= 100:
        return "%.0f s" % s
    if s >= 1:
        return "%.2f s" % s
    if s >= 1e-3:
        return "%.2f ms" % (1e3 * s)
    return "%.1f us" % (1e6 * s) if s > 0 else "0"
