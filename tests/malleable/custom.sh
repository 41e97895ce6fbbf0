#!/bin/sh
# Custom data (EMPI_Register_custom): tests/malleable/particles.c, a linked
# list of migrating particles moved at each resize by the program's
# size/pack/unpack callbacks, resized 3->6->2 and 2->5->1 (Merge) and 3->5->2
# (Baseline): after every resize each process holds exactly its slab's
# particles and none is lost (the program checks), and the final particles
# are bit-identical to a static run.
set -u
prog="$abs_top_builddir/tests/malleable/particles"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((60 * ${TEST_TIME_SCALE:-2} / 2))
timeout -k 10 $t $MPIEXEC -n 2 "$prog" 3000 16 > ref 2>&1 || { echo "FAIL: static run"; cat ref; exit 1; }
ref=$(grep -o "particles 3000 hash [0-9a-f]*" ref)
[ -n "$ref" ] || { echo "FAIL: static run: no hash"; cat ref; exit 1; }
echo "static on 2: $ref"
# the sixth word: the redistribution method (col: MPI_Alltoallv; p2p:
# nonblocking point-to-point, src/data/exchange.c)
for c in "3 6 2 3:+3,9:-4 merge col" "2 5 1 4:+3,10:-4 merge col" "3 5 2 4:+2,10:-3 baseline col" \
         "2 5 1 4:+3,10:-4 merge p2p"; do
  set -- $c
  DUCTILE_REDIST=$6 DUCTILE_RESIZE_METHOD=$5 DUCTILE_SCHEDULE="$4" timeout -k 10 $t $MPIEXEC -n $1 "$prog" 3000 16 > out 2> err
  rc=$?
  got=$(grep -o "particles 3000 hash [0-9a-f]* on $3 processes" out | cut -d" " -f1-4)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL\| BAD" out; then
    echo "FAIL: $1->$2->$3 $5 $6: rc $rc, got '$got' (expected '$ref')"; cat out; tail -15 err; fail=1
  else
    echo "ok: $1->$2->$3 $5 $6: $(grep -o 'particles.*' out)"
  fi
done
exit $fail
