#!/bin/sh
# No fixed limit on registered items: tests/malleable/manyitems.c registers
# 200 items (variable and constant distributed arrays of different sizes,
# replicated vectors, scalars) and is resized 2->3->1, with Merge and
# Baseline; every process checks every element of every item after every
# control point.  Also 300 items with the constant ones moving in the
# background (DUCTILE_REDIST_CONSTANT=nb).
set -u
prog="$abs_top_builddir/tests/malleable/manyitems"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
# check NAME NP FINAL N [env assignments via the environment]
check() {
  name=$1 np=$2 final=$3 n=$4
  timeout -k 10 $t $MPIEXEC -n "$np" "$prog" "$n" 12 > out 2> err
  rc=$?
  if [ $rc -ne 0 ] || grep -q "FAIL" out || ! grep -q "^manyitems $n ok on $final processes" out; then
    echo "FAIL: $name: rc $rc"; cat out; tail -15 err; fail=1
  else
    echo "ok: $name: $(grep '^manyitems' out)"
  fi
}
for m in merge baseline; do
  DUCTILE_RESIZE_METHOD=$m DUCTILE_SCHEDULE="3:+1,7:-2" check "200 items 2->3->1 $m" 2 1 200
done
DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE="3:+1,7:-2" check "300 items 2->3->1 nb" 2 1 300
exit $fail
