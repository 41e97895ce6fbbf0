#!/usr/bin/env python3
"""Check a Ductile JSON report against per-rank expectation files.

Usage:
    check_report.py REPORT [EXPECT_PREFIX] [--nprocs N] [--iterations MIN MAX]

REPORT          the JSON report written by libductile.so at MPI_Finalize.
EXPECT_PREFIX   expectation files EXPECT_PREFIX.0 .. EXPECT_PREFIX.<nprocs-1>,
                one line per MPI function: "<name> <calls> <bytes_sent> <bytes_recv>"
                (written by the test programs, see tests/mpi/expect.h).
--nprocs N      the report must describe exactly N ranks.
--iterations MIN MAX
                the report's loop detection (rank 0's view) must have detected a
                loop, with MIN <= iterations.count <= MAX.
--loop ITERS SECONDS
                the program that wrote the report ran ITERS iterations of its
                loop in SECONDS (measured by itself, on the process that is rank
                0 at the end): a loop must be detected with ITERS-3 <= count <=
                ITERS-1 (the span after the last head never counts), and the
                iteration times must add up to the loop's time: SECONDS minus
                the uncounted iterations (at most max each) minus 0.1 s and 10 %
                <= time_total_s <= SECONDS plus 5 ms and 2 % (tick-counter
                calibration).
--time-sample N
                the run had DUCTILE_TIME_SAMPLE=N: with N > 1 the report's
                "timing" must say the times are sampled and estimated, with
                sample_every N and at least one (but not every) call estimated;
                with N = 1 that every call was timed and nothing estimated.
                (Calls and bytes are compared exactly either way.)

The report's structure is always validated (nprocs, ranks[i].rank == i, every
function entry has integer calls >= 1, bytes_sent/bytes_recv >= 0 and a
finite time_s >= 0, iterations object present; once iterations counted,
time_total_s, time_mean_s, time_min_s, time_max_s and every recent time are
positive, min <= mean <= max, mean x count = total, and the recent times add
up to the total when all are kept).  With EXPECT_PREFIX the
comparison is strict, per rank: every expected function must be in the report
with exactly the expected calls / bytes_sent / bytes_recv, and every function
in the report must be expected.  There must be exactly one expectation file
per rank.

Exit status: 0 all checks passed, 1 a check failed, 2 usage error.
"""

import argparse
import glob
import json
import math
import os
import re
import sys

FIELDS = ("calls", "bytes_sent", "bytes_recv")


class Problems:
    def __init__(self):
        self.items = []

    def add(self, msg):
        self.items.append(msg)

    def __bool__(self):
        return bool(self.items)

    def __len__(self):
        return len(self.items)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def fmt(entry):
    return "calls=%s sent=%s recv=%s" % tuple(entry.get(f, "?") for f in FIELDS)


