#!/usr/bin/env python3
"""check_io.py -- checks on the "io" section of Ductile reports.

  check_io.py accounting REPORT PROGRAM_OUTPUT
      exact bytes per file and per phase, phase count, access sizes, against
      the "expect ..." line io_pattern prints; each detected phase must
      contain the phase io_pattern timed itself.
  check_io.py disjoint REPORT REPORT...
      no two I/O phases of different jobs overlap in time.
"""
import json
import sys


def load(p):
    with open(p) as f:
        return json.load(f)


def accounting(rep, out):
    fail = 0
    io = load(rep).get("io")
    if not io:
        print("FAIL: no io section in", rep)
        return 1
    exp = None
    marks = []
    for line in open(out):
        w = line.split()
        if w and w[0] == "expect":
            exp = dict(zip(w[1::2], (int(v) for v in w[2::2])))
        elif w and w[0] == "phase":
            marks.append((float(w[3]), float(w[5])))
    if exp is None:
        print("FAIL: no expect line in", out)
        return 1
    files = [f for f in io["files"] if f["name"].endswith(".ckpt")]
    if len(files) != 1:
        print("FAIL: expected one .ckpt file, got", [f["name"] for f in io["files"]])
        return 1
    f = files[0]
    for key, want in (("bytes_written", exp["written"]), ("bytes_read", exp["read"])):
        if f[key] != want:
            print("FAIL: file %s: %s %d, expected %d" % (f["name"], key, f[key], want)); fail = 1
        else:
            print("ok: file %s: %s %d" % (f["name"], key, want))
    if f["opens"] != exp["phases"]:
        print("FAIL: opens %d, expected %d" % (f["opens"], exp["phases"])); fail = 1
    if f["access"]["min"] != exp["access_min"] or f["access"]["max"] != exp["access_max"]:
        print("FAIL: access sizes %s, expected min %d max %d" % (f["access"], exp["access_min"], exp["access_max"])); fail = 1
    else:
        print("ok: access sizes min %d max %d, histogram %s" % (exp["access_min"], exp["access_max"], f["access"]["hist"]))
    ph = io["phases"]
    if len(ph) != exp["phases"] or not io["totals"]["phases_merged"]:
        print("FAIL: %d phases detected (merged %s), expected %d" % (len(ph), io["totals"]["phases_merged"], exp["phases"]))
        return 1
    print("ok: %d I/O phases detected" % len(ph))
    pw, pr = exp["written"] // exp["phases"], exp["read"] // exp["phases"]
    for p, (t0, t1) in zip(ph, marks):
        if p["bytes_written"] != pw or p["bytes_read"] != pr:
            print("FAIL: phase %d bytes %d/%d, expected %d/%d" % (p["index"], p["bytes_written"], p["bytes_read"], pw, pr)); fail = 1
        # the detected phase lies within rank 0's own marks; the slack covers clock reads
        # and the other ranks entering the phase a little before rank 0 (oversubscribed)
        if p["start_epoch"] < t0 - 0.05 or p["end_epoch"] > t1 + 0.05:
            print("FAIL: phase %d [%.3f, %.3f] outside the program's [%.3f, %.3f]" % (p["index"], p["start_epoch"], p["end_epoch"], t0, t1)); fail = 1
    if not fail:
        print("ok: every phase has exactly %d bytes written, %d read, within the program's own timing" % (pw, pr))
    return fail


def disjoint(reps):
    ivs = []
    for i, r in enumerate(reps):
        io = load(r).get("io") or {}
        for p in io.get("phases", []):
            ivs.append((p["start_epoch"], p["end_epoch"], i, p["delay_s"]))
    ivs.sort()
    fail = 0
    for a, b in zip(ivs, ivs[1:]):
        if a[2] != b[2] and b[0] < a[1]:
            print("FAIL: job %d phase [%.3f, %.3f] overlaps job %d phase [%.3f, %.3f]" % (a[2], a[0], a[1], b[2], b[0], b[1]))
            fail = 1
    delays = sum(x[3] for x in ivs)
    print("%s: %d phases of %d jobs, none overlapping; total token delay %.3f s" % ("FAIL" if fail else "ok", len(ivs), len(reps), delays))
    return fail


if __name__ == "__main__":
    if sys.argv[1] == "accounting":
        sys.exit(accounting(sys.argv[2], sys.argv[3]))
    if sys.argv[1] == "disjoint":
        sys.exit(disjoint(sys.argv[2:]))
    sys.exit(2)
