#!/bin/sh
# A tester's FlexMPI-style program (stranger 34, tests/malleable/strangercycle.c,
# written from include/empi.h and the docs only): a dense item, vectors, a
# large variable array (24 MiB: blocks of 4 MiB and more, so the block cache
# keeps them), a constant array, a shared vector and a scalar; sizes that
# differ across ranks; one rank reaching the collectives late; every address
# re-read after each control point; the constant array checked every
# iteration.  Its output file does not depend on the number of processes: each
# run's is compared byte for byte with a static run's.
#   1. 4 -> 2 -> 4 -> 2 -> 5 -> 3 (col): kept blocks reused (DUCTILE_VERBOSE=2 says so);
#   2. 3 -> 8 -> 3 -> 7 -> 2 with DUCTILE_REDIST=auto and memory pressure on rank 0
#      while it keeps blocks (DUCTILE_TEST_FAIL=blockcache@0): the kept blocks given back,
#      every resize commits.
set -u
P="$abs_top_builddir/tests/malleable/strangercycle"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
t=$((150 * ${TEST_TIME_SCALE:-2} / 2))
its=12 big=24 const=4
export OMPI_MCA_rmaps_base_oversubscribe=1
DUCTILE_SCHEDULE= timeout -k 10 $t $MPIEXEC -n 3 "$P" $its $big $const "$tmp/ref.dat" > "$tmp/ref.out" 2> "$tmp/ref.err" ||
  { echo "FAIL: static run"; cat "$tmp/ref.out"; tail -5 "$tmp/ref.err"; exit 1; }

# cyc NAME NP FINAL_SIZE STATUSES [VAR=value ...]: the output as the static run's, the final size, the records
cyc() {
  name=$1 np=$2 final=$3 want=$4; shift 4
  rm -f "$tmp/out.dat" "$tmp/rep.json"
  env DUCTILE_REPORT="$tmp/rep.json" "$@" timeout -k 10 $t $MPIEXEC -n "$np" "$P" $its $big $const "$tmp/out.dat" \
    > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ $rc -ne 0 ] || ! grep -q "done size $final errors 0" "$tmp/out"; then
    echo "FAIL: $name: rc $rc"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  cmp -s "$tmp/ref.dat" "$tmp/out.dat" || { echo "FAIL: $name: the output differs from the static run's"; fail=1; return 1; }
  st=$($PYTHON -c "import json,sys; print(','.join(x['status'] for x in json.load(open(sys.argv[1]))['reconfigurations']))" \
    "$tmp/rep.json")
  [ "$st" = "$want" ] || { echo "FAIL: $name: records $st, expected $want"; fail=1; return 1; }
  echo "ok: $name ($st)"
}

cyc "4 -> 2 -> 4 -> 2 -> 5 -> 3, col, kept blocks" 4 3 ok,ok,ok,ok,ok \
  DUCTILE_SCHEDULE="1:=2,3:=4,5:=2,7:=5,9:=3" DUCTILE_VERBOSE=2 &&
  { grep -q "one kept from an earlier resize" "$tmp/err" || { echo "FAIL: no kept block reused"; fail=1; }; }
cyc "3 -> 8 -> 3 -> 7 -> 2, auto, memory pressure on rank 0" 3 2 ok,ok,ok,ok \
  DUCTILE_SCHEDULE="1:=8,4:=3,7:=7,10:=2" DUCTILE_REDIST=auto DUCTILE_VERBOSE=2 DUCTILE_TEST_FAIL=blockcache@0 &&
  { grep -q "given back, the allocation retried" "$tmp/err" || { echo "FAIL: the kept blocks were not given back"; fail=1; }; }
exit $fail
