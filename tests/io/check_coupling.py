#!/usr/bin/env python3
"""check_coupling.py -- checks of a Period Coupling run (tests/io/period_coupling.sh).

  check_coupling.py STATUS_A REPORT_A OUT_A STATUS_B REPORT_B OUT_B [TOLERANCE]

STATUS_* are `ductilectl --json status JOB --history 0` of the two jobs
(their events: io_phase, io_plan, resized), REPORT_* the jobs' Ductile
reports (io.phases with epoch timestamps and process counts,
reconfigurations), OUT_* their stdout (io_jacobi's "ckpt" lines and final
line).  Job B is the one with the longer I/O period.  Checks:
  - ductiled planned a period coupling (an io_plan event, strategy
    "period-coupling", status "planned") and its first one is for the job
    whose period, measured from the reports' phases before the plan, is the
    longer: B, +1 process (1 -> 2), a speedup between 1.02 and 2;
  - no other plan went ahead (no other "planned" io_plan event);
  - B's +1 happened at a control point at or after the plan's iter1, status
    "ok", 1 -> 2 processes (ductiled's resized event and B's report agree),
    and it is permanent: no other reconfiguration, B's later phases and its
    final line on 2 processes; A was never resized;
  - B's I/O period at 2 processes (median of the intervals between
    consecutive phase starts after the resize) is within TOLERANCE (default
    0.3) of the shorter period times the nearest integer, and closer to a
    multiple than B's period before the resize was (0.5 off in the test).
    Unloaded, B ends 0.01 off; with two CPU hogs on the 2 cores, 0.13 to
    0.17 off: its collective checkpoint (40 MPI_File_write_at_all calls
    between 2 processes) waits for the scheduler, A's on 1 process does not;
  - both jobs ran all their iterations (the final line), one checkpoint
    line per I/O phase in the report;
  - no period coupling of B is planned after the resize from B's period
    before it (a bug, fixed; see KNOWN_BUG_STALE_PERIOD).
"""
import json
import statistics
import sys

# ductiled used to keep predicting a resized job's period from its phases at
# the old size until the first phase at the new size was reported, and then
# planned a second coupling from the stale period (with free slots the job
# was expanded twice).  Fixed in src/daemon/iopredict.c (a prediction needs two
# phases at the job's current size).  True reports such a plan as "xfail"
# instead of failing.
KNOWN_BUG_STALE_PERIOD = False


def load(p):
    with open(p) as f:
        return json.load(f)


def read_out(p):
    final, ckpt = None, []
    for line in open(p):
        w = line.split()
        if line.startswith("io_jacobi:"):
            final = w
        elif w and w[0] == "ckpt":
            ckpt.append((int(w[1]), int(w[2]), float(w[3]), float(w[4])))
    return final, ckpt


def intervals(phases, keep):
    """Start-to-start intervals between consecutive phases that both satisfy keep."""
    return [q["start_epoch"] - p["start_epoch"] for p, q in zip(phases, phases[1:]) if keep(p) and keep(q)]


def off_multiple(long_p, short_p):
    """How far long_p / short_p is from the nearest integer multiple (>= 1), in units of short_p."""
    x = long_p / short_p
    return abs(x - max(1, round(x)))


