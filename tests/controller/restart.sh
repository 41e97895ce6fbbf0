#!/bin/sh
# ductiled killed (SIGKILL) while a job runs: the job keeps running and
# reconnects with backoff; a restarted ductiled reads its state file and the
# job re-registers under the same id; nothing is lost.  Then a job whose
# connection is cut without an exit message is marked crashed.
. "$abs_top_srcdir/tests/controller/common.sh"
start_daemon --slots 4
start_job a 2 20000 20 0 "$T/stop-a"
wait_until 30 '[ "$(job_field 1 "d[\"state\"]")" = running ]' && ok "job 1 registered" || { bad "job did not register"; exit 1; }
wait_until 10 '[ "$(job_field 1 "len(d[\"history\"]) >= 3")" = True ]' || bad "no samples before the kill"
kill -9 "$DPID"; wait "$DPID" 2>/dev/null; DPID=""
ok "ductiled killed with SIGKILL"
sleep 3
kill -0 "$PID_a" 2>/dev/null && ok "the job keeps running without ductiled" || bad "the job died with ductiled"
ctl list > /dev/null 2>&1; [ $? -eq 3 ] && ok "ductilectl: daemon unreachable (exit 3)" || bad "ductilectl exit code without daemon"
start_daemon --slots 4
grep -q "1 job(s) restored" "$T/daemon.log" && ok "restarted ductiled restored the job from its state file" || bad "state not restored"
wait_until 20 '[ "$(job_field 1 "d[\"state\"]")" = running ]' && ok "job re-registered under the same id 1" || bad "job did not come back"
grep -q "job 1 re-registered" "$T/daemon.log" && ok "daemon log: re-registered" || bad "no re-registration in the log"
[ "$(ctl --json list | jget 'len(d["jobs"])')" = 1 ] && ok "no duplicate job" || bad "duplicate job after restart"
wait_until 10 '[ "$(job_field 1 "d[\"history\"][-1][\"recv\"] > d[\"registered\"]")" = True ]' && ok "monitoring resumes after the restart" || bad "no samples after restart"
[ "$(ctl --json list | jget 'd["slots"]["free"]')" = 2 ] && ok "its slots are still accounted" || bad "slots after restart: $(ctl --json list | jget 'd["slots"]')"
touch "$T/stop-a"
wait "$PID_a"; rc=$?
[ $rc -eq 0 ] && grep -q "failures=0" "$T/a.log" && ok "job finished cleanly" || bad "job failed rc $rc"
wait_until 10 '[ "$(job_field 1 "d[\"state\"]")" = exited ]' && ok "job 1 exited" || bad "job 1 not exited"

# a job killed without saying goodbye is a crash, and its slots come back
start_job b 2 20000 20 0 "$T/stop-b"
wait_until 30 '[ "$(job_field 2 "d[\"state\"]")" = running ]' && ok "job 2 registered" || bad "job 2 did not register"
r0=$(job_field 2 'd["pid"]')
kill -9 "$r0" && ok "rank 0 of job 2 (pid $r0) killed with SIGKILL"
wait_until 20 '[ "$(job_field 2 "d[\"state\"]")" = crashed ]' && ok "job 2 killed: crashed" || bad "job 2 state: $(job_field 2 'd["state"]')"
wait_until 10 '[ "$(ctl --json list | jget "d[\"slots\"][\"free\"]")" = 4 ]' && ok "crashed job's slots returned" || bad "crashed job's slots"
wait "$PID_b" 2>/dev/null
exit $fail
