#!/usr/bin/env python3
"""tests/conformance/outcomes.py -- per-test outcomes of a unittest run, and
the comparison of a run without the shim with a run with it.

  outcomes.py parse LOGDIR RUNSTATUS >OUT.tsv
      LOGDIR holds one file per rank (rank.0, rank.1, ...: the stderr of
      `python test/main.py -v`, unittest's verbose output).  RUNSTATUS is how
      the run ended: "exit" (the processes exited) or "timeout" (killed).
      Prints one line per test: "ID<TAB>OUTCOME", OUTCOME the worst over the
      ranks: ok, skip, xfail, fail, error, uxpass (unexpected success), hang
      (started, no outcome, run timed out), crash (started, no outcome, the
      processes exited).  ID is module.Class.method as in unittest.

  outcomes.py compare MPI EXCEPTIONS PLAIN.tsv PRELOAD.tsv NPROCS
      Every test that is "ok" in PLAIN.tsv must be "ok" in PRELOAD.tsv (a test
      absent from PRELOAD.tsv did not run with the shim: that fails too),
      unless EXCEPTIONS lists it for this MPI and process count.  Prints the
      differences; exit status 1 if one is not excepted.  An exception that
      no longer applies (the test passes with the shim) is reported as stale,
      without failing.

  outcomes.py excluded MPI EXCEPTIONS NPROCS
      Prints the -x patterns of main.py for the excepted tests marked "hang"
      or "crash" (they are not run with the shim: a hang costs a timeout, a
      crash ends the run, which is then resumed after it).

EXCEPTIONS file: one entry per line, "#" starts a comment:
    MPI  NPROCS  TEST_ID  OUTCOME  reason...
MPI is openmpi or mpich (or *), NPROCS a number (or *), TEST_ID the exact
unittest id, OUTCOME what the shim makes of it (fail, error, hang, crash,
skip): "hang" and "crash" entries are left out of the run with the shim.
"""
import re
import sys
from pathlib import Path

# worse outcomes later; "ok" and "xfail" (expected failure) are passes
SEVERITY = ["ok", "xfail", "skip", "uxpass", "fail", "error", "crash", "hang"]
PASSES = ("ok", "xfail")

START = re.compile(r"^(\w+) \(([\w.]+)\)")
RESULTS = [
    (re.compile(r"\.\.\. ok$|^ok$"), "ok"),
    (re.compile(r"\.\.\. skipped\b|^skipped\b"), "skip"),
    (re.compile(r"\.\.\. expected failure$|^expected failure$"), "xfail"),
    (re.compile(r"\.\.\. unexpected success$|^unexpected success$"), "uxpass"),
    (re.compile(r"\.\.\. FAIL$|^FAIL$"), "fail"),
    (re.compile(r"\.\.\. ERROR$|^ERROR$"), "error"),
]


def worse(a, b):
    if a is None:
        return b
    return a if SEVERITY.index(a) >= SEVERITY.index(b) else b


def parse_rank(path, runstatus):
    """{id: outcome} of one rank's verbose unittest output."""
    out = {}
    current = None
    text = path.read_text(errors="replace")
    for line in text.splitlines():
        m = START.match(line)
        if m:
            name, qual = m.group(1), m.group(2)
            # Python >= 3.11 prints module.Class.method, older module.Class
            tid = qual if qual.endswith("." + name) else f"{qual}.{name}"
            if current is not None and current not in out:
                # a new test began without an outcome line for the last one
                out[current] = "crash"
            current = tid
            rest = line[m.end():]
        else:
            rest = line
        if current is None or current in out:
            continue
        for rx, res in RESULTS:
            if rx.search(rest.rstrip()):
                out[current] = res
                break
        else:
            # a subtest failure is printed as "... FAIL" / "ERROR" only at
            # the end; unittest's summary lines "FAIL: test (id)" come after
            continue
    if current is not None and current not in out:
        out[current] = "hang" if runstatus == "timeout" else "crash"
    # failures recorded in the summary (FAIL: / ERROR: lines), e.g. subtests
    for line in text.splitlines():
        m = re.match(r"^(FAIL|ERROR): (\w+) \(([\w.]+)\)", line)
        if m:
            name, qual = m.group(2), m.group(3)
            tid = qual if qual.endswith("." + name) else f"{qual}.{name}"
            out[tid] = worse(out.get(tid), m.group(1).lower())
    return out


