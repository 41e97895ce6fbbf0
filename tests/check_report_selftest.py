#!/usr/bin/env python3
"""Self-test for tests/check_report.py (no MPI needed).

Part 1 feeds check_report.py fake reports and expectation files, one passing
case and many failing ones, and checks the exit status and that the failure
output names the offending rank / function.  A checker that cannot fail is a
defect.

Part 2 lints the MPI test programs in tests/mpi: every MPI call in a C
program must go through the CALL() macro of expect.h (so it is recorded in
the expectation file), except the final MPI_Finalize(), which must be
preceded by expect_add("MPI_Finalize", ...).  The local headers (*.h, e.g.
testlib.h with its test_finish()) are linted the same way and count as part
of every program that includes them.  In the Fortran programs and their
include files (*.f90, *.inc) every "call mpi_xxx(" must be preceded, since
the previous MPI call, by a matching "call expect('MPI_Xxx', ...)", except
in a helper procedure whose call line says "expected by the caller" (the
caller records the expectation before calling the helper).

Exit status 0 if everything behaves, 1 otherwise.
"""

import copy
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKER = os.path.join(HERE, "check_report.py")
MPIDIR = os.path.join(HERE, "mpi")

failures = []


def entry(calls, sent, recv, t=0.001):
    return {"calls": calls, "time_s": t, "bytes_sent": sent, "bytes_recv": recv}


BASE_REPORT = {
    "nprocs": 2,
    "ranks": [
        {"rank": 0, "functions": {
            "MPI_Init": entry(1, 0, 0),
            "MPI_Comm_rank": entry(1, 0, 0, 0.0),
            "MPI_Send": entry(10, 400, 0),
            "MPI_Bcast": entry(2, 80, 0),
            "MPI_Finalize": entry(1, 0, 0),
        }},
        {"rank": 1, "functions": {
            "MPI_Init": entry(1, 0, 0),
            "MPI_Comm_rank": entry(1, 0, 0),
            "MPI_Recv": entry(10, 0, 480),
            "MPI_Bcast": entry(2, 0, 80),
            "MPI_Finalize": entry(1, 0, 0),
        }},
    ],
    "iterations": {"detected": True, "count": 50, "period_calls": 3,
                   "head": "MPI_Allreduce", "time_total_s": 0.5, "time_mean_s": 0.01,
                   "time_min_s": 0.009, "time_max_s": 0.011,
                   "recent_times_s": [0.009, 0.011] * 25,
                   "timeline": {"iterations_per_bucket": 16,
                                "columns": ["start_s", "first", "count", "mean_s", "min_s", "max_s"],
                                "buckets": [[0.1, 0, 16, 0.01, 0.009, 0.011], [0.3, 16, 16, 0.01, 0.009, 0.011],
                                            [0.5, 32, 16, 0.01, 0.009, 0.011], [0.7, 48, 2, 0.01, 0.009, 0.011]]}},
}

# deliberately in another order than the report, to show order does not matter
BASE_EXPECT = {
    0: "MPI_Init 1 0 0\nMPI_Comm_rank 1 0 0\nMPI_Bcast 2 80 0\nMPI_Send 10 400 0\n"
       "MPI_Finalize 1 0 0\n",
    1: "MPI_Finalize 1 0 0\nMPI_Init 1 0 0\nMPI_Comm_rank 1 0 0\nMPI_Recv 10 0 480\n"
       "MPI_Bcast 2 0 80\n",
}


def run_case(name, report, expect, args=(), want_rc=0, want_text=(), raw_report=None,
             no_prefix=False):
    with tempfile.TemporaryDirectory(prefix="ductile-selftest-") as d:
        rp = os.path.join(d, "report.json")
        with open(rp, "w") as f:
            if raw_report is not None:
                f.write(raw_report)
            else:
                json.dump(report, f)
        prefix = os.path.join(d, "expect")
        for r, text in expect.items():
            with open("%s.%d" % (prefix, r), "w") as f:
                f.write(text)
        cmd = [sys.executable, CHECKER, rp] + ([] if no_prefix else [prefix]) + list(args)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=60)
        out = p.stdout
        ok = p.returncode == want_rc and all(t in out for t in want_text)
        status = "ok  " if ok else "FAIL"
        print("%s %-45s rc=%d (want %d)" % (status, name, p.returncode, want_rc))
        if not ok:
            failures.append(name)
            print("     wanted text: %r" % (list(want_text),))
            print("     " + out.replace("\n", "\n     "))


