#!/bin/sh
# The report's loop figures are right, resized or not (issue 22, item 8): a
# loop whose head is the program's first timed MPI call (tests/malleable/
# loopfig.c; before the fix the detector was handed the end tick of a call
# that never happened, and time_min_s came out near -7.5e9 s) reports
# positive iteration times, min <= mean <= max, mean x count = total, and
# iteration times that add up to the loop's time as the program measured it
# on the process that writes the report, from the end of its previous MPI
# call, MPI_Init (tests/check_report.py --loop: the
# sum lies between the loop's time minus the uncounted iterations, 0.1 s and
# 10 %, and the loop's time plus 5 ms and 2 %).  Loops of one MPI call and of
# three, unmodified (static, 1 and 2 processes) and FlexMPI style
# (EMPI_Monitor_end): static on one process, Merge expand and shrink
# 2->4->3, Baseline 2->3 (the report comes from a spawned rank 0), and
# background resizes (nb 2->4->3, wd 2->3->1).
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
prog="$abs_top_builddir/tests/malleable/loopfig"
iters=60
# lrun NAME NP CALLS VAR=value...
lrun() {
  name=$1 np=$2 calls=$3; shift 3
  rep="$tmp/rep.json"; rm -f "$rep"
  env DUCTILE_REPORT="$rep" "$@" timeout -k 10 120 $MPIEXEC -n "$np" "$prog" $iters "$calls" 5 > "$tmp/out" 2> "$tmp/err"
  rc=$?
  line=$(grep "^loopfig: loop" "$tmp/out")
  n=$(echo "$line" | sed -n 's/.*loop \([0-9]*\) iterations.*/\1/p')
  s=$(echo "$line" | sed -n 's/.* \([0-9.]*\) seconds.*/\1/p')
  if [ $rc -ne 0 ] || [ -z "$n" ] || grep -q FAIL "$tmp/out"; then
    echo "FAIL: $name: rc $rc"; cat "$tmp/out"; tail -15 "$tmp/err"; fail=1; return 1
  fi
  if ! out=$($PYTHON "$abs_top_srcdir/tests/check_report.py" "$rep" --loop "$n" "$s"); then
    echo "FAIL: $name"; echo "$out"; grep "main loop" "$tmp/err"; fail=1; return 1
  fi
  echo "ok: $name ($calls call(s) per iteration): ${out#check_report: OK: }"
}
for c in 1 3; do
  lrun "unmodified loop, 1 process" 1 $c
  lrun "unmodified loop, 2 processes" 2 $c
  lrun "FlexMPI style, 1 process, no resize" 1 $c LOOPFIG_EMPI=1
  lrun "merge 2->4->3" 2 $c LOOPFIG_EMPI=1 DUCTILE_SCHEDULE=8:+2,20:-1
  lrun "baseline 2->3" 2 $c LOOPFIG_EMPI=1 DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=8:+1
  lrun "background nb 2->4->3" 2 $c LOOPFIG_EMPI=1 DUCTILE_REDIST_CONSTANT=nb DUCTILE_SCHEDULE=8:+2,20:-1
  lrun "background wd 2->3->1" 2 $c LOOPFIG_EMPI=1 DUCTILE_REDIST_CONSTANT=wd DUCTILE_SCHEDULE=8:+1,20:=1
done
exit $fail
