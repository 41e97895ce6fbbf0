#!/bin/sh
# MPI_COMM_WORLD keeps the program's error handler, name and cached
# attributes across resizes (grow, shrink, baseline, persistent standby), and
# the program's attribute callbacks run only for its own operations.
. "$abs_top_srcdir/tests/transparency/common.sh"
run "2->3->1 merge" world_identity 2 1 DUCTILE_SCHEDULE=0:+1,1:-2 -- 3
run "1->3->2 p2p" world_identity 1 2 DUCTILE_REDIST=p2p DUCTILE_SCHEDULE=0:+2,1:-1 -- 3
run "2->3 baseline" world_identity 2 3 DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE=0:+1 -- 2
run "2->3->2->3 persistent" world_identity 2 3 DUCTILE_PERSISTENT=1 DUCTILE_SCHEDULE=0:+1,1:-1,2:+1 -- 4
exit $fail
