#!/bin/bash
# sessions.sh -- programs of the MPI-4 Sessions model under Ductile
# (tests/transparency/sessions.c; docs/virtual-world.md, "MPI Sessions"):
# the Sessions model alone (no MPI_Init), a session after MPI_Init and a
# session before MPI_Init give the same output with the preload as without,
# and the report counts exactly the calls the program made, also when
# MPI_Init is never called (written at the last MPI_Session_finalize); a
# program that ends with a non-zero status ends with the same one.
# MPICH 5 and Open MPI 5; skipped with an MPI without Sessions (Open MPI 4.1).
set -u
prog="$abs_top_builddir/tests/transparency/sessions"
run_test() { bash "$abs_top_srcdir/tests/run-mpi-test.sh" "$@"; }
fail=0
if [ ! -x "$prog" ]; then
    echo "FAIL: $prog was not built"
    exit 1
fi
out=$(timeout -k 10 30 "$prog" 2>&1)
if [ $? -eq 77 ]; then
    echo "SKIP: $out"
    exit 77
fi
export TEST_TIMEOUT=$((60 * ${TEST_TIME_SCALE:-2}))
for args in "2 only" "3 only" "2 mixed" "2 early"; do
    # shellcheck disable=SC2086
    run_test "$prog" $args || { echo "FAIL: sessions $args"; fail=1; }
done

# the same exit status: every process returns 3 after its last MPI_Session_finalize
T=$(mktemp -d /tmp/ductile-sessions-XXXXXX)
trap 'rm -rf "$T"' EXIT
preload=$LIBDUCTILE
[ -n "${SANITIZER_PRELOAD:-}" ] && preload="$SANITIZER_PRELOAD:$LIBDUCTILE"
# shellcheck disable=SC2086
timeout -k 10 "$TEST_TIMEOUT" $MPIEXEC -n 2 env -u DUCTILE_REPORT "$prog" only 3 >"$T/plain.out" 2>"$T/plain.err"
rc_plain=$?
# shellcheck disable=SC2086
timeout -k 10 "$TEST_TIMEOUT" $MPIEXEC -n 2 env LD_PRELOAD="$preload" DUCTILE_REPORT="$T/report.json" DUCTILE_SUMMARY=0 \
    "$prog" only 3 >"$T/shim.out" 2>"$T/shim.err"
rc_shim=$?
if [ $rc_plain -eq 0 ] || [ $rc_plain -ge 124 ] || [ $rc_plain -ne $rc_shim ]; then
    echo "FAIL: exit status $rc_plain without the preload, $rc_shim with it (expected the same, not 0)"
    tail -5 "$T/plain.err" "$T/shim.err"
    fail=1
elif ! cmp -s "$T/plain.out" "$T/shim.out"; then
    echo "FAIL: output differs with the preload when the program exits with status 3"
    diff "$T/plain.out" "$T/shim.out" | head -20
    fail=1
elif ! "$PYTHON" "$abs_top_srcdir/tests/check_report.py" "$T/report.json" --nprocs 2 >"$T/check" 2>&1; then
    echo "FAIL: no valid report when the program exits with status 3"
    cat "$T/check"
    fail=1
else
    echo "ok: exit status $rc_shim with and without the preload, the same output, the report written"
fi
exit $fail
