#!/bin/sh
# A reservation lasts as long as its command (issue 23 item 7): a delayed
# expansion waits in the job's queue far longer than --pending-ttl (the time
# a command sent but unanswered, or taken but unreported, keeps its slots);
# all that time status, list, slots and the resource manager show its slots
# reserved, and a submitted job that would fit only on them waits.  Cancel
# the command: the slots come back and the submitted job starts.
# RESERVE_TTL (default 3 s) is ductiled's --pending-ttl; tests/long/reserve.sh
# runs it with the default 120 s.
. "$abs_top_srcdir/tests/controller/common.sh"
TTL=${RESERVE_TTL:-3}
if [ "$TTL" = 120 ]; then start_daemon --slots 4 --launcher "$MPIEXEC" --job-logs "$T"
else start_daemon --slots 4 --pending-ttl "$TTL" --launcher "$MPIEXEC" --job-logs "$T"; fi
start_job a 2 1000000 20 0 "$T/stop-a"
wait_until 30 '[ "$(job_field 1 "d[\"state\"]")" = running ]' || { bad "job did not register"; exit 1; }
ctl expand 1 2 --at-iteration 1000000000 > "$T/q" 2>&1 || bad "delayed expansion refused: $(cat "$T/q")"
cid=$(sed -n 's/.*queued as command \([0-9]*\).*/\1/p' "$T/q")
[ -n "$cid" ] && ok "a delayed expansion by 2 queued as command $cid" || bad "no command id: $(cat "$T/q")"
# views: the reservation everywhere, the same numbers
agree() {
  ctl --json status 1 > "$T/st.json" && ctl --json list > "$T/ls.json" && ctl --json slots > "$T/sl.json" || return 1
  "$PY" - "$T" "$1" <<'EOF'
import json, sys
T, pend = sys.argv[1], int(sys.argv[2])
st, ls, sl = (json.load(open(T + f)) for f in ("/st.json", "/ls.json", "/sl.json"))
j = ls["jobs"][0]
q = [c["reserved"] for c in st["queued"]]
vals = (st["pending"], j["pending"], sum(h["reserved"] for h in st["hosts"]), sum(q), sum(j["slots"].values()) - j["procs"],
        sl["total"] - sl["free"] - j["procs"])
print("pending %d in status, %d in list, %d over the hosts, %d over the queued commands, %d slots beyond the processes, "
      "%d used in the resource manager beyond them" % vals)
sys.exit(0 if all(v == pend for v in vals) else 1)
EOF
}
agree 2 > "$T/agree" && ok "reserved: $(cat "$T/agree")" || bad "views disagree: $(cat "$T/agree")"
sleep $((TTL + 5))
agree 2 > "$T/agree" && ok "still reserved after $((TTL + 5)) s (--pending-ttl $TTL s): $(cat "$T/agree")" || bad "after $((TTL + 5)) s: $(cat "$T/agree")"
job_field 1 '[e["kind"] for e in d["events"]]' | grep -q reservation_expired && bad "the queued command's reservation expired"
# a job that fits only on the reserved cores waits
ctl submit -n 2 -- "$JOB" 20 20 > /dev/null || bad "submit"
sleep 3
st=$(ctl --json queue | jget 'd["queue"][0]["state"]')
[ "$st" = waiting ] && ok "a submitted job needing the reserved cores waits" || bad "the submitted job is '$st'"
agree 2 > "$T/agree" && ok "while it waits: $(cat "$T/agree")" || bad "while it waits: $(cat "$T/agree")"
ctl cancel 1 "$cid" > "$T/c" 2>&1 && ok "cancel: $(cat "$T/c")" || bad "cancel: $(cat "$T/c")"
wait_until 30 '[ "$(ctl --json queue | jget "d[\"queue\"][0][\"state\"]")" != waiting ]' && ok "the submitted job started once the slots came back" \
  || bad "the submitted job still waits: $(ctl queue)"
wait_until 60 '[ "$(ctl --json queue | jget "d[\"queue\"][0][\"state\"]")" = done ]' && ok "it ran to its end" || bad "queue: $(ctl queue)"
[ "$(job_field 1 'd["pending"]')" = 0 ] && ok "no reservation left" || bad "pending: $(job_field 1 'd["pending"]')"
touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "FINAL size=2 .*failures=0" "$T/a.log" && ok "job: data checks passed" || bad "job failed (rc $ra)"
daemon_clean
exit $fail
