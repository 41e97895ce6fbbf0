#!/bin/sh
# N-D block data (EMPI_Register_block): tests/malleable/heat.c, a heat
# stencil with halo exchange on the Cartesian communicator Ductile gives,
# resized 4->6->3->1 (2-D, Merge and Baseline) and through a set of 3-D pairs
# covering every size 1..8 (1->8->3, 2->7->1, 3->5->2, 4->6->4, 8->6->5,
# 5->4->1): the assembled grid is bit-identical (same hash of its bytes) to a
# static run, and after every resize the halos Ductile filled equal the
# program's own exchange (the program checks; BADHALO otherwise).
set -u
prog="$abs_top_builddir/tests/malleable/heat"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
hash_of() { grep -o "hash [0-9a-f]* on $2 processes" "$1" | cut -d" " -f2; }
# run NAME NP FINAL_SIZE REF_HASH ARGS... [with DUCTILE_* in the environment]
check() {
  name=$1 np=$2 final=$3 ref=$4; shift 4
  timeout -k 10 $t $MPIEXEC -n "$np" "$prog" "$@" > out 2> err
  rc=$?
  got=$(hash_of out "$final")
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL\|BADHALO" out; then
    echo "FAIL: $name: rc $rc, hash '$got' (expected $ref)"; cat out; tail -15 err; fail=1
  else
    echo "ok: $name: $(grep -o 'checksum.*' out)"
  fi
}
timeout -k 10 $t $MPIEXEC -n 4 "$prog" 2 40 30 > ref2 2>&1 || { echo "FAIL: 2-D static run"; cat ref2; exit 1; }
ref2=$(hash_of ref2 4)
[ -n "$ref2" ] || { echo "FAIL: 2-D static run: no hash"; cat ref2; exit 1; }
echo "static 2-D on 4: $(grep -o 'checksum.*' ref2)"
for m in merge baseline; do
  DUCTILE_RESIZE_METHOD=$m DUCTILE_SCHEDULE="5:+2,12:-3,20:-2" check "2-D 4->6->3->1 $m" 4 1 "$ref2" 2 40 30
done
timeout -k 10 $t $MPIEXEC -n 1 "$prog" 3 12 12 > ref3 2>&1 || { echo "FAIL: 3-D static run"; cat ref3; exit 1; }
ref3=$(hash_of ref3 1)
[ -n "$ref3" ] || { echo "FAIL: 3-D static run: no hash"; cat ref3; exit 1; }
echo "static 3-D on 1: $(grep -o 'checksum.*' ref3)"
# the same on 8 processes (a static cross-check of the decomposition)
check "3-D static on 8" 8 8 "$ref3" 3 12 12
DUCTILE_SCHEDULE="3:+7,8:-5" check "3-D 1->8->3" 1 3 "$ref3" 3 12 12
DUCTILE_SCHEDULE="3:+5,8:-6" check "3-D 2->7->1" 2 1 "$ref3" 3 12 12
DUCTILE_SCHEDULE="3:+2,8:-3" check "3-D 3->5->2" 3 2 "$ref3" 3 12 12
DUCTILE_SCHEDULE="3:+2,8:-2" check "3-D 4->6->4" 4 4 "$ref3" 3 12 12
DUCTILE_SCHEDULE="3:-2,8:-1" check "3-D 8->6->5" 8 5 "$ref3" 3 12 12
DUCTILE_SCHEDULE="3:-1,8:-3" check "3-D 5->4->1" 5 1 "$ref3" 3 12 12
# the same exchanges point-to-point (src/data/exchange.c)
DUCTILE_REDIST=p2p DUCTILE_SCHEDULE="3:+5,8:-6" check "3-D 2->7->1 p2p" 2 1 "$ref3" 3 12 12
exit $fail
