#!/usr/bin/env bash
# run-mpi-test.sh -- run one MPI test program with and without Ductile and
# check that (1) its stdout is byte-for-byte identical and (2) the report's
# per-rank counts equal the program's own expectation files.
#
# Usage:
#   run-mpi-test.sh [--iterations MIN MAX] PROGRAM NPROCS [EXTRA_ARGS...]
#
#   PROGRAM      the test executable (e.g. tests/mpi/coll); EXTRA_ARGS are
#                passed to it.
#   NPROCS       number of ranks.
#   --iterations MIN MAX
#                also require the report's loop detection to find between MIN
#                and MAX iterations (passed to check_report.py).  For
#                tests/mpi/iter (50 iterations by default) use
#                --iterations 49 50: depending on where the detected period
#                starts, the first or last iteration may not count.
#
# Environment (none of it in the DUCTILE_ namespace: libductile.so rejects
# DUCTILE_* variables it does not know, so the test's own variables live
# outside it; the DUCTILE_ spellings in brackets are accepted for the caller
# but never passed on to the MPI processes):
#   MPIEXEC            launcher prefix, word-split, "-n NPROCS" is appended
#                      (default "mpiexec"), e.g.
#                      "mpiexec --oversubscribe --allow-run-as-root" (Open MPI as root)
#                      "/tmp/mp/pfx/bin/mpiexec" (MPICH)
#   LIBDUCTILE         path to libductile.so [DUCTILE_LIBRARY]
#   TEST_ITERATIONS    "MIN MAX": same as --iterations [DUCTILE_TEST_ITERATIONS]
#   TEST_TIMEOUT       seconds allowed for each mpiexec run (default 120)
#                      [DUCTILE_TEST_TIMEOUT]
#   TEST_KEEP=1        keep the temporary directory (its path is printed)
#   SANITIZER_PRELOAD  optional library preloaded before libductile.so (the
#                      ASan runtime for a sanitizer build)
#   PYTHON             Python 3 interpreter (default python3)
#   DUCTILE_TIME_SAMPLE  passed on (sampled timing): the report and the summary
#                      must then say the times are estimated, counts stay exact
#
# What it does: in a fresh temporary directory, runs
#   $MPIEXEC -n NPROCS env TEST_EXPECT_PREFIX=<tmp>/plain/expect PROGRAM ARGS
#   $MPIEXEC -n NPROCS env LD_PRELOAD=$LIBDUCTILE DUCTILE_REPORT=<tmp>/report.json \
#                          TEST_EXPECT_PREFIX=<tmp>/preload/expect PROGRAM ARGS
# (the variables are set through env(1) so that only the MPI processes, not
# the launcher, get them; TMPDIR is set to a scratch directory inside <tmp>),
# each under `timeout`, then checks: both exit 0; stdout non-empty and
# identical; the expectation files of both runs identical; the report exists
# and check_report.py REPORT <tmp>/preload/expect --nprocs NPROCS passes.
# TEST_EXPECT_PREFIX makes each rank write its expectation file
# (tests/mpi/expect.h); it must not change stdout.
#
# Exit status: 0 pass, 1 fail, 77 skip (PROGRAM does not exist, e.g. a
# Fortran test that was not built).

set -u

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
iter_args=()

