#!/bin/sh
# Periodic N-D blocks on the program's process grid (EMPI_Register_block_grid):
# tests/malleable/periodic.c, a 2-D periodic stencil on two fields sharing one
# grid, resized 4->6->3->5 (Merge and Baseline; the program's grid is 1x5 on
# 5) -- the result bit-identical (same hash) to a static run, every halo
# (periodic wrap and corners included) checked after every resize, both
# fields on one periodic communicator of the program's grid.  With the grid
# function refusing primes, the resize to 5 is refused with its reason and
# the job ends on 3, still identical to the static run.  The same with the
# local arrays in the program's storage (rows padded, a sentinel in the
# padding that must not change, the old arrays given back at each resize),
# and a resize whose allocation callback fails on rank 0 rolls back.
set -u
prog="$abs_top_builddir/tests/malleable/periodic"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
hash_of() { grep -o "^hash [0-9a-f]* on $2 processes" "$1" | cut -d" " -f2; }
check() {
  name=$1 np=$2 final=$3 ref=$4
  timeout -k 10 $t $MPIEXEC -n "$np" "$prog" 24 20 > out 2> err
  rc=$?
  got=$(hash_of out "$final")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL\|BAD" out; then
    echo "FAIL: $name: rc $rc, hash '$got' (expected $ref)"; cat out; tail -15 err; fail=1
  else
    echo "ok: $name: $(cat out)"
  fi
}
timeout -k 10 $t $MPIEXEC -n 4 "$prog" 24 20 > ref 2>&1 || { echo "FAIL: static run"; cat ref; exit 1; }
ref=$(hash_of ref 4)
[ -n "$ref" ] && ! grep -q "FAIL\|BAD" ref || { echo "FAIL: static run"; cat ref; exit 1; }
echo "static on 4: $(cat ref)"
for m in merge baseline; do
  DUCTILE_RESIZE_METHOD=$m DUCTILE_SCHEDULE="4:+2,9:-3,14:+2" check "4->6->3->5 $m" 4 5 "$ref"
done
# the program's own storage (padded rows, EMPI_Register_block_storage)
for m in merge baseline; do
  PERIODIC_STORAGE=1 DUCTILE_RESIZE_METHOD=$m DUCTILE_SCHEDULE="4:+2,9:-3,14:+2" check "4->6->3->5 program storage $m" 4 5 "$ref"
done
# rank 0's callback gives no array for "w" at the first resize: it rolls back (4->6 failed,
# then 4->1->3), the array made for "u" given back (exactly two live after each resize)
PERIODIC_STORAGE=1 PERIODIC_ALLOC_FAIL=4 DUCTILE_SCHEDULE="4:+2,9:-3,14:+2" check "4->6 failed ->1->3 program storage" 4 3 "$ref"
if [ $fail -eq 0 ] && ! grep -q "the program's storage callback gave no array" err; then
  echo "FAIL: the failed allocation is not reported"; tail -15 err; fail=1
fi
PERIODIC_REFUSE_PRIMES=1 DUCTILE_SCHEDULE="4:+2,9:-3,14:+2" check "4->6->3, 5 refused" 4 3 "$ref"
if [ $fail -eq 0 ] && ! grep -q "refused: the job cannot run on 5 processes: the program's process grid function refuses 5 processes" err; then
  echo "FAIL: the refusal of 5 processes is not reported"; tail -15 err; fail=1
fi
exit $fail
