#!/bin/sh
# tests/fortran/fjacobi.sh -- the Fortran EMPI module (`use empi`,
# include/empi.f90): tests/fortran/fjacobi.f90, a malleable Jacobi in
# Fortran, resized 2->5->3->1 (Merge and Baseline), prints the bits of the
# static run's checksum.
set -u
prog="$abs_top_builddir/tests/fortran/fjacobi"
[ -x "$prog" ] || { echo "SKIP: fjacobi not built (no mpi_f08)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
timeout -k 10 $t $MPIEXEC -n 2 "$prog" 101 30 > ref 2>&1 || { echo "FAIL: static run"; cat ref; exit 1; }
ref=$(grep -o "checksum [0-9A-F]* on 2 processes" ref | cut -d" " -f2)
[ -n "$ref" ] || { echo "FAIL: static run: no checksum"; cat ref; exit 1; }
echo "static: checksum $ref"
for m in merge baseline; do
  DUCTILE_RESIZE_METHOD=$m DUCTILE_SCHEDULE="5:+3,15:-2,22:-2" timeout -k 10 $t $MPIEXEC -n 2 "$prog" 101 30 > out 2> err
  rc=$?
  got=$(grep -o "checksum [0-9A-F]* on 1 processes" out | cut -d" " -f2)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ]; then
    echo "FAIL: $m 2->5->3->1: rc $rc, checksum '$got' (expected $ref)"; cat out; grep -v "^ductile" err | tail; fail=1
  else
    echo "ok: $m 2->5->3->1: checksum $got"
  fi
done
exit $fail