def parse(logdir, runstatus):
    merged = {}
    for f in sorted(Path(logdir).glob("rank.*")):
        for tid, res in parse_rank(f, runstatus).items():
            merged[tid] = worse(merged.get(tid), res)
    return merged


def read_tsv(path):
    res = {}
    for line in Path(path).read_text().splitlines():
        if line.strip():
            tid, outcome = line.split("\t")[:2]
            res[tid] = outcome
    return res


def read_exceptions(path, mpi, nprocs):
    """{test id: (outcome, reason)} for this MPI and process count."""
    exc = {}
    for n, raw in enumerate(Path(path).read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split(None, 4)
        if len(parts) < 5:
            sys.exit(f"{path}:{n}: need MPI NPROCS TEST_ID OUTCOME REASON: {raw!r}")
        emp, enp, tid, outcome, reason = parts
        if outcome not in SEVERITY or outcome in PASSES:
            sys.exit(f"{path}:{n}: bad OUTCOME {outcome!r}")
        if emp not in ("*", mpi) or enp not in ("*", str(nprocs)):
            continue
        exc[tid] = (outcome, reason)
    return exc


def compare(mpi, exceptions, plain_tsv, preload_tsv, nprocs):
    plain = read_tsv(plain_tsv)
    preload = read_tsv(preload_tsv)
    exc = read_exceptions(exceptions, mpi, nprocs)
    bad = []
    excepted = []
    stale = []
    for tid, res in sorted(plain.items()):
        if res not in PASSES:
            continue
        got = preload.get(tid, "notrun")
        if got in PASSES:
            if tid in exc:
                stale.append(tid)
            continue
        if tid in exc:
            excepted.append((tid, got, exc[tid][1]))
        else:
            bad.append((tid, got))
    npass = sum(1 for r in plain.values() if r in PASSES)
    print(f"  -n {nprocs}: {len(plain)} tests, {npass} pass without the shim; "
          f"with it: {npass - len(bad) - len(excepted)} pass, "
          f"{len(excepted)} excepted, {len(bad)} new failures")
    for tid, got in bad:
        print(f"  NEW FAILURE -n {nprocs}: {tid}: ok without the shim, {got} with it")
    by_reason = {}
    for tid, got, reason in excepted:
        by_reason.setdefault(reason, []).append((tid, got))
    for reason, tests in sorted(by_reason.items()):
        outs = sorted({"left out" if got == "notrun" else got for _, got in tests})
        print(f"  excepted    -n {nprocs}: {len(tests)} tests ({', '.join(outs)}): {reason}")
    for tid in stale:
        print(f"  stale exception -n {nprocs}: {tid} passes with the shim now; "
              f"remove it from {exceptions}")
    return 1 if bad else 0


def excluded(mpi, exceptions, nprocs):
    for tid, (outcome, _) in sorted(read_exceptions(exceptions, mpi, nprocs).items()):
        if outcome in ("hang", "crash"):
            # main.py wraps a pattern without "*" in "*...*"; a leading "*"
            # keeps it anchored at the end (no testFoo matching testFooBar)
            print(f"*{tid}")


def main(argv):
    if len(argv) >= 3 and argv[0] == "parse":
        for tid, res in sorted(parse(argv[1], argv[2]).items()):
            print(f"{tid}\t{res}")
        return 0
    if len(argv) == 6 and argv[0] == "compare":
        return compare(*argv[1:])
    if len(argv) == 4 and argv[0] == "excluded":
        excluded(*argv[1:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