def check_combined(rep, ranks, probs):
    """The figures rank 0 combines by reductions (top-level "functions",
    "totals", "imbalance") must agree with the per-rank tables: counts and
    bytes exactly, times to rounding (sums in a different order)."""
    if rep.get("departed"):
        return  # the combined figures include processes that left
    ranks = [rk for rk in ranks if isinstance(rk, dict) and isinstance(rk.get("functions"), dict)]
    if not ranks:
        return
    funcs = rep.get("functions")
    if funcs is None:
        return
    if not isinstance(funcs, dict):
        probs.add("report: 'functions' is not an object")
        return
    want = {}
    for rk in ranks:
        for name, e in rk["functions"].items():
            if not isinstance(e, dict):
                continue
            w = want.setdefault(name, {"calls": 0, "bytes_sent": 0, "bytes_recv": 0, "time_s": 0.0, "tmax": 0.0})
            for f in ("calls", "bytes_sent", "bytes_recv"):
                w[f] += e.get(f, 0) if is_int(e.get(f)) else 0
            t = e.get("time_s", 0) if is_number(e.get("time_s")) else 0
            w["time_s"] += t
            w["tmax"] = max(w["tmax"], t)
    if set(want) != set(funcs):
        probs.add("report: 'functions' names differ from the per-rank union: %s"
                  % sorted(set(want) ^ set(funcs)))
    for name in sorted(set(want) & set(funcs)):
        e, w = funcs[name], want[name]
        for f in ("calls", "bytes_sent", "bytes_recv"):
            if e.get(f) != w[f]:
                probs.add("report: functions.%s.%s is %r, the ranks sum to %r" % (name, f, e.get(f), w[f]))
        for f, v in (("time_s", w["time_s"]), ("time_max_rank_s", w["tmax"])):
            if not is_number(e.get(f)) or abs(e.get(f) - v) > 1e-9 + 1e-6 * abs(v):
                probs.add("report: functions.%s.%s is %r, the ranks give %r" % (name, f, e.get(f), v))
    tot = rep.get("totals")
    if isinstance(tot, dict):
        for f in ("calls", "bytes_sent", "bytes_recv"):
            v = sum(rk.get(f, 0) for rk in ranks if is_int(rk.get(f)))
            if tot.get(f) != v:
                probs.add("report: totals.%s is %r, the ranks sum to %r" % (f, tot.get(f), v))
    imb = rep.get("imbalance")
    if isinstance(imb, dict):
        for key, field in (("wall_time", "wall_time_s"), ("mpi_time", "mpi_time_s"),
                           ("compute_time", "compute_time_s"), ("io_time", "io_time_s")):
            e = imb.get(key)
            vals = [rk.get(field) for rk in ranks]
            if not isinstance(e, dict) or not all(is_number(v) for v in vals):
                continue
            mx = max(vals)
            if not is_number(e.get("max_s")) or abs(e["max_s"] - mx) > 1e-9 + 1e-6 * abs(mx):
                probs.add("report: imbalance.%s.max_s is %r, the ranks give %r" % (key, e.get("max_s"), mx))
            elif e.get("max_rank") != vals.index(mx):
                probs.add("report: imbalance.%s.max_rank is %r, expected %d" % (key, e.get("max_rank"),
                                                                               vals.index(mx)))


def validate_report(rep, probs):
    """Structural checks; returns the list of per-rank function dicts (or None)."""
    if not isinstance(rep, dict):
        probs.add("report: top level is not a JSON object")
        return None
    nprocs = rep.get("nprocs")
    if not is_int(nprocs) or nprocs < 1:
        probs.add("report: 'nprocs' missing or not a positive integer: %r" % (nprocs,))
        return None
    ranks = rep.get("ranks")
    if not isinstance(ranks, list):
        probs.add("report: 'ranks' missing or not a list")
        return None
    if len(ranks) != nprocs:
        probs.add("report: nprocs is %d but 'ranks' has %d entries" % (nprocs, len(ranks)))
    result = []
    for i, rk in enumerate(ranks):
        if not isinstance(rk, dict):
            probs.add("report: ranks[%d] is not an object" % i)
            result.append({})
            continue
        if rk.get("rank") != i or not is_int(rk.get("rank")):
            probs.add("report: ranks[%d] has \"rank\": %r (expected %d)" % (i, rk.get("rank"), i))
        funcs = rk.get("functions")
        if not isinstance(funcs, dict):
            probs.add("report: ranks[%d].functions missing or not an object" % i)
            result.append({})
            continue
        for name, e in sorted(funcs.items()):
            where = "report: rank %d: %s" % (i, name)
            if not isinstance(e, dict):
                probs.add("%s: entry is not an object" % where)
                continue
            calls = e.get("calls")
            if not is_int(calls) or calls < 1:
                probs.add("%s: 'calls' must be an integer >= 1 (uncalled functions are "
                          "omitted), got %r" % (where, calls))
            for f in ("bytes_sent", "bytes_recv"):
                if not is_int(e.get(f)) or e.get(f) < 0:
                    probs.add("%s: '%s' must be an integer >= 0, got %r" % (where, f, e.get(f)))
            t = e.get("time_s")
            if not is_number(t) or t < 0:
                probs.add("%s: 'time_s' must be a finite number >= 0, got %r" % (where, t))
        result.append(funcs)
    check_combined(rep, ranks, probs)

    it = rep.get("iterations")
    if not isinstance(it, dict):
        probs.add("report: 'iterations' missing or not an object")
    else:
        if not isinstance(it.get("detected"), bool):
            probs.add("report: iterations.detected must be a boolean, got %r"
                      % (it.get("detected"),))
        for f in ("count", "period_calls"):
            if not is_int(it.get(f)) or it.get(f) < 0:
                probs.add("report: iterations.%s must be an integer >= 0, got %r"
                          % (f, it.get(f)))
        if not isinstance(it.get("head"), str):
            probs.add("report: iterations.head must be a string, got %r" % (it.get("head"),))
        check_iteration_figures(it, probs)
        check_timeline(it, probs)
    return result


