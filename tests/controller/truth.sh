#!/bin/sh
# One truth about a job (issue 23 item 9): after every resize, fold, policy
# decision and daemon restart, `ductilectl status` (procs, hosts with their
# processes, parked processes, reservations and slots, rank_hosts), `list`,
# `slots` and the resource manager agree, and the numbers are the expected
# ones.  A real malleable job (ctl_job, data checked after every resize):
#   expand 2 -> 3; shrink 3 -> 2 (the spawned process exits with MPICH,
#   parks with Open MPI); expand, then shrink rank 1 (an original process:
#   it parks); fold to 1 core per host and unfold; ductilectl shutdown and a
#   restart on the state file; SIGKILL and a restart; a restart with
#   --policy fair, whose growth takes the job to its --max 4.
. "$abs_top_srcdir/tests/controller/common.sh"
SCALE=${TEST_TIME_SCALE:-1}
# truth LABEL PROCS PARKED: every view agrees and shows PROCS running and PARKED parked processes
truth() {
  ctl --json status 1 > "$T/st.json" && ctl --json list > "$T/ls.json" && ctl --json slots > "$T/sl.json" \
    || { bad "$1: a view failed"; return; }
  if "$PY" - "$T" "$2" "$3" > "$T/truth.out" 2>&1 <<'EOF'
import json, sys
T, procs, parked = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
st, ls, sl = (json.load(open(T + f)) for f in ("/st.json", "/ls.json", "/sl.json"))
err = []
def want(what, got, exp):
    if got != exp: err.append("%s: %r, expected %r" % (what, got, exp))
want("status procs", st["procs"], procs)
want("status parked", st["parked"], parked)
h = st["hosts"]
want("procs over the hosts", sum(x["procs"] for x in h), st["procs"])
want("parked over the hosts", sum(x["parked"] for x in h), st["parked"])
want("reserved over the hosts", sum(x["reserved"] for x in h), st["pending"])
want("rank_hosts", len(st["rank_hosts"]), st["procs"])
want("slots over the hosts", {x["name"]: x["slots"] for x in h if x["slots"]}, st["slots"])
fold = st["fold_cores_per_host"]
run = sum(min(x["procs"], fold) if fold else x["procs"] for x in h)
want("slots held", sum(st["slots"].values()), run + st["parked"] + st["pending"])
want("cores", st["cores"], sum(st["slots"].values()))
j = [x for x in ls["jobs"] if x["job"] == st["job"]][0]
for k in ("procs", "pending", "parked", "slots", "state"):
    want("list " + k, j[k], st[k])
used = {}
for x in ls["jobs"]:
    if x["state"] in ("running", "disconnected"):
        for n, c in x["slots"].items(): used[n] = used.get(n, 0) + c
for x in sl["hosts"]:
    want("resource manager: %s used" % x["name"], x["used"], used.get(x["name"], 0))
want("free slots", sl["free"], sl["total"] - sum(used.values()))
want("list's slots line", ls["slots"]["free"], sl["free"])
print("procs %d on %s, parked %d, pending %d, slots %s, %s" % (st["procs"], ",".join("%s:%d" % (x["name"], x["procs"]) for x in h),
      st["parked"], st["pending"], st["slots"], "folded to %d" % fold if fold else "not folded"))
for e in err: print("FAIL:", e)
sys.exit(1 if err else 0)
EOF
  then ok "$1: $(cat "$T/truth.out")"; else bad "$1: $(cat "$T/truth.out")"; fi
}
size_is() { wait_until "$2" '[ "$(job_field 1 "d[\"procs\"]")" = '"$1"' ]'; }