def mod(fn):
    rep = copy.deepcopy(BASE_REPORT)
    fn(rep)
    return rep


def checker_cases():
    E = BASE_EXPECT
    run_case("exact match passes", BASE_REPORT, E, want_rc=0, want_text=["OK"])
    run_case("--nprocs matching passes", BASE_REPORT, E, ["--nprocs", "2"], 0)
    run_case("--iterations in range passes", BASE_REPORT, E, ["--iterations", "49", "50"], 0)
    run_case("structure only (no prefix) passes", BASE_REPORT, {}, ["--nprocs", "2"], 0,
             no_prefix=True)
    run_case("duplicate expectation lines add up",
             BASE_REPORT, {0: E[0].replace("MPI_Send 10 400 0\n",
                                           "MPI_Send 4 160 0\nMPI_Send 6 240 0\n"),
                           1: E[1]}, want_rc=0)
    run_case("'0 0 0' expectation means absent",
             BASE_REPORT, {0: E[0] + "MPI_Probe 0 0 0\n", 1: E[1]}, want_rc=0)

    def setf(rank, fn, field, val):
        return lambda rep: rep["ranks"][rank]["functions"][fn].__setitem__(field, val)

    run_case("calls differ", mod(setf(0, "MPI_Send", "calls", 11)), E, want_rc=1,
             want_text=["rank 0: MPI_Send", "calls +1"])
    run_case("bytes_sent differ", mod(setf(0, "MPI_Bcast", "bytes_sent", 88)), E, want_rc=1,
             want_text=["rank 0: MPI_Bcast", "bytes_sent +8"])
    run_case("bytes_recv differ", mod(setf(1, "MPI_Recv", "bytes_recv", 400)), E, want_rc=1,
             want_text=["rank 1: MPI_Recv", "bytes_recv -80"])
    run_case("extra function in report",
             mod(lambda rep: rep["ranks"][1]["functions"].__setitem__("MPI_Wtime",
                                                                    entry(3, 0, 0))),
             E, want_rc=1, want_text=["rank 1: MPI_Wtime", "not expected"])
    run_case("function missing from report",
             mod(lambda rep: rep["ranks"][0]["functions"].pop("MPI_Comm_rank")),
             E, want_rc=1, want_text=["rank 0: MPI_Comm_rank", "missing from the report"])
    run_case("expected function absent for one rank only",
             BASE_REPORT, {0: E[0], 1: E[1] + "MPI_Barrier 1 0 0\n"}, want_rc=1,
             want_text=["rank 1: MPI_Barrier"])
    run_case("missing expectation file", BASE_REPORT, {0: E[0]}, want_rc=1,
             want_text=["expect.1 is missing"])
    run_case("extra expectation file", BASE_REPORT, {0: E[0], 1: E[1], 2: E[1]}, want_rc=1,
             want_text=["expect.2 exists"])
    run_case("empty expectation file", BASE_REPORT, {0: E[0], 1: ""}, want_rc=1,
             want_text=["expect.1 is empty"])
    run_case("malformed expectation line", BASE_REPORT,
             {0: E[0] + "MPI_Send ten 0 0\n", 1: E[1]}, want_rc=1, want_text=["malformed"])
    run_case("nprocs disagrees with ranks", mod(lambda rep: rep.__setitem__("nprocs", 3)),
             E, want_rc=1, want_text=["nprocs is 3"])
    run_case("--nprocs mismatch", BASE_REPORT, E, ["--nprocs", "4"], want_rc=1,
             want_text=["expected 4"])
    run_case("ranks out of order",
             mod(lambda rep: rep["ranks"].reverse()), E, want_rc=1,
             want_text=["ranks[0] has \"rank\": 1"])
    run_case("invalid JSON", None, E, want_rc=1, raw_report='{"nprocs": 2, "ranks": [',
             want_text=["cannot load report"])
    run_case("truncated report (one rank)",
             mod(lambda rep: rep["ranks"].pop()), E, want_rc=1,
             want_text=["'ranks' has 1 entries"])
    run_case("negative time_s", mod(setf(0, "MPI_Init", "time_s", -1.0)), E, want_rc=1,
             want_text=["time_s"])
    run_case("missing time_s",
             mod(lambda rep: rep["ranks"][0]["functions"]["MPI_Init"].pop("time_s")), E,
             want_rc=1, want_text=["time_s"])
    run_case("boolean calls", mod(setf(0, "MPI_Init", "calls", True)), E, want_rc=1,
             want_text=["'calls' must be"])
    run_case("zero calls listed", mod(setf(1, "MPI_Init", "calls", 0)), E, want_rc=1,
             want_text=["'calls' must be"])
    run_case("string bytes", mod(setf(1, "MPI_Recv", "bytes_recv", "480")), E, want_rc=1,
             want_text=["bytes_recv"])
    run_case("iterations object missing", mod(lambda rep: rep.pop("iterations")), E,
             want_rc=1, want_text=["'iterations' missing"])
    run_case("timeline missing", mod(lambda rep: rep["iterations"].pop("timeline")), E,
             want_rc=1, want_text=["timeline missing"])
    run_case("timeline bucket not contiguous",
             mod(lambda rep: rep["iterations"]["timeline"]["buckets"][2].__setitem__(1, 33)), E,
             want_rc=1, want_text=["bucket 2"])
    run_case("timeline short of the count",
             mod(lambda rep: rep["iterations"]["timeline"]["buckets"].pop()), E,
             want_rc=1, want_text=["holds 48 iterations"])
    run_case("--iterations count too low", BASE_REPORT, E, ["--iterations", "51", "60"],
             want_rc=1, want_text=["count=50 not in [51, 60]"])
    run_case("--iterations count too high", BASE_REPORT, E, ["--iterations", "10", "49"],
             want_rc=1, want_text=["count=50 not in [10, 49]"])
    def seti(field, val):
        return lambda rep: rep["iterations"].__setitem__(field, val)

    # the report's loop figures (issue 22, item 8): a loop whose head was the first timed call
    run_case("negative time_min_s (the tick origin)", mod(seti("time_min_s", -7543547367.6)), E,
             want_rc=1, want_text=["time_min_s must be a positive number"])
    run_case("negative mean", mod(seti("time_mean_s", -150870947.3)), E, want_rc=1,
             want_text=["time_mean_s must be a positive number"])
    run_case("mean x count != total", mod(seti("time_mean_s", 0.0105)), E, want_rc=1,
             want_text=["x count 50 != total"])
    run_case("recent times do not add up",
             mod(seti("recent_times_s", [0.009, 0.011] * 24 + [0.01, 0.011])), E, want_rc=1,
             want_text=["add up to"])
    run_case("--loop consistent passes", BASE_REPORT, E, ["--loop", "51", "0.512"], 0,
             want_text=["loop: 50 iterations add up to 0.5000 s"])
    run_case("--loop: loop much longer than the sum", BASE_REPORT, E, ["--loop", "51", "0.9"],
             want_rc=1, want_text=["add up to 0.500000 s, the loop took 0.900000 s"])
    run_case("--loop: sum longer than the loop", BASE_REPORT, E, ["--loop", "51", "0.4"],
             want_rc=1, want_text=["the loop took 0.400000 s"])
    run_case("--loop: too few iterations counted", BASE_REPORT, E, ["--loop", "60", "0.6"],
             want_rc=1, want_text=["count=50, expected 57..59"])
    run_case("--iterations but not detected",
             mod(lambda rep: rep["iterations"].__setitem__("detected", False)), E,
             ["--iterations", "49", "50"], want_rc=1, want_text=["detected=False"])