def check_timeline(it, probs):
    """iterations.timeline: the whole run in at most 512 buckets of equal
    width, contiguous, covering every counted iteration."""
    tl = it.get("timeline")
    if not isinstance(tl, dict) or not isinstance(tl.get("buckets"), list):
        probs.add("report: iterations.timeline missing or without buckets")
        return
    if tl.get("columns") != ["start_s", "first", "count", "mean_s", "min_s", "max_s"]:
        probs.add("report: iterations.timeline.columns is %r" % (tl.get("columns"),))
        return
    width, b = tl.get("iterations_per_bucket"), tl["buckets"]
    if not is_int(width) or width < 1 or len(b) > 512:
        probs.add("report: iterations.timeline: width %r, %d buckets" % (width, len(b)))
        return
    nxt, t = 0, -1.0
    for i, x in enumerate(b):
        ok = (isinstance(x, list) and len(x) == 6 and x[1] == nxt and
              (x[2] == width or (i == len(b) - 1 and 0 < x[2] <= width)) and x[0] >= t and x[4] <= x[3] * (1 + 1e-9) and
              x[3] <= x[5] * (1 + 1e-9))
        if not ok:
            probs.add("report: iterations.timeline bucket %d is %r (expected first %d, width %d)" % (i, x, nxt, width))
            return
        nxt, t = nxt + x[2], x[0]
    if it.get("detected") and nxt != it.get("count"):
        probs.add("report: iterations.timeline holds %d iterations, count is %r" % (nxt, it.get("count")))


def check_iteration_figures(it, probs):
    """Iteration times are durations: positive, ordered, and adding up."""
    n = it.get("count")
    names = ("time_total_s", "time_mean_s", "time_min_s", "time_max_s")
    vals = [it.get(k) for k in names]
    if not is_int(n) or n <= 0:
        return
    for k, v in zip(names, vals):
        if not is_number(v) or v <= 0:
            probs.add("report: iterations.%s must be a positive number once %d iterations "
                      "counted, got %r" % (k, n, v))
    if not all(is_number(v) for v in vals):
        return
    total, mean, lo, hi = vals
    eps = 1e-9 * max(1.0, abs(total))
    if not lo - eps <= mean <= hi + eps:
        probs.add("report: iterations: mean %r not between min %r and max %r" % (mean, lo, hi))
    if abs(mean * n - total) > 1e-6 * max(1.0, abs(total)):
        probs.add("report: iterations: mean %r x count %d != total %r" % (mean, n, total))
    recent = it.get("recent_times_s")
    if not isinstance(recent, list) or not all(is_number(x) for x in recent):
        probs.add("report: iterations.recent_times_s must be a list of numbers")
        return
    if any(x <= 0 for x in recent):
        probs.add("report: iterations.recent_times_s has non-positive times: %r"
                  % [x for x in recent if x <= 0][:5])
    if any(x < lo - eps or x > hi + eps for x in recent):
        probs.add("report: iterations.recent_times_s has times outside [min, max]")
    if len(recent) == n and abs(sum(recent) - total) > 1e-6 * max(1.0, abs(total)):
        probs.add("report: iterations: the recent times add up to %r, not to the total %r"
                  % (sum(recent), total))


def check_loop(it, iters, seconds, probs):
    """The detector's figures against the program's own measure of its loop."""
    if not isinstance(it, dict) or it.get("detected") is not True:
        probs.add("loop: expected a detected loop of %d iterations, got %r" % (iters, it))
        return None
    n, total, hi = it.get("count"), it.get("time_total_s"), it.get("time_max_s")
    if not is_int(n) or not iters - 3 <= n <= iters - 1:
        probs.add("loop: count=%r, expected %d..%d for a loop of %d iterations"
                  % (n, iters - 3, iters - 1, iters))
        return None
    if not is_number(total) or not is_number(hi):
        return None
    upper = seconds * 1.02 + 0.005
    lower = seconds * 0.9 - (iters - n) * hi - 0.1
    if not lower <= total <= upper:
        probs.add("loop: the %d iteration times add up to %.6f s, the loop took %.6f s "
                  "(accepted %.6f .. %.6f s)" % (n, total, seconds, lower, upper))
    return total


