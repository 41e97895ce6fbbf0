#!/bin/sh
# tests/mpi-test.sh -- automake LOG_COMPILER for the MPI test programs in
# tests/mpi: picks the rank count and checks for each program and runs
# tests/run-mpi-test.sh (identical output with and without the preload,
# exact counts in the report).
prog=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
case "$(basename "$prog")" in
  iter) exec "$here/run-mpi-test.sh" --iterations 49 50 "$prog" 4 "$@" ;;
  fortran_*) exec "$here/run-mpi-test.sh" "$prog" 3 "$@" ;;
  *) exec "$here/run-mpi-test.sh" "$prog" 4 "$@" ;;
esac
