#!/usr/bin/env python3
"""check_shift.py -- checks of a Phase Shifting run (tests/io/phase_shift.sh).

  check_shift.py STATUS_A REPORT_A OUT_A STATUS_B REPORT_B OUT_B

STATUS_* are `ductilectl --json status JOB --history 0` of the two jobs
(their events: io_phase, io_plan, resized), REPORT_* the jobs' Ductile
reports (io.phases with epoch timestamps, reconfigurations), OUT_* their
stdout (io_jacobi's final line).  Checks:
  - ductiled planned a phase shift (an io_plan event "planned") for one job k;
  - job k's +P happened at the plan's iter1 and the matching -P at iter2
    (ductiled's resized events and k's report agree), both "ok";
  - the two phases that made ductiled plan were within the interference
    margin of each other, and k's first phase after the shift (its next
    phase, at the original size) does not overlap any phase of the other
    job, in the reports' timestamps, and now ends before the other's starts;
  - both jobs ran to the end with the same checksum (the resize did not
    change the result).
"""
import json
import sys


def load(p):
    with open(p) as f:
        return json.load(f)


def final_line(p):
    for line in open(p):
        if line.startswith("io_jacobi:"):
            return line.split()
    return None


def main(a):
    st = [load(a[0]), load(a[3])]
    rep = [load(a[1]), load(a[4])]
    out = [final_line(a[2]), final_line(a[5])]
    fail = 0
    name = [None, None]

    def bad(msg):
        nonlocal fail
        print("FAIL:", msg)
        fail = 1

    plans = []
    for i in (0, 1):
        for e in st[i]["events"]:
            if e["kind"] == "io_plan":
                print("event %s: io_plan %s: %s" % ("AB"[i], e.get("status"), e.get("why")))
                if e.get("status") == "planned" and e.get("strategy") == "phase-shift":
                    plans.append((e["t"], i, e))
    if not plans:
        bad("no phase shift was planned")
        return 1
    plans.sort(key=lambda x: x[0])
    tplan, k, pl = plans[0]
    o = 1 - k
    name[k], name[o] = "%s (job %s)" % ("AB"[k], st[k].get("job", st[k].get("id"))), "%s (job %s)" % ("AB"[o], st[o].get("job", st[o].get("id")))
    d, it1, it2 = pl["delta"], pl["iter1"], pl["iter2"]
    print("ok: ductiled planned a phase shift of %s by %.2f s: +%d at iteration %d, -%d at %d (T_orig %.2f s, "
          "T_reconf %.2f s, speedup %.2f)" % (name[k], pl["shift_s"], d, it1, d, it2, pl["torig_s"], pl["treconf_s"],
                                              pl["speedup"]))
    rs = [e for e in st[k]["events"] if e["kind"] == "resized" and e["t"] >= tplan]
    if len(rs) < 2:
        bad("%s: %d resized events after the plan, expected the +%d and the -%d" % (name[k], len(rs), d, d))
        return 1
    ex, sh = rs[0], rs[1]
    if ex["op"] != "expand" or ex["status"] != "ok" or ex["iteration"] != it1 or ex["to"] - ex["from"] != d:
        bad("%s: first resize after the plan: %s" % (name[k], ex))
    else:
        print("ok: %s expanded %d -> %d at iteration %d, as planned (%.2f s)" % (name[k], ex["from"], ex["to"],
                                                                                    it1, ex["duration_s"]))
    if sh["op"] != "shrink" or sh["status"] != "ok" or sh["iteration"] != it2 or sh["from"] - sh["to"] != d:
        bad("%s: second resize after the plan: %s" % (name[k], sh))
    else:
        print("ok: %s shrank %d -> %d at iteration %d, as planned" % (name[k], sh["from"], sh["to"], it2))
    rc = [(r["iteration"], r["kind"], r["status"]) for r in rep[k].get("reconfigurations", [])]
    if (it1, "expand", "ok") not in rc or (it2, "shrink", "ok") not in rc:
        bad("%s's report does not show the two resizes: %s" % (name[k], rc))
    else:
        print("ok: %s's report agrees: %s" % (name[k], rc))
    if [r for r in rep[o].get("reconfigurations", []) if r["status"] == "ok"] and len(plans) == 1:
        bad("%s was resized without a plan" % name[o])

    ph = [rep[0]["io"]["phases"], rep[1]["io"]["phases"]]
    # the phases that triggered the plan: the last ones of each job that started before it
    before = [max((p for p in ph[i] if p["end_epoch"] < tplan), key=lambda p: p["start_epoch"], default=None)
              for i in (0, 1)]
    if None in before:
        bad("no phases before the plan")
        return 1
    gap0 = abs(before[k]["start_epoch"] - before[o]["start_epoch"])
    print("info: before the plan the two jobs' phases started %.3f s apart (durations %.3f and %.3f s)" %
          (gap0, before[k]["duration_s"], before[o]["duration_s"]))
    shifted = [p for p in ph[k] if p["start_epoch"] > tplan and p["iteration"] >= it2]
    if not shifted:
        bad("%s has no phase after the shift" % name[k])
        return 1
    s = shifted[0]
    if s["procs"] != ex["from"]:
        bad("%s's shifted phase ran on %d processes, expected %d (after the -P)" % (name[k], s["procs"], ex["from"]))
    over = [p for p in ph[o] if p["start_epoch"] < s["end_epoch"] and s["start_epoch"] < p["end_epoch"]]
    nxt = min((p for p in ph[o] if p["end_epoch"] > s["start_epoch"]), key=lambda p: p["start_epoch"], default=None)
    if over:
        bad("%s's shifted phase [%.3f, %.3f] overlaps %s's [%.3f, %.3f]" %
            (name[k], s["start_epoch"], s["end_epoch"], name[o], over[0]["start_epoch"], over[0]["end_epoch"]))
    elif nxt is not None and nxt["start_epoch"] < s["end_epoch"]:
        bad("%s's shifted phase does not end before %s's next one" % (name[k], name[o]))
    else:
        lead = (nxt["start_epoch"] - s["end_epoch"]) if nxt else float("nan")
        print("ok: %s's shifted phase (iteration %d, [%.3f, %.3f]) overlaps no phase of %s; it ends %.3f s "
              "before %s's next phase starts" % (name[k], s["iteration"], s["start_epoch"], s["end_epoch"], name[o],
                                                     lead, name[o]))
    # no two phases of different jobs overlap after the shift has taken effect
    after = sorted([(p["start_epoch"], p["end_epoch"], i) for i in (0, 1) for p in ph[i]
                    if p["start_epoch"] >= s["start_epoch"] - 1e-6])
    for x, y in zip(after, after[1:]):
        if x[2] != y[2] and y[0] < x[1]:
            bad("after the shift, %s's phase [%.3f, %.3f] overlaps %s's [%.3f, %.3f]" %
                (name[x[2]], x[0], x[1], name[y[2]], y[0], y[1]))
    if not out[0] or not out[1]:
        bad("a job did not finish: %s / %s" % (out[0], out[1]))
    elif out[0][-1] != out[1][-1] or out[0][1] != out[1][1]:
        bad("the jobs' results differ: %s / %s" % (" ".join(out[0]), " ".join(out[1])))
    else:
        print("ok: both jobs ran %s iterations with checksum %s" % (out[0][1], out[0][-1]))
    return fail


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
