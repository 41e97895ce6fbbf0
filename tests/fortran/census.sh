#!/bin/sh
# tests/fortran/census.sh -- every Fortran MPI binding the MPI library
# exports (mpif.h / use mpi / use mpi_f08 layers, and the C library in case
# it holds Fortran symbols, as MPICH's can) is wrapped by libductile.so or
# knowingly passed through with a reason (tests/fortran/census_lib.py).
# The libraries are the ones libductile.so and the built Fortran test
# programs load (ldd).  Skips when the MPI exports no Fortran binding at all.
libs=$(for f in "$LIBDUCTILE" "$abs_top_builddir/tests/mpi/fortran_mpif" \
                "$abs_top_builddir/tests/mpi/fortran_usempi" "$abs_top_builddir/tests/mpi/fortran_f08"; do
           [ -e "$f" ] && ldd "$f" 2>/dev/null
       done | awk '$3 ~ /^\// {print $3}' | grep -E '/lib(p?mpi|mpifort|mpifh|mpi_)[^/]*$' | sort -u)
[ -n "$libs" ] || { echo "FAIL: no MPI library found through ldd $LIBDUCTILE"; exit 1; }
# shellcheck disable=SC2086
out=$("$PYTHON" "$abs_top_srcdir/tests/fortran/census_lib.py" "$LIBDUCTILE" $libs)
rc=$?
echo "$out"
if [ $rc -eq 0 ] && ! echo "$out" | grep -q -E ': [1-9][0-9]* Fortran bindings'; then
    echo "SKIP: the MPI library exports no Fortran bindings ($libs)"
    exit 77
fi
exit $rc
