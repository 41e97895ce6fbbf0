#!/bin/sh
# tests/fortran/warning.sh -- the load-time warning of src/wrap/fortran_check.c:
# none for a use mpi_f08 program whose bindings Ductile wraps
# (tests/mpi/fortran_f08 with the preload), exactly one when the MPI's own
# mpi_f08 library is preloaded ahead of libductile.so (so its bindings, not
# Ductile's, are the program's -- as with an MPI whose Fortran layer Ductile
# does not wrap).
prog=$abs_top_builddir/tests/mpi/fortran_f08
[ -x "$prog" ] || { echo "SKIP: fortran_f08 not built"; exit 77; }
f08lib=$(ldd "$prog" | awk '$1 ~ /usempif08/ && $3 ~ /^\// {print $3; exit}')
[ -n "$f08lib" ] || { echo "SKIP: $prog does not load an mpi_f08 library of its own"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
t=$((60 * ${TEST_TIME_SCALE:-2}))
fail=0
# shellcheck disable=SC2086
timeout -k 10 $t $MPIEXEC -n 2 env LD_PRELOAD="$LIBDUCTILE" DUCTILE_REPORT="$tmp/r1.json" "$prog" >"$tmp/1.out" 2>"$tmp/1.err" </dev/null
rc=$?
n=$(grep -c "ductile: warning: this program's Fortran MPI bindings" "$tmp/1.err")
if [ $rc -ne 0 ] || [ "$n" -ne 0 ]; then
    echo "FAIL: with Ductile's bindings: exit $rc, $n warnings (want 0, 0)"; cat "$tmp/1.err"; fail=1
else
    echo "ok: no warning when Ductile wraps the bindings"
fi
# shellcheck disable=SC2086
timeout -k 10 $t $MPIEXEC -n 2 env LD_PRELOAD="$f08lib $LIBDUCTILE" DUCTILE_REPORT="$tmp/r2.json" "$prog" >"$tmp/2.out" 2>"$tmp/2.err" </dev/null
n=$(grep -c "ductile: warning: this program's Fortran MPI bindings (mpi_init_f08_ in " "$tmp/2.err")
if [ "$n" -ne 1 ]; then
    echo "FAIL: with $f08lib ahead of Ductile: $n warnings naming mpi_init_f08_ (want 1)"; cat "$tmp/2.err"; fail=1
else
    echo "ok: $(grep "ductile: warning" "$tmp/2.err")"
fi
exit $fail
