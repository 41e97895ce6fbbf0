#!/bin/sh
# Resize pairs 1<->2, 2<->3, 2<->4, 4->1, 3<->5 with both methods (merge,
# baseline) and both transfer methods (col, p2p); the test app checks every
# element of every registered array after every resize.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
. "$abs_top_srcdir/tests/results-lib.sh"
# the table's rows (docs/cluster.md, "What works where"): the 2 -> 4 and
# 4 -> 2 resizes of the merge/col run, their total time in the job's report
table_rows() {
  set -- $(resizes "$rep") - - - -
  result "$ONE_HOST" expand works "${3#*:}" "2 -> 4: spawn, merge, data redistributed and checked (tests/malleable/pairs.sh)"
  result "$ONE_HOST" shrink works "${4#*:}" "4 -> 2: 2 ranks leave, data redistributed and checked (tests/malleable/pairs.sh)"
}
for method in merge baseline; do
  for redist in col p2p; do
    e="DUCTILE_RESIZE_METHOD=$method DUCTILE_REDIST=$redist"
    run "1->2->1 $method $redist" 1 3 1 2 $e DUCTILE_SCHEDULE="0:+1,1:-1"
    run "2->3->2->4->2 $method $redist" 2 5 2 4 $e DUCTILE_SCHEDULE="0:+1,1:-1,2:+2,3:-2" &&
      [ $method = merge ] && [ $redist = col ] && table_rows
    run "4->1 $method $redist" 4 2 1 1 $e DUCTILE_SCHEDULE="0:=1"
    run "3->5->3 $method $redist" 3 3 3 2 $e DUCTILE_SCHEDULE="0:+2,1:-2"
  done
done
# any ranks may leave, rank 0 included (merge method)
run "4->2 ranks 0 and 2 leave" 4 3 2 1 DUCTILE_SCHEDULE="1:-2@0;2" && check_departed "4->2 ranks 0 and 2 leave" 2
# processes that leave stay in the report ("departed"), also across later resizes
run "4->2 merge" 4 3 2 1 DUCTILE_SCHEDULE="1:-2" && check_departed "4->2 merge" 2
run "2->3->2 merge" 2 3 2 2 DUCTILE_SCHEDULE="0:+1,1:-1" && check_departed "2->3->2 merge" 1
run "4->2->3->2 merge, rank 0 leaves" 4 4 2 3 DUCTILE_SCHEDULE="0:-2@0;1,1:+1,2:-1@0" &&
  check_departed "4->2->3->2 merge, rank 0 leaves" 3
# baseline: every old process leaves (2, then 3)
run "2->3->2 baseline" 2 3 2 2 DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE="0:+1,1:-1" &&
  check_departed "2->3->2 baseline" 5
# more departed processes than DUCTILE_REPORT_RANKS: entries without functions, the sums still count them
# (first resize: 2 left, each one's functions kept; second: 5 in all, dropped; rank 0 changes at both)
run "2->3->2 baseline, report ranks 3" 2 3 2 2 DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE="0:+1,1:-1" \
  DUCTILE_REPORT_RANKS=3 && check_departed "2->3->2 baseline, report ranks 3" 5 nofns
run "4->2->3->2 merge, rank 0 leaves, report ranks 2" 4 4 2 3 DUCTILE_SCHEDULE="0:-2@0;1,1:+1,2:-1@0" \
  DUCTILE_REPORT_RANKS=2 && check_departed "4->2->3->2 merge, rank 0 leaves, report ranks 2" 3 nofns
run "2->4->3 rank 1 leaves after growing" 2 4 3 2 DUCTILE_REDIST=p2p DUCTILE_SCHEDULE="0:+2,2:-1@1"
exit $fail