def c_code(text):
    """text with comments and string literals blanked (line numbers kept)"""
    code = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    code = re.sub(r"//[^\n]*", "", code)
    return re.sub(r'"(\\.|[^"\\\n])*"', '""', code)


def lint_c_file(fname, call_re):
    """Flag MPI calls outside CALL(); return (text, number of MPI_Finalize() calls)."""
    with open(os.path.join(MPIDIR, fname)) as f:
        text = f.read()
    finalizes = 0
    for n, line in enumerate(c_code(text).split("\n"), 1):
        for m in call_re.finditer(line):
            fn = m.group(1)
            if fn == "MPI_Finalize":
                finalizes += 1
                continue
            failures.append("lint: %s:%d: %s() called without CALL()" % (fname, n, fn))
            print("FAIL lint %s:%d: %s() called without CALL()" % (fname, n, fn))
    return text, finalizes


def lint_sources():
    call_re = re.compile(r"\b(P?MPI_[A-Z][A-Za-z0-9_]*)\s*\(")
    inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    hfiles = sorted(f for f in os.listdir(MPIDIR) if f.endswith(".h"))
    headers = {}
    for fname in hfiles:
        text, finalizes = lint_c_file(fname, call_re)
        headers[fname] = (text, finalizes)
        if finalizes > 1 or (finalizes == 1 and (
                'expect_add("MPI_Finalize", 1, 0, 0);' not in text or "expect_write(" not in text)):
            failures.append("lint: %s: an MPI_Finalize() in a header must be the only one and "
                            "come after expect_add(\"MPI_Finalize\", 1, 0, 0) and expect_write()"
                            % fname)
            print("FAIL lint %s: MPI_Finalize/expect_write pattern" % fname)
    cfiles = sorted(f for f in os.listdir(MPIDIR) if f.endswith(".c"))
    if not cfiles:
        failures.append("lint: no C test programs found in %s" % MPIDIR)
    for fname in cfiles:
        text, finalizes = lint_c_file(fname, call_re)
        own_finalizes = finalizes
        # the local headers it includes (directly or through another header)
        seen, todo, alltext = set(), inc_re.findall(text), text
        while todo:
            h = todo.pop()
            if h in seen or h not in headers:
                continue
            seen.add(h)
            alltext += headers[h][0]
            finalizes += headers[h][1]
            todo += inc_re.findall(headers[h][0])
        if finalizes != 1 or 'expect_add("MPI_Finalize", 1, 0, 0);' not in alltext \
                or "expect_write(" not in alltext \
                or (own_finalizes == 0 and "test_finish(" not in c_code(text)):
            failures.append("lint: %s: needs exactly one MPI_Finalize() after "
                            "expect_add(\"MPI_Finalize\", 1, 0, 0) and expect_write() "
                            "(its own, or test_finish() of testlib.h)" % fname)
            print("FAIL lint %s: MPI_Finalize/expect_write pattern" % fname)
        if "CALL(MPI_Init" not in text:
            failures.append("lint: %s: MPI_Init/MPI_Init_thread not recorded" % fname)
            print("FAIL lint %s: no CALL(MPI_Init...)" % fname)
    ffiles = sorted(f for f in os.listdir(MPIDIR) if f.endswith((".f90", ".inc")))
    fcall = re.compile(r"^\s*call\s+(mpi_\w+)\s*\(", re.I)
    fexp = re.compile(r"^\s*call\s+expect\s*\(\s*'(MPI_\w+)'", re.I)
    for fname in ffiles:
        with open(os.path.join(MPIDIR, fname)) as f:
            raw = f.read().split("\n")
        # a call in a helper procedure whose caller records the expectation
        # says so in a comment: "expected by the caller"
        lines = ["" if "expected by the caller" in l else l.split("!")[0] for l in raw]
        pending = None  # name of the last expect() since the previous MPI call
        for n, line in enumerate(lines, 1):
            pm = fexp.match(line)
            if pm:
                pending = pm.group(1)
                continue
            m = fcall.match(line)
            if m:
                if pending is None or pending.lower() != m.group(1).lower():
                    failures.append("lint: %s:%d: %s not preceded by "
                                    "call expect('%s', ...)" % (fname, n, m.group(1),
                                                              m.group(1).upper()))
                    print("FAIL lint %s:%d: %s without matching expect()" % (fname, n,
                                                                            m.group(1)))
                pending = None
    print("lint: %d C test programs, %d C headers and %d Fortran files checked"
          % (len(cfiles), len(hfiles), len(ffiles)))


def main():
    checker_cases()
    lint_sources()
    if failures:
        print("check_report_selftest: FAIL (%d)" % len(failures))
        return 1
    print("check_report_selftest: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
