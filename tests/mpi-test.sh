#!/bin/sh
# tests/mpi-test.sh -- automake LOG_COMPILER for the test programs without a
# file extension: CMocka unit tests (tests/unit/*) run as they are; the MPI
# test programs in tests/mpi get their rank count and checks here and run
# through tests/run-mpi-test.sh (identical output with and without the
# preload, exact counts in the report).
prog=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
case "$prog" in
  */unit/*|unit/*) exec "$prog" "$@" ;;
esac
case "$(basename "$prog")" in
  iter) exec "$here/run-mpi-test.sh" --iterations 49 50 "$prog" 4 "$@" ;;
  fortran_*) exec "$here/run-mpi-test.sh" "$prog" 3 "$@" ;;
  *) exec "$here/run-mpi-test.sh" "$prog" 4 "$@" ;;
esac
