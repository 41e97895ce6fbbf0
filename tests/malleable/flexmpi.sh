#!/bin/sh
# FlexMPI source compatibility: tests/malleable/flexjacobi.c, written against
# FlexMPI's public API only (its Jacobi example's shape), compiled unchanged
# against Ductile's empi.h, gives the bit-identical checksum of a static run
# when resized 2->5->3->1; at every control point its blocks follow FlexMPI's
# EMPI_Get_wsize (extra rows on the last ranks), and every removed rank's
# EMPI_Get_wsize and EMPI_Monitor_end give -1/-1.
set -u
prog="$abs_top_builddir/tests/malleable/flexjacobi"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
timeout -k 10 $t $MPIEXEC -n 2 "$prog" 101 30 > "$tmp/ref.out" 2> "$tmp/ref.err" || { echo "FAIL: static run"; cat "$tmp/ref.err"; exit 1; }
ref=$(sed -n 's/.*checksum \([^ ]*\) on 2 processes -.*/\1/p' "$tmp/ref.out")
[ -n "$ref" ] || { echo "FAIL: static run: no checksum"; cat "$tmp/ref.out"; exit 1; }
echo "static: $(cat "$tmp/ref.out")"
for m in merge baseline; do
  DUCTILE_RESIZE_METHOD=$m DUCTILE_SCHEDULE="5:+3,15:-2,22:-2" timeout -k 10 $t $MPIEXEC -n 2 "$prog" 101 30 > "$tmp/$m.out" 2> "$tmp/$m.err"
  rc=$?
  got=$(grep -o "checksum [^ ]* on 1 processes" "$tmp/$m.out" | cut -d" " -f2)
  removed=$(grep -o "removed: wsize -1 -1" "$tmp/$m.out" | wc -l)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL\|BADBLOCKS" "$tmp/$m.out"; then
    echo "FAIL: $m: rc $rc, checksum '$got' (expected $ref)"; cat "$tmp/$m.out"; tail -15 "$tmp/$m.err"; fail=1
  elif [ $m = merge ] && [ "$removed" -ne 4 ]; then
    echo "FAIL: $m: $removed removed ranks reported -1/-1 from EMPI_Get_wsize, expected 4"; cat "$tmp/$m.out"; fail=1
  else
    echo "ok: $m 2->5->3->1: $(grep checksum "$tmp/$m.out")"
  fi
done
# a bad DUCTILE_WSIZE is refused with a message naming it
DUCTILE_WSIZE=middle timeout -k 10 $t $MPIEXEC -n 1 "$prog" 11 2 > "$tmp/bad.out" 2> "$tmp/bad.err"
if [ $? -eq 0 ] || ! grep -q "DUCTILE_WSIZE='middle'" "$tmp/bad.err"; then
  echo "FAIL: DUCTILE_WSIZE=middle was not refused with a message"; cat "$tmp/bad.err"; fail=1
fi
exit $fail