start_daemon --slots 8
DUCTILE_MAX_PROCS=4 start_job a 2 100000 -300 0 "$T/stop-a"
wait_until 30 '[ "$(job_field 1 "d[\"state\"]")" = running ]' || { bad "job did not register"; exit 1; }
truth "registered" 2 0
ctl expand 1 1 > /dev/null && size_is 3 40 || bad "expand 2 -> 3"
truth "after expand 2 -> 3" 3 0
ctl shrink 1 1 > /dev/null && size_is 2 40 || bad "shrink 3 -> 2"
sleep 1
p=$(job_field 1 'd["parked"]'); x=$(job_field 1 'd["exited"]')
[ $((p + x)) = 1 ] && ok "the removed process $([ "$p" = 1 ] && echo parked || echo exited)" || bad "parked $p exited $x"
truth "after shrink 3 -> 2" 2 "$p"
ctl expand 1 1 > /dev/null && size_is 3 40 || bad "expand 2 -> 3 again"
truth "after the second expand" 3 "$p"
ctl shrink 1 1 --ranks 1 > /dev/null && size_is 2 40 || bad "shrink of rank 1"
p=$((p + 1))
wait_until 10 '[ "$(job_field 1 "d[\"parked\"]")" = '"$p"' ]' || bad "rank 1 did not park"
truth "after rank 1 left (parked)" 2 "$p"
ctl --json fold 1 1 > "$T/fold.json" 2>&1 && [ "$(jget 'd["host_ranks"], d["hosts"], d["cores_held"]' < "$T/fold.json")" = "2 1 $((1 + p))" ] \
  && ok "fold's reply: host_ranks 2 on 1 host, $((1 + p)) slots held" || bad "fold's reply: $(cat "$T/fold.json")"
ctl unfold 1 > /dev/null || bad "unfold"
ctl fold 1 1 > "$T/fold" 2>&1 && ! grep -q "cancel" "$T/fold" && ok "fold: $(cat "$T/fold")" || bad "fold: $(cat "$T/fold")"
wait_until 10 '[ "$(job_field 1 "d[\"fold_cores_per_host\"]")" = 1 ]' || bad "not folded"
truth "folded to 1 core" 2 "$p"
ctl unfold 1 > "$T/unfold" 2>&1 && ! grep -q "cancel" "$T/unfold" && ok "unfold: $(cat "$T/unfold")" || bad "unfold: $(cat "$T/unfold")"
truth "unfolded" 2 "$p"
ctl shutdown > /dev/null && wait "$DPID"; DPID=""
start_daemon --slots 8
wait_until 30 '[ "$(job_field 1 "d[\"state\"]")" = running ]' || bad "job did not come back after shutdown"
truth "after ductilectl shutdown and a restart" 2 "$p"
kill -9 "$DPID"; wait "$DPID" 2>/dev/null; DPID=""
start_daemon --slots 8
truth "restored from the state file, before the job is back" 2 "$p"
wait_until 30 '[ "$(job_field 1 "d[\"state\"]")" = running ]' || bad "job did not come back after SIGKILL"
truth "after SIGKILL and a restart" 2 "$p"
stop_daemon
start_daemon --slots 8 --policy fair --policy-params cooldown=1,horizon=30
wait_until 30 '[ "$(job_field 1 "d[\"state\"]")" = running ]' || bad "job did not come back under the policy"
size_is 4 $((60 * SCALE)) && ok "the policy grew the job to its --max 4: $(job_field 1 '[e["reason"][:80] for e in d["events"] if e["kind"] == "policy"][-1:]')" \
  || bad "no growth by the policy: $(job_field 1 '[e for e in d["events"] if e["kind"] == "policy"][-2:]')"
wait_until 10 '[ "$(job_field 1 "d[\"pending\"]")" = 0 ]'
truth "after the policy's growth" 4 "$p"
touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "FINAL size=4 .*failures=0" "$T/a.log" && ok "job: data checks passed" || bad "job failed (rc $ra): $(tail -3 "$T/a.log")"
wait_until 10 '[ "$(job_field 1 "d[\"state\"]")" = exited ]' || bad "job not exited"
wait_until 10 '[ "$(ctl --json slots | jget "d[\"free\"]")" = 8 ]' && ok "all slots free at the end" || bad "slots at the end: $(ctl slots)"
daemon_clean
exit $fail
