#!/bin/sh
# tests/fortran/malleable.sh -- a malleable Fortran program
# (tests/fortran/fortran_malleable.f90: use mpi_f08, Ductile's C EMPI_*
# functions through bind(C) interfaces) grown and shrunk by DUCTILE_SCHEDULE
# with both methods: every element checked after every control point, the
# Fortran MPI_COMM_WORLD has the resized size, the report counts the
# resizes (tests/malleable/common.sh).
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
APP="$abs_top_builddir/tests/fortran/fortran_malleable"
[ -x "$APP" ] || { echo "SKIP: fortran_malleable not built"; exit 77; }
for method in merge baseline; do
  run "Fortran 2->3->2->4->2 $method" 2 5 2 4 DUCTILE_RESIZE_METHOD=$method DUCTILE_SCHEDULE="0:+1,1:-1,2:+2,3:-2"
done
run "Fortran 3->1 merge, rank 0 leaves" 3 3 1 1 DUCTILE_SCHEDULE="1:-2@0;1"
exit $fail
