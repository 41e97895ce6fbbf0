#!/bin/sh
# Reconfiguration hooks (issue 26, item 2): tests/malleable/stencil2d.c, a
# periodic 2-D stencil that rebuilds its own Cartesian communicator and halo
# datatypes in a hook (EMPI_Set_reconfig_hook), resized 4->9->6 with the
# Merge and the Baseline methods: the hook runs once per committed resize on
# every process (continuing, new -- inside EMPI_Get_shared --, removed),
# says the right sizes, ranks, kind and iteration, its communicator over the
# old and the new processes holds them all, and the grid's checksum is the
# static run's.  With every resize rolled back (DUCTILE_TEST_FAIL=transfer)
# the hook never runs and the job ends at its old size with the same checksum.
# Size constraints (issue 26, item 3): the program allows squares or multiples
# of 3, at most 9 processes (ductile_set_sizes, EMPI_Set_maxprocs; it checks
# that requests for 5 and 12 are refused at once); scheduled resizes to 5 and
# 12 are refused at their control point with the reason and the job goes on
# at 4 with the static checksum; DUCTILE_SIZES=min=4 adds to the program's
# constraints and refuses 9->3.
set -u
prog="$abs_top_builddir/tests/malleable/stencil2d"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
t=$((90 * ${TEST_TIME_SCALE:-2} / 2))
args="36 30 12"
sum_of() { sed -n "s/.*checksum \([0-9a-f]*\) on $2 processes.*/\1/p" "$1"; }
timeout -k 10 $t $MPIEXEC -n 4 "$prog" $args > ref 2>&1 || { echo "FAIL: static run"; cat ref; exit 1; }
ref=$(sum_of ref 4)
[ -n "$ref" ] || { echo "FAIL: static run: no checksum"; cat ref; exit 1; }
echo "static on 4: $(cat ref)"
# check NAME FINAL_SIZE HOOKS REMOVED [VAR=value...] -- with ARGS and SIZES
check() {
  name=$1 final=$2 hooks=$3 removed=$4; shift 4
  env "$@" timeout -k 10 $t $MPIEXEC -n 4 "$prog" $args "$sizes" > out 2> err
  rc=$?
  got=$(sum_of out "$final")
  nrem=$(grep -o "removed process: hooks [1-9][0-9]*, failures 0" out | wc -l)
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL" out || ! grep -q "hooks $hooks, failures 0" out ||
     [ "$nrem" -ne "$removed" ]; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref), $nrem removed processes with their hook (expected $removed)"
    cat out; tail -15 err; fail=1
  else
    echo "ok: $name: $(grep '^checksum' out)"
  fi
}
sizes="9,6"
check "merge 4->9->6" 6 2 3 DUCTILE_SCHEDULE="3:=9,7:=6"
check "baseline 4->9->6" 6 1 13 DUCTILE_SCHEDULE="3:=9,7:=6" DUCTILE_RESIZE_METHOD=baseline
sizes="-" # (not "": MPICH 5.0.2's hydra cannot spawn a command with an empty argument)
check "rolled back 4->9, 4->6 (DUCTILE_TEST_FAIL=transfer)" 4 0 0 DUCTILE_SCHEDULE="3:=9,7:=6" DUCTILE_TEST_FAIL=transfer \
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# refused NAME FINAL HOOKS EXPECTED_REASON... -- with the schedule and settings in $env
refused() {
  name=$1 final=$2 hooks=$3; shift 3
  env $env timeout -k 10 $t $MPIEXEC -n 4 "$prog" $args "$sizes" > out 2> err
  rc=$?
  got=$(sum_of out "$final")
  bad=
  for why in "$@"; do grep -qF "$why" err || bad="$bad [$why]"; done
  if [ $rc -ne 0 ] || [ "$got" != "$ref" ] || grep -q "FAIL" out || ! grep -q "hooks $hooks, failures 0" out || [ -n "$bad" ]; then
    echo "FAIL: $name: rc $rc, checksum '$got' (expected $ref), reasons missing:$bad"
    cat out; tail -15 err; fail=1
  else
    echo "ok: $name: $(grep '^checksum' out); $(grep 'at iteration .* refused:' err | sed 's/^ductile: //' | tr '\n' ' ')"
  fi
}
sizes="-"
env="DUCTILE_SCHEDULE=3:=5,7:=12"
refused "refused 4->5 (not a square nor a multiple of 3), 4->12 (EMPI_Set_maxprocs(9))" 4 0 \
  "resize 4 -> 5 at iteration 3 refused: the job cannot run on 5 processes: 5 processes is not among the job's allowed counts (squares|multiples:3); continuing with 4 processes" \
  "resize 4 -> 12 at iteration 7 refused: the job cannot run on 12 processes: 12 processes is above the job's maximum of 9"
sizes="9"
env="DUCTILE_SCHEDULE=3:=9,7:=3 DUCTILE_SIZES=min=4"
refused "merge 4->9, 9->3 refused (DUCTILE_SIZES=min=4)" 9 1 \
  "resize 9 -> 3 at iteration 7 refused: the job cannot run on 3 processes: 3 processes is below the job's minimum of 4"
exit $fail