LINE_RE = re.compile(r"^(\S+)\s+(-?\d+)\s+(-?\d+)\s+(-?\d+)\s*$")


def read_expect(path, probs):
    exp = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        probs.add("expectation: cannot read %s: %s" % (path, e))
        return None
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = LINE_RE.match(line.strip())
        if not m:
            probs.add("expectation: %s:%d: malformed line: %r" % (path, n, line))
            continue
        name = m.group(1)
        vals = [int(m.group(k)) for k in (2, 3, 4)]
        if min(vals) < 0:
            probs.add("expectation: %s:%d: negative number: %r" % (path, n, line))
            continue
        e = exp.setdefault(name, {f: 0 for f in FIELDS})
        for f, v in zip(FIELDS, vals):
            e[f] += v
    # "<name> 0 0 0" means: never called, must be absent from the report
    for name in [n for n, e in exp.items() if e["calls"] == 0]:
        if exp[name]["bytes_sent"] or exp[name]["bytes_recv"]:
            probs.add("expectation: %s: %s has 0 calls but non-zero bytes" % (path, name))
        del exp[name]
    return exp


def compare_rank(rank, exp, got, probs):
    for name in sorted(set(exp) | set(got)):
        if name not in got:
            probs.add("rank %d: %s: expected %s, but it is missing from the report"
                      % (rank, name, fmt(exp[name])))
            continue
        if name not in exp:
            probs.add("rank %d: %s: in the report (%s) but not expected"
                      % (rank, name, fmt(got[name])))
            continue
        e, g = exp[name], got[name]
        diffs = ["%s %+d" % (f, g.get(f) - e[f]) for f in FIELDS
                 if is_int(g.get(f)) and g.get(f) != e[f]]
        bad = [f for f in FIELDS if not is_int(g.get(f))]
        if diffs or bad:
            probs.add("rank %d: %s: expected %s, got %s  (%s)"
                      % (rank, name, fmt(e), fmt(g), ", ".join(diffs + ["%s invalid" % b for b in bad])))


