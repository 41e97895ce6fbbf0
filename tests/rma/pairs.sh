#!/bin/sh
# Blocking one-sided redistribution (DUCTILE_REDIST=rma-lock | rma-lockall | rma-fence):
# pairs 1<->2, 2<->4, 3<->5, 4->1 with the Merge and Baseline methods, with
# the reusable per-world window (default) and with a window per array
# (DUCTILE_RMA_WINDOW=create); the test app checks every element of every
# registered array (double vector, int matrix, derived struct type,
# replicated array, scalar) after every resize.  With the reusable window,
# a shrink right after a Merge expansion must reuse the expansion's window
# (set-up time 0).
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
. "$abs_top_srcdir/tests/rma/common.sh"
reused() { # the second record (a shrink after a Merge expansion) reused the window
  $PYTHON - "$rep" "$1" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
if len(ok) >= 2 and not (ok[0]["times_s"]["window"] > 0 and ok[1]["times_s"]["window"] == 0):
    sys.exit("FAIL: %s: window not reused: %s" % (sys.argv[2], [x["times_s"] for x in ok]))
PY
}
for m in rma-lock rma-lockall; do
  e="DUCTILE_REDIST=$m"
  run "1->2->1 merge $m" 1 3 1 2 $e DUCTILE_SCHEDULE="0:+1,1:-1" && rmacheck "1->2->1" $m 0 && reused "1->2->1"
  run "2->4->2 merge $m" 2 3 2 2 $e DUCTILE_SCHEDULE="0:+2,1:-2" && rmacheck "2->4->2" $m 0 && reused "2->4->2"
  run "3->5->3 merge $m" 3 3 3 2 $e DUCTILE_SCHEDULE="0:+2,1:-2" && rmacheck "3->5->3" $m 0 && reused "3->5->3"
  run "4->1 merge $m" 4 2 1 1 $e DUCTILE_SCHEDULE="0:=1" && rmacheck "4->1" $m 0
  run "2->4->2 baseline $m" 2 3 2 2 $e DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE="0:+2,1:-2" && rmacheck "baseline" $m 0
  run "3->5->3 merge $m, window per array" 3 3 3 2 $e DUCTILE_RMA_WINDOW=create DUCTILE_SCHEDULE="0:+2,1:-2" &&
    rmacheck "create" $m 0
done
# RMA-Fence (one-off form: MPI_Win_create over the old block, gets between two fences, MPI_Win_free)
e="DUCTILE_REDIST=rma-fence"
run "1->2->1 merge rma-fence" 1 3 1 2 $e DUCTILE_SCHEDULE="0:+1,1:-1" && rmacheck "1->2->1" rma-fence 0
run "2->4->2 merge rma-fence" 2 3 2 2 $e DUCTILE_SCHEDULE="0:+2,1:-2" && rmacheck "2->4->2" rma-fence 0
run "3->5->3 merge rma-fence" 3 3 3 2 $e DUCTILE_SCHEDULE="0:+2,1:-2" && rmacheck "3->5->3" rma-fence 0
run "4->1 merge rma-fence" 4 2 1 1 $e DUCTILE_SCHEDULE="0:=1" && rmacheck "4->1" rma-fence 0
run "2->4->2 baseline rma-fence" 2 3 2 2 $e DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE="0:+2,1:-2" &&
  rmacheck "baseline" rma-fence 0
run "4->2 ranks 0 and 2 leave, rma-lockall" 4 3 2 1 DUCTILE_REDIST=rma-lockall DUCTILE_SCHEDULE="1:-2@0;2"
exit $fail