if [ "${1:-}" = "--iterations" ]; then
    if [ $# -lt 3 ]; then
        echo "run-mpi-test.sh: --iterations needs MIN and MAX" >&2
        exit 1
    fi
    iter_args=(--iterations "$2" "$3")
    shift 3
elif [ -n "${TEST_ITERATIONS:-${DUCTILE_TEST_ITERATIONS:-}}" ]; then
    # shellcheck disable=SC2206
    iter_args=(--iterations ${TEST_ITERATIONS:-${DUCTILE_TEST_ITERATIONS:-}})
fi

if [ $# -lt 2 ]; then
    echo "usage: run-mpi-test.sh [--iterations MIN MAX] PROGRAM NPROCS [EXTRA_ARGS...]" >&2
    exit 1
fi
prog=$1
nprocs=$2
shift 2

case $nprocs in
    ''|*[!0-9]*) echo "run-mpi-test.sh: NPROCS must be a number: $nprocs" >&2; exit 1 ;;
esac
if [ ${#iter_args[@]} -ne 0 ] && [ ${#iter_args[@]} -ne 3 ]; then
    echo "run-mpi-test.sh: TEST_ITERATIONS must be \"MIN MAX\"" >&2
    exit 1
fi

name=$(basename "$prog")
if [ ! -e "$prog" ]; then
    echo "SKIP: $name: program $prog does not exist (not built)"
    exit 77
fi
if [ ! -x "$prog" ]; then
    echo "FAIL: $name: $prog is not executable"
    exit 1
fi
case $prog in
    */*) ;;
    *) prog=./$prog ;;
esac
prog_abs=$(cd "$(dirname "$prog")" && pwd)/$(basename "$prog")

lib=${LIBDUCTILE:-${DUCTILE_LIBRARY:-}}
if [ -z "$lib" ]; then
    echo "FAIL: $name: LIBDUCTILE is not set"
    exit 1
fi
if [ ! -r "$lib" ]; then
    echo "FAIL: $name: LIBDUCTILE=$lib does not exist"
    exit 1
fi
lib=$(abs_path "$lib")

mpiexec_cmd=${MPIEXEC:-mpiexec}
timeout_s=${TEST_TIMEOUT:-${DUCTILE_TEST_TIMEOUT:-120}}
python=${PYTHON:-python3}
set_preload "$lib"

make_tmpdir
mkdir -p "$tmp/plain" "$tmp/preload" "$tmp/scratch"

# variables of the caller's environment that must not reach the MPI processes
set_unset_args

# run LABEL VAR=VALUE...: run the program under the launcher with the given
# environment for the MPI processes; stdout/stderr to $tmp/LABEL.{out,err}
run() {
    local label=$1
    shift
    local rc
    # shellcheck disable=SC2086
    timeout -k 10 "$timeout_s" $mpiexec_cmd -n "$nprocs" \
        env "${unset_args[@]}" TMPDIR="$tmp/scratch" "$@" "$prog_abs" ${extra[@]+"${extra[@]}"} \
        >"$tmp/$label.out" 2>"$tmp/$label.err" </dev/null
    rc=$?
    # LeakSanitizer's own tracer sometimes crashes at exit (google/sanitizers#1353:
    # "Tracer caught signal 11", no leak report): a defect of the tool, not of
    # the program; such a run is repeated once, any other failure is not
    if [ $rc -ne 0 ] && grep -q "LeakSanitizer has encountered a fatal error" "$tmp/$label.err" &&
        grep -q "^Tracer caught signal" "$tmp/$label.err"; then
        echo "note: $label run: LeakSanitizer's tracer crashed at exit; running it again once"
        # shellcheck disable=SC2086
        timeout -k 10 "$timeout_s" $mpiexec_cmd -n "$nprocs" \
            env "${unset_args[@]}" TMPDIR="$tmp/scratch" "$@" "$prog_abs" ${extra[@]+"${extra[@]}"} \
            >"$tmp/$label.out" 2>"$tmp/$label.err" </dev/null
        rc=$?
    fi
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        fail "$label run timed out after ${timeout_s}s"
    elif [ $rc -ne 0 ]; then
        fail "$label run exited with status $rc"
    fi
    if [ $rc -ne 0 ]; then
        echo "---- $label stderr (last 40 lines):"
        tail -n 40 "$tmp/$label.err"
        echo "---- $label stdout (last 20 lines):"
        tail -n 20 "$tmp/$label.out"
        echo "----"
    fi
    return $rc
}

extra=("$@")
echo "$name: $nprocs ranks, launcher: $mpiexec_cmd, library: $lib"

run plain TEST_EXPECT_PREFIX="$tmp/plain/expect"
plain_rc=$?
run preload LD_PRELOAD="$preload" DUCTILE_REPORT="$tmp/report.json" \
    TEST_EXPECT_PREFIX="$tmp/preload/expect"
preload_rc=$?

if [ $plain_rc -eq 0 ] && [ ! -s "$tmp/plain.out" ]; then
    fail "the program printed nothing on stdout (nothing to compare)"
fi

# (1) identical stdout
if [ $plain_rc -eq 0 ] && [ $preload_rc -eq 0 ]; then
    if cmp -s "$tmp/plain.out" "$tmp/preload.out"; then
        echo "stdout identical ($(wc -l <"$tmp/plain.out") lines)"
    else
        fail "stdout differs with the preload"
        diff -u --label "without Ductile" --label "with Ductile" \
            "$tmp/plain.out" "$tmp/preload.out" | head -n 60
    fi
fi

# the program's own expectations must not depend on the preload
if [ $plain_rc -eq 0 ] && [ $preload_rc -eq 0 ]; then
    n_plain=$(find "$tmp/plain" -name 'expect.*' | wc -l)
    n_pre=$(find "$tmp/preload" -name 'expect.*' | wc -l)
    if [ "$n_plain" -ne "$nprocs" ] || [ "$n_pre" -ne "$nprocs" ]; then
        fail "expected $nprocs expectation files per run, got $n_plain without and $n_pre with the preload"
    elif ! diff -r "$tmp/plain" "$tmp/preload" >"$tmp/expect.diff" 2>&1; then
        fail "the program's expectation files differ with the preload"
        head -n 40 "$tmp/expect.diff"
    fi
fi

# (2) the report
if [ $preload_rc -eq 0 ]; then
    if [ ! -s "$tmp/report.json" ]; then
        fail "no report written to $tmp/report.json (was the library preloaded?)"
        echo "---- preload stderr (last 20 lines):"
        tail -n 20 "$tmp/preload.err"
    else
        if ! "$python" "$here/check_report.py" "$tmp/report.json" "$tmp/preload/expect" \
            --nprocs "$nprocs" ${iter_args[@]+"${iter_args[@]}"} \
            ${DUCTILE_TIME_SAMPLE:+--time-sample "$DUCTILE_TIME_SAMPLE"}; then
            fail "report does not match the expectations"
        fi
        # sampled timing: the summary says the times are estimated (and only then)
        if [ "${DUCTILE_SUMMARY:-1}" = 0 ]; then
            :
        elif [ "${DUCTILE_TIME_SAMPLE:-1}" -gt 1 ] && ! grep -q "^ductile: times are ESTIMATED: 1 call in $DUCTILE_TIME_SAMPLE timed" "$tmp/preload.err"; then
            fail "DUCTILE_TIME_SAMPLE=$DUCTILE_TIME_SAMPLE: the summary does not say the times are estimated"
        elif [ "${DUCTILE_TIME_SAMPLE:-1}" -le 1 ] && grep -q "^ductile: times are ESTIMATED" "$tmp/preload.err"; then
            fail "every call timed, but the summary says the times are estimated"
        fi
    fi
fi

if [ $status -eq 0 ]; then
    echo "PASS: $name ($nprocs ranks)"
fi
exit $status