def check_timing(t, sample, probs):
    """The report's "timing" section (sampled timing, DUCTILE_TIME_SAMPLE):
    consistent always; with `sample`, the mode that run used."""
    if t is None:
        if sample is not None:
            probs.add("timing: the report has no 'timing' section")
        return
    if not isinstance(t, dict):
        probs.add("timing: not an object")
        return
    mode, est, every = t.get("mode"), t.get("estimated"), t.get("sample_every")
    ncalls, nest = t.get("calls"), t.get("estimated_calls")
    if mode not in ("every-call", "sampled"):
        probs.add("timing: mode %r is neither 'every-call' nor 'sampled'" % (mode,))
    if not isinstance(est, bool):
        probs.add("timing: 'estimated' must be true or false, got %r" % (est,))
    if not is_int(every) or every < 1 or not is_int(ncalls) or not is_int(nest) or nest < 0:
        probs.add("timing: sample_every, calls, estimated_calls must be integers (>= 1, >= 0): %r" % (t,))
        return
    if est and mode != "sampled":
        probs.add("timing: times estimated but mode %r" % (mode,))
    if est != (nest > 0):
        probs.add("timing: estimated=%r but estimated_calls=%d" % (est, nest))
    if mode == "every-call" and every != 1:
        probs.add("timing: every call timed but sample_every=%d" % every)
    if nest > ncalls:
        probs.add("timing: %d calls estimated of %d" % (nest, ncalls))
    note = t.get("note")
    if not isinstance(note, str) or (est and "estimated" not in note):
        probs.add("timing: the note must say the times are estimated: %r" % (note,))
    if sample is None:
        return
    if sample > 1:
        if mode != "sampled" or est is not True or every != sample:
            probs.add("timing: DUCTILE_TIME_SAMPLE=%d but mode=%r estimated=%r sample_every=%r"
                      % (sample, mode, est, every))
        if not 0 < nest < ncalls:
            probs.add("timing: 1 call in %d timed, but %d of %d calls estimated" % (sample, nest, ncalls))
    elif mode != "every-call" or est is not False or nest != 0:
        probs.add("timing: every call timed, but mode=%r estimated=%r estimated_calls=%r" % (mode, est, nest))


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Check a Ductile JSON report against expectation files.")
    ap.add_argument("report")
    ap.add_argument("expect_prefix", nargs="?")
    ap.add_argument("--nprocs", type=int)
    ap.add_argument("--iterations", nargs=2, type=int, metavar=("MIN", "MAX"))
    ap.add_argument("--loop", nargs=2, type=float, metavar=("ITERS", "SECONDS"))
    ap.add_argument("--time-sample", type=int, metavar="N")
    args = ap.parse_args(argv)

    probs = Problems()
    try:
        with open(args.report, encoding="utf-8") as f:
            rep = json.load(f)
    except (OSError, ValueError) as e:
        print("check_report: FAIL: cannot load report %s: %s" % (args.report, e))
        return 1

    funcs = validate_report(rep, probs)
    nchecked = 0
    if funcs is not None:
        nprocs = rep["nprocs"]
        if args.nprocs is not None and nprocs != args.nprocs:
            probs.add("report: nprocs is %d, expected %d" % (nprocs, args.nprocs))

        if args.expect_prefix is not None:
            prefix = args.expect_prefix
            found = set()
            pat = re.compile(re.escape(os.path.basename(prefix)) + r"\.(\d+)$")
            for p in glob.glob(glob.escape(prefix) + ".*"):
                m = pat.search(os.path.basename(p))
                if m:
                    found.add(int(m.group(1)))
            for r in sorted(found - set(range(nprocs))):
                probs.add("expectation: %s.%d exists but the report has only %d ranks"
                          % (prefix, r, nprocs))
            for r in range(nprocs):
                if r not in found:
                    probs.add("expectation: %s.%d is missing (report has %d ranks)"
                              % (prefix, r, nprocs))
                    continue
                exp = read_expect("%s.%d" % (prefix, r), probs)
                if exp is None:
                    continue
                if not exp:
                    probs.add("expectation: %s.%d is empty" % (prefix, r))
                got = funcs[r] if r < len(funcs) else {}
                compare_rank(r, exp, got, probs)
                nchecked += len(exp)

    if args.iterations is not None:
        lo, hi = args.iterations
        it = rep.get("iterations") if isinstance(rep, dict) else None
        if isinstance(it, dict):
            if it.get("detected") is not True:
                probs.add("iterations: expected a detected loop with %d..%d iterations, "
                          "but detected=%r (count=%r)" % (lo, hi, it.get("detected"),
                                                         it.get("count")))
            elif not is_int(it.get("count")) or not lo <= it["count"] <= hi:
                probs.add("iterations: count=%r not in [%d, %d] (period_calls=%r, head=%r)"
                          % (it.get("count"), lo, hi, it.get("period_calls"), it.get("head")))

    check_timing(rep.get("timing") if isinstance(rep, dict) else None, args.time_sample, probs)

    loop_total = None
    if args.loop is not None:
        loop_total = check_loop(rep.get("iterations") if isinstance(rep, dict) else None,
                                int(args.loop[0]), args.loop[1], probs)

    if probs:
        for p in probs.items:
            print("MISMATCH " + p)
        print("check_report: FAIL: %d problem(s) in %s" % (len(probs), args.report))
        return 1
    msg = "check_report: OK: %d ranks" % rep["nprocs"]
    if args.expect_prefix is not None:
        msg += ", %d function entries match" % nchecked
    if args.iterations is not None:
        msg += ", iterations.count=%d" % rep["iterations"]["count"]
    if loop_total is not None:
        it = rep["iterations"]
        msg += (", loop: %d iterations add up to %.4f s of the loop's %.4f s (min %.4f, mean %.4f, max %.4f)"
                % (it["count"], loop_total, args.loop[1], it["time_min_s"], it["time_mean_s"], it["time_max_s"]))
    print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
