#!/bin/bash
# tests/report/sampled.sh -- sampled timing (DUCTILE_TIME_SAMPLE=N, issue 25
# item 7).  With 1 call in 3 timed, the MPI test programs run with identical
# output and their report's calls and bytes are exactly what each rank counted
# itself (tests/run-mpi-test.sh, check_report.py): point-to-point,
# nonblocking collectives (bytes counted at completion), MPI-IO (always
# timed), four threads calling under MPI_THREAD_MULTIPLE, and the main loop
# is still detected (tests/mpi/iter); the report's
# "timing" section and the summary say the times are estimated, with the rate
# (check_report.py --time-sample), and so does the HTML page (ductile-report).
# Then bench/overhead runs once, small, and
# must print its every-call and sampled rows and the time-stamp floor (its
# numbers are not judged: the machine is shared).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
fail=0
for prog in p2p nbcoll io threads; do
    if ! DUCTILE_TIME_SAMPLE=3 bash "$here/run-mpi-test.sh" "tests/mpi/$prog" 4; then
        echo "FAIL: tests/mpi/$prog with DUCTILE_TIME_SAMPLE=3"
        fail=1
    fi
done
# the iteration detector still finds the main loop (it reads the loop head's time itself)
if ! DUCTILE_TIME_SAMPLE=3 bash "$here/run-mpi-test.sh" --iterations 49 50 tests/mpi/iter 4; then
    echo "FAIL: tests/mpi/iter with DUCTILE_TIME_SAMPLE=3"
    fail=1
fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# the HTML page of a sampled run says its times are estimated (matplotlib draws
# its charts: skipped where the venv has none)
# shellcheck disable=SC2086
if ! timeout -k 10 300 $MPIEXEC -n 2 env LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" \
    DUCTILE_REPORT="$tmp/r.json" DUCTILE_TIME_SAMPLE=4 tests/mpi/coll >"$tmp/coll.out" 2>"$tmp/coll.err" </dev/null; then
    echo "FAIL: tests/mpi/coll with DUCTILE_TIME_SAMPLE=4:"; tail -20 "$tmp/coll.err"; fail=1
elif ! "$PYTHON" -c "import matplotlib" 2>/dev/null; then
    echo "note: no matplotlib for $PYTHON: the HTML page is not checked"
elif ! "$PYTHON" tools/ductile-report -q "$tmp/r.json" -o "$tmp/r.html"; then
    echo "FAIL: ductile-report of a sampled run"; fail=1
elif ! grep -q "ESTIMATED: 1 call in 4 timed at random" "$tmp/r.html"; then
    echo "FAIL: the HTML page of a sampled run does not say its times are estimated"; fail=1
else
    echo "the HTML page says: $(grep -o 'ESTIMATED: 1 call in 4 timed at random[^<]*' "$tmp/r.html" | head -1)"
fi
# 1 in 1000 timed: a few slow calls multiplied must not exceed a process's run (its calls one at a
# time); under MPI_THREAD_MULTIPLE the loop detector says it is off (not "detecting")
# shellcheck disable=SC2086
timeout -k 10 300 $MPIEXEC -n 2 env LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" \
    DUCTILE_REPORT="$tmp/b.json" DUCTILE_TIME_SAMPLE=1000 tests/mpi/coll >/dev/null 2>"$tmp/b.err" </dev/null ||
    { echo "FAIL: tests/mpi/coll with DUCTILE_TIME_SAMPLE=1000"; tail -5 "$tmp/b.err"; fail=1; }
# shellcheck disable=SC2086
timeout -k 10 300 $MPIEXEC -n 2 env LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" \
    DUCTILE_REPORT="$tmp/t.json" tests/mpi/threads >/dev/null 2>"$tmp/t.err" </dev/null ||
    { echo "FAIL: tests/mpi/threads"; tail -5 "$tmp/t.err"; fail=1; }
"$PYTHON" - "$tmp/b.json" "$tmp/t.json" <<'PY' || fail=1
import json, sys
b = json.load(open(sys.argv[1]))
for r in b["ranks"]:
    if r["mpi_time_s"] > r["wall_time_s"] + 1e-9:
        sys.exit("FAIL: rank %d: estimated MPI time %.3f s > its run %.3f s" % (r["rank"], r["mpi_time_s"], r["wall_time_s"]))
print("1 in 1000 timed: MPI time within each rank's run (%s)" % ", ".join("%.3f/%.3f s" % (r["mpi_time_s"], r["wall_time_s"]) for r in b["ranks"]))
t = json.load(open(sys.argv[2]))
if t["iterations"]["state"] != "off":
    sys.exit("FAIL: MPI_THREAD_MULTIPLE: the detector's state is %r, not 'off'" % t["iterations"]["state"])
PY
# shellcheck disable=SC2086
if ! timeout -k 10 300 $MPIEXEC -n 2 env LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" \
    DUCTILE_REPORT=none DUCTILE_SUMMARY=0 bench/overhead 0.01 8 >"$tmp/out" 2>"$tmp/err" </dev/null; then
    echo "FAIL: bench/overhead exited with an error:"; tail -20 "$tmp/err"; fail=1
fi
cat "$tmp/out"
for want in "libductile.so loaded" "^MPI_Comm_compare, every call " "^MPI_Comm_compare, 1 in 8 " \
    "^MPI_Allreduce (1 int), 1 in 8 " "^# the floor: one time-stamp read" "1 in 8 +[-0-9.]* ns"; do
    if ! grep -q -- "$want" "$tmp/out"; then
        echo "FAIL: bench/overhead printed no line matching '$want'"; fail=1
    fi
done
[ $fail -eq 0 ] && echo "PASS: sampled timing: exact counts and bytes, estimated times said so; bench/overhead runs"
exit $fail
