#!/bin/sh
# Repeated +P/-P cycles (Phase Shifting: 2 -> 3 -> 2 ... six times) with the
# one-sided methods: data checked after every resize; every shrink reuses the
# window its expansion created (set-up time 0 in the report), so each window
# is created once per world.  Then DUCTILE_REDIST=auto: every record says
# "auto" with the cost model's reason, and the data is still right.
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
exit $fail
