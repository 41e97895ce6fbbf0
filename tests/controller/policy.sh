#!/bin/sh
# The global controller end to end (docs/policies.md): ductiled started with
# a policy takes two malleable jobs and a third that must wait (submitted
# with ductilectl submit, started by ductiled under ductile-run and the
# launcher), makes room for the third by shrinking the others within their
# --min, gives the slots back as jobs end, and every job finishes with its
# data checks passed.  Once with `efficiency`, once with `fair`.  Checked:
# the queue (the third job waited, then ran), the policy's decisions with
# their reasons in `ductilectl events`, and that no job's size ever left
# its --min/--max.
. "$abs_top_srcdir/tests/controller/common.sh"

run_policy() {
  pol=$1
  rm -f "$T"/job-q*.log "$T/state.json"
  mport=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  start_daemon --slots 5 --policy "$pol" --policy-params cooldown=1,horizon=30 --launcher "$MPIEXEC" --job-logs "$T" \
    --metrics "127.0.0.1:$mport"
  # A scales (300 ms of work per iteration shared by its processes), B does not (100 ms whatever its size)
  ctl submit -n 2 --min 1 --max 4 -- "$JOB" 70 -300 > /dev/null || bad "$pol: submit A"
  ctl submit -n 3 --min 2 --max 3 -- "$JOB" 90 100 > /dev/null || bad "$pol: submit B"
  wait_until 40 '[ "$(ctl --json list | jget "len([j for j in d[\"jobs\"] if j[\"state\"] == \"running\"])")" = 2 ]' \
    && ok "$pol: jobs A and B started by ductiled and registered" || { bad "$pol: A and B did not register"; return; }
  ctl submit -n 2 --min 2 -- "$JOB" 40 -300 > /dev/null || bad "$pol: submit C"
  st=$(ctl --json queue | jget '[e["state"] for e in d["queue"] if e["queue_id"] == 3][0]')
  [ "$st" = waiting ] && ok "$pol: C waits (no free slot)" || bad "$pol: C is '$st', not waiting"
  ctl queue | sed 's/^/    /'
  # the policy frees two slots for C within A's and B's --min; C starts; everything ends
  wait_until 60 '[ "$(ctl --json queue | jget "[e[\"state\"] for e in d[\"queue\"] if e[\"queue_id\"] == 3][0]")" != waiting ]' \
    && ok "$pol: C started once the policy made room" || bad "$pol: C never started"
  wait_until 120 '[ "$(ctl --json queue | jget "len([e for e in d[\"queue\"] if e[\"state\"] in (\"done\", \"failed\")])")" = 3 ]' \
    && ok "$pol: all three jobs ended" || bad "$pol: jobs did not end: $(ctl queue)"
  ctl queue | sed 's/^/    /'
  for q in 1 2 3; do
    log="$T/job-q$q.log"
    grep -q "FINAL .*failures=0" "$log" && ok "$pol: q$q: data checks passed ($(grep FINAL "$log"))" \
      || { bad "$pol: q$q failed"; tail -20 "$log"; }
  done
  # decisions with their reasons, sizes within the bounds
  ctl --json queue > "$T/queue.json"
  for q in 1 2 3; do
    jid=$(jget '[e.get("job", 0) for e in d["queue"] if e["queue_id"] == '$q'][0]' < "$T/queue.json")
    ctl --json events "$jid" > "$T/ev-$q.json" 2>/dev/null
  done
  "$PY" - "$T" "$pol" <<'EOF' || fail=1
import json, sys
T, pol = sys.argv[1], sys.argv[2]
q = json.load(open(T + "/queue.json"))["queue"]
decisions = 0
ok = True
for e in q:
    ev = json.load(open("%s/ev-%d.json" % (T, e["queue_id"])))["events"]
    lo, hi = e["min"], e["max"] or 5
    sizes = [x["procs"] for x in ev if x["kind"] == "registered"] + [x["to"] for x in ev if x["kind"] == "size"]
    pols = [x for x in ev if x["kind"] == "policy"]
    decisions += len(pols)
    for p in pols:
        print("    q%d job %d: %d -> %d: %s" % (e["queue_id"], e["job"], p["from"], p["to"], p["reason"][:150]))
        if not p["reason"] or not p["policy"].startswith(pol):
            print("FAIL: decision without a reason or of another policy:", p); ok = False
    if any(s < lo or s > hi for s in sizes + [p["to"] for p in pols]):
        print("FAIL: q%d left [%d, %d]: sizes %s" % (e["queue_id"], lo, hi, sizes)); ok = False
    else:
        print("ok: %s: q%d sizes %s within [--min %d, --max %d]" % (pol, e["queue_id"], sizes, lo, hi))
print(("ok: " if decisions else "FAIL: ") + "%s: %d policy decisions recorded in ductilectl events" % (pol, decisions))
sys.exit(0 if ok and decisions else 1)
EOF
  grep -c "policy $pol" "$T/daemon.log" | sed "s/^/ok: $pol: decisions in ductiled's log: /"
  # ductiled --metrics counted each decision the log shows
  sleep 1 # the text is published every 0.5 s
  logged=$(grep -c "policy $pol: job [0-9]* [0-9]* -> [0-9]* \(sent\|refused\)" "$T/daemon.log")
  counted=$("$PY" -c 'import sys, urllib.request
t = urllib.request.urlopen(sys.argv[1], timeout=5).read().decode()
print(int(sum(float(l.rsplit(" ", 1)[1]) for l in t.splitlines() if l.startswith("ductile_policy_decisions_total{policy=\"%s\"" % sys.argv[2]))))' \
    "http://127.0.0.1:$mport/metrics" "$pol")
  [ "$counted" = "$logged" ] && [ "$logged" -gt 0 ] && ok "$pol: metrics: ductile_policy_decisions_total = $counted, as logged" \
    || bad "$pol: metrics count $counted policy decisions, the log $logged"
  stop_daemon
}

run_policy efficiency
run_policy fair
exit $fail