def main(a):
    tol = float(a[6]) if len(a) > 6 else 0.3
    st = [load(a[0]), load(a[3])]
    rep = [load(a[1]), load(a[4])]
    out = [read_out(a[2]), read_out(a[5])]
    name = ["A (job %s)" % st[0].get("job"), "B (job %s)" % st[1].get("job")]
    fail = 0

    def bad(msg):
        nonlocal fail
        print("FAIL:", msg)
        fail = 1

    ph = [sorted(r["io"]["phases"], key=lambda p: p["start_epoch"]) for r in rep]
    for i in (0, 1):
        print("info: %s phases (iteration, procs, start): %s" %
              (name[i], ", ".join("%d/%d/%.2f" % (p["iteration"], p["procs"], p["start_epoch"]) for p in ph[i])))

    plans = []
    for i in (0, 1):
        for e in st[i]["events"]:
            if e["kind"] == "io_plan":
                print("event %s: io_plan %s %s: %s" % ("AB"[i], e.get("strategy"), e.get("status"), e.get("why")))
                if e.get("status") == "planned":
                    plans.append((e["t"], i, e))
    plans.sort(key=lambda x: x[0])
    if not plans:
        bad("no plan went ahead")
        return 1
    tplan, k, pl = plans[0]
    if len(plans) > 1:
        bad("%d plans went ahead, expected one: %s" % (len(plans), [p[2].get("why") for p in plans]))
    if pl.get("strategy") != "period-coupling":
        bad("the first plan is a %s, not a period coupling: %s" % (pl.get("strategy"), pl.get("why")))

    # the periods ductiled saw: the phases reported before the plan, at 1 process
    before = [intervals([p for p in ph[i] if p["end_epoch"] < tplan], lambda p: p["procs"] == 1) for i in (0, 1)]
    if not before[0] or not before[1]:
        bad("the reports show no period of both jobs before the plan: %s" % before)
        return 1
    per0 = [statistics.median(x) for x in before]
    lng = 0 if per0[0] > per0[1] else 1
    print("info: before the plan: periods A %.3f s, B %.3f s (B/A = %.3f)" % (per0[0], per0[1], per0[1] / per0[0]))
    if k != lng:
        bad("the plan is for %s but %s has the longer period" % (name[k], name[lng]))
    if k != 1:
        bad("the plan is for %s; the test makes B's period the longer one" % name[k])
        return 1
    d, np_, it1, s = pl["delta"], pl["new_procs"], pl["iter1"], pl["speedup"]
    if d != 1 or np_ != 2 or not 1.02 <= s <= 2.0:
        bad("plan for %s: delta %d, new_procs %d, speedup %.3f; expected +1 -> 2 with a speedup in [1.02, 2]" %
            (name[k], d, np_, s))
    else:
        print("ok: ductiled planned a period coupling of %s: speedup %.2f -> %d processes from iteration %d (%s)" %
              (name[k], s, np_, it1, pl.get("why")))

    rs = [e for e in st[1]["events"] if e["kind"] == "resized"]
    if len(rs) != 1:
        bad("%s: %d resized events, expected the one +1: %s" % (name[1], len(rs), rs))
        if not rs:
            return 1
    ex = rs[0]
    if ex["t"] < tplan or ex["op"] != "expand" or ex["status"] != "ok" or ex["from"] != 1 or ex["to"] != np_ \
            or ex["iteration"] < it1:
        bad("%s: the resize is not the planned +1 at iteration >= %d: %s" % (name[1], it1, ex))
    else:
        print("ok: %s expanded %d -> %d at the control point of iteration %d (planned from %d; %.2f s)" %
              (name[1], ex["from"], ex["to"], ex["iteration"], it1, ex["duration_s"]))
    rc = [(r["iteration"], r["kind"], r["status"], r["from"], r["to"]) for r in rep[1].get("reconfigurations", [])]
    if rc != [(ex["iteration"], "expand", "ok", 1, np_)]:
        bad("%s's report shows %s, expected only the +1 at iteration %d" % (name[1], rc, ex["iteration"]))
    else:
        print("ok: %s's report agrees, and the resize is permanent: %s" % (name[1], rc))
    if rep[0].get("reconfigurations"):
        bad("%s was resized: %s" % (name[0], rep[0]["reconfigurations"]))
    if [e for e in st[0]["events"] if e["kind"] == "resized"]:
        bad("%s has resized events" % name[0])

    # B's period at its new size against the shorter period (A's, all at 1 process)
    it_r = ex["iteration"]
    late = [p for p in ph[1] if p["iteration"] > it_r]
    if not late or any(p["procs"] != np_ for p in late):
        bad("%s's phases after the resize are not all on %d processes: %s" %
            (name[1], np_, [(p["iteration"], p["procs"]) for p in late]))
    after = intervals(late, lambda p: p["procs"] == np_)
    pa = intervals(ph[0], lambda p: p["procs"] == 1)
    if len(after) < 2 or len(pa) < 2:
        bad("too few phases to measure the periods: B after %s, A %s" % (after, pa))
        return 1
    per_a, per_b0, per_b1 = statistics.median(pa), per0[1], statistics.median(after)
    e0 = off_multiple(max(per_b0, per_a), min(per_b0, per_a))
    e1 = off_multiple(max(per_b1, per_a), min(per_b1, per_a))
    print("info: A's period %.3f s; B's %.3f s before, %.3f s after (intervals %s)" %
          (per_a, per_b0, per_b1, " ".join("%.3f" % x for x in after)))
    if e0 < 0.25:
        bad("the periods were already close to a multiple before (off by %.3f): the test proves nothing" % e0)
    if e1 > tol or e1 >= e0:
        bad("%s's period %.3f s is off a multiple of %.3f s by %.3f (before: %.3f s, off by %.3f); expected "
            "< %.2f and closer than before" % (name[1], per_b1, per_a, e1, per_b0, e0, tol))
    else:
        print("ok: %s's period went from %.3f s (%.2f x A's, off a multiple by %.2f) to %.3f s (%.2f x, off by %.2f "
              "<= %.2f)" % (name[1], per_b0, per_b0 / per_a, e0, per_b1, per_b1 / per_a, e1, tol))

    # Every period-coupling plan for B after its resize must rest on B's
    # period at its new size: a speedup above what that period calls for
    # (B's speedup before the resize was 1.5, its due one after it is 1.0,
    # up to 1.17 on a loaded machine) means ductiled still used the phases B
    # ran at 1 process.
    stale = [e for e in st[1]["events"] if e["kind"] == "io_plan" and e.get("strategy") == "period-coupling"
             and e["t"] > ex["t"]]
    m1 = max(1.0, float(int(per_b1 / per_a + 1e-9)))
    due = per_b1 / (m1 * per_a)
    stale = [e for e in stale if e.get("speedup", 0) > due + 0.15]
    if stale:
        msg = ("after %s's resize ductiled planned %d period coupling(s) of %s from its period at 1 process: %s "
               "(speedup %.2f; its period at %d processes calls for %.2f)" %
               (name[1], len(stale), name[1], stale[0].get("why"), stale[0]["speedup"], np_, due))
        if KNOWN_BUG_STALE_PERIOD:
            print("xfail (known bug, src/daemon/iopolicy.c io_policy_phase / src/daemon/iopredict.c iop_predict):", msg)
        else:
            bad(msg)
    else:
        # the stale prediction lasts from the resize until B reports its first
        # phase at the new size: ductiled plans only when a phase is reported,
        # and a stale plan that needs more processes than there are slots is
        # only logged, not an event: not every run can show the bug
        first_new = min((e["t"] for e in st[1]["events"] if e["kind"] == "io_phase" and e.get("procs") == np_),
                        default=float("inf"))
        hits = [e for e in st[0]["events"] if e["kind"] == "io_phase" and ex["t"] < e["t"] < first_new]
        print("%s: no io_plan event for %s from its period before the resize (%d phase(s) of %s reported while "
              "that period was the latest)" % ("info" if KNOWN_BUG_STALE_PERIOD else "ok", name[1], len(hits),
                                               name[0]))

    for i in (0, 1):
        final, ckpt = out[i]
        want = 2 if i == 1 else 1
        if not final:
            bad("%s did not finish" % name[i])
        elif int(final[4]) != want:
            bad("%s finished on %s processes, expected %d: %s" % (name[i], final[4], want, " ".join(final)))
        else:
            print("ok: %s ran %s iterations and finished on %s processes" % (name[i], final[1], final[4]))
        if len(ckpt) != len(ph[i]):
            bad("%s: %d checkpoints but %d I/O phases in the report" % (name[i], len(ckpt), len(ph[i])))
    return fail


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
