#!/bin/sh
# Repeated +P/-P cycles (Phase Shifting: 2 -> 3 -> 2 ... six times) with the
# one-sided methods: data checked after every resize; every shrink reuses the
# window its expansion created (set-up time 0 in the report), so each window
# is created once per world.  Then DUCTILE_REDIST=auto: every record says
# "auto" with the cost model's reason, and the data is still right (also with
# the Baseline method, whose expansion's record a new process writes).  Last,
# auto on a sparse exchange (4 -> 8 -> 4, variable data only: each process
# has 3 partners out of 7): the first choice follows the steps the reason
# names, p2p where the collective takes more (Open MPI's pairwise
# MPI_Alltoallv: 7), col on a tie (MPICH's scattered one: 3), data right.
set -u
. "$abs_top_srcdir/tests/malleable/common.sh"
. "$abs_top_srcdir/tests/rma/common.sh"
sched=""
i=0
while [ $i -lt 6 ]; do
  sched="$sched${sched:+,}$((2*i)):+1,$((2*i+1)):-1"
  i=$((i+1))
done
for m in rma-lock rma-lockall; do
  run "6 cycles 2<->3 $m" 2 13 2 12 DUCTILE_REDIST=$m DUCTILE_SCHEDULE="$sched" && rmacheck "cycles $m" $m 0 &&
  $PYTHON - "$rep" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
shr = [x["times_s"]["window"] for x in ok if x["kind"] == "shrink"]
exp = [x["times_s"]["window"] for x in ok if x["kind"] == "expand"]
if any(w != 0 for w in shr) or not all(w > 0 for w in exp):
    sys.exit("FAIL: windows not reused: expand %s shrink %s" % (exp, shr))
print("   window set-up: expansions %.4f s on average, shrinks 0 (reused)" % (sum(exp) / len(exp)))
PY
done
# iterations of 5 ms and 60 after the last resize: a background transfer chosen by the cost model
# completes before the program ends (else the resize is reported failed, correctly)
APP_SLEEP_MS=5 run "2 cycles 2<->3 auto" 2 100 2 4 DUCTILE_REDIST=auto RESIZE_APP_CONST=4000 DUCTILE_SCHEDULE="0:+1,10:-1,20:+1,30:-1" &&
$PYTHON - "$rep" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
bad = [x for x in ok if x["choice"]["by"] != "auto" or "f=" not in x["choice"]["reason"]]
if bad:
    sys.exit("FAIL: auto: records without the cost model's choice: %s" % bad)
for x in ok: print("   %d->%d %s: %s" % (x["from"], x["to"], x["redistribution"], x["choice"]["reason"][:150]))
PY
# Baseline: the new processes write the record (both resizes spawn); it still names the cost model's
# choice and one spawn
APP_SLEEP_MS=5 run "2->3->2 auto baseline" 2 60 2 2 DUCTILE_REDIST=auto DUCTILE_RESIZE_METHOD=baseline RESIZE_APP_CONST=4000 DUCTILE_SCHEDULE="0:+1,10:-1" &&
$PYTHON - "$rep" <<'PY' || fail=1
import json, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
bad = [x for x in ok if x["choice"]["by"] != "auto" or "f=" not in x["choice"]["reason"] or x["spawn_groups"] != 1]
if len(ok) != 2 or bad:
    sys.exit("FAIL: auto baseline: records without the cost model's choice or one spawn: %s" % (bad or ok))
for x in ok: print("   %d->%d %s %s: %s" % (x["from"], x["to"], x["method"], x["redistribution"], x["choice"]["reason"][:120]))
PY
run "4->8->4 auto, 3 partners" 4 20 4 2 DUCTILE_REDIST=auto DUCTILE_SCHEDULE="0:+4,10:-4" &&
$PYTHON - "$rep" <<'PY' || fail=1
import json, re, sys
ok = [x for x in json.load(open(sys.argv[1]))["reconfigurations"] if x["status"] == "ok"]
x = ok[0]
m = re.search(r"steps col (\d+) p2p (\d+)", x["choice"]["reason"])
if not m or int(m.group(2)) % 3:
    sys.exit("FAIL: sparse auto: no steps, or not 3 partners, in %r" % x["choice"]["reason"])
want = "p2p" if int(m.group(1)) > int(m.group(2)) else "col"
if x["redistribution"] != want or not re.search("<=? " + ("col " if want == "p2p" else "p2p "), x["choice"]["reason"]):
    sys.exit("FAIL: sparse auto: %s, expected %s: %s" % (x["redistribution"], want, x["choice"]["reason"]))
print("   4->8 %s: %s" % (x["redistribution"], x["choice"]["reason"][:200]))
PY
exit $fail
