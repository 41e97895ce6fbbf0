#!/bin/sh
# tests/fortran/spawn.sh -- MPI_COMM_SPAWN from Fortran
# (tests/fortran/fortran_spawn.f90: CHARACTER argv with hidden length,
# MPI_ARGV_NULL, MPI_ERRCODES_IGNORE): identical output with and without
# Ductile and exact counts in the parents' report (tests/run-mpi-test.sh).
# MPI_COMM_SPAWN_MULTIPLE runs with FSPAWN_MULTIPLE=1 (not by default: Open
# MPI 4.1.4 hangs at random in a job's third spawn, with or without Ductile).
prog=$abs_top_builddir/tests/fortran/fortran_spawn
[ -x "$prog" ] || { echo "SKIP: fortran_spawn not built"; exit 77; }
TEST_TIMEOUT=$((60 * ${TEST_TIME_SCALE:-2})) exec "$abs_top_srcdir/tests/run-mpi-test.sh" "$prog" 2
