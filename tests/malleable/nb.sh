#!/bin/sh
# DUCTILE_REDIST_CONSTANT=nb: a distributed constant array (EMPI_CONSTANT)
# moves in the background (MPI_Ialltoallv) while the application keeps
# iterating at the old size and changing its variable data; the world switches
# at the control point where the transfer is complete.  The test app checks
# every element of both after every control point.  The report
# records how many iterations the transfer overlapped.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
nbcheck() { # NAME MIN_NB_RECORDS: every ok record is +nb and says how long it overlapped
  $PYTHON - "$rep" "$1" "$2" <<'PY' || fail=1
import json, sys
r = json.load(open(sys.argv[1]))
ok = [x for x in r["reconfigurations"] if x["status"] == "ok"]
nb = [x for x in ok if x["redistribution"].endswith("+nb") and "overlapped" in x["reason"]]
if len(nb) < int(sys.argv[3]):
    sys.exit("FAIL: %s: %d records with a background transfer, expected %s: %s" % (sys.argv[2], len(nb), sys.argv[3], ok))
for x in nb: print("   %d->%d: %s" % (x["from"], x["to"], x["reason"]))
PY
  grep "NB constant transfer complete" "$tmp/out" | sed 's/^/   /'
}
# iterations long enough (3 ms each) for a background transfer to complete on
# a loaded 2-core machine: a baseline 3->5 was still pending after 58
# iterations of no work in a CI rehearsal (the new processes were still starting)
APP_SLEEP_MS=3
e="DUCTILE_REDIST_CONSTANT=nb RESIZE_APP_CONST=20000"

run "nb 2->4->2 merge col" 2 400 2 2 $e DUCTILE_SCHEDULE="2:+2,30:-2" && nbcheck "2->4->2" 2
run "nb 2->3->2 merge p2p (resize right after)" 2 400 2 2 $e DUCTILE_REDIST=p2p DUCTILE_SCHEDULE="1:+1,2:-1" && nbcheck "2->3->2" 2
run "nb 3->5->3 baseline col" 3 400 3 2 $e DUCTILE_RESIZE_METHOD=baseline DUCTILE_SCHEDULE="2:+2,30:-2" && nbcheck "3->5->3" 2
run "nb 4->1 merge col, rank 0 leaves" 4 400 1 1 $e DUCTILE_SCHEDULE="2:-3@0;1;2" && nbcheck "4->1" 1
# the program ends while the transfer is pending: the resize does not happen (the
# world never switched), the spawned process leaves, the record says why; the
# request queued behind it (due, never run) is named at MPI_Finalize
run "nb 1->2 merge, transfer pending at the end" 1 3 1 0 $e DUCTILE_SCHEDULE="2:+1,2:=3" &&
  { grep -q "failed: the program ended (MPI_Finalize) before the background transfer completed" "$tmp/err" ||
    { echo "FAIL: no failed record for the cancelled resize"; fail=1; }; } &&
  { grep -q "1 requested resize never ran: .*DUCTILE_SCHEDULE entry =3, due at iteration 2" "$tmp/err" ||
    { echo "FAIL: the request behind it is not named"; grep ductile: "$tmp/err"; fail=1; }; }
exit $fail
