#!/bin/sh
# What a job waits on from ductiled is never kept by a daemon that is gone:
# an `io hold` is revoked by `ductilectl cancel JOB` (the job acknowledges),
# released by the job when its ductiled is killed, and when its ductiled is
# frozen (no answer: the connection is taken for dead, bounded); an I/O
# token kept past its lease is revoked and the holder's acknowledgement
# recorded.  A real job (ctl_job, 2 processes, an I/O phase behind
# ductile_io_gate every 5 iterations) runs to its end with its data checked.
. "$abs_top_srcdir/tests/controller/common.sh"
PEER="$abs_top_srcdir/tests/controller/peer.py"
start_daemon --slots 4
start_job a 2 100000 20 5 "$T/stop-a"
wait_until 30 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 1 ]' || { bad "job did not register"; exit 1; }
j=$(ctl --json list | jget 'd["jobs"][0]["job"]')
# held: io_held reported and the iteration no longer advances
held() {
  wait_until 20 '[ "$(job_field "$j" "d[\"io_held\"]")" = True ]' || return 1
  wait_until 10 'i1=$(job_field "$j" "d[\"iteration\"]"); sleep 1; i2=$(job_field "$j" "d[\"iteration\"]"); [ -n "$i1" ] && [ "$i1" = "$i2" ]'
}
released() { want=$2; wait_until "$1" '[ "$(grep -c "I/O waited for release" "$T/a.log")" -ge "$want" ]'; }

# 1. revoke: the operator cancels, the job acknowledges and goes on
ctl io hold "$j" > /dev/null && held && ok "job $j held at its I/O gate (iteration $i1)" || bad "hold did not stop the job"
ctl cancel "$j" > "$T/c1" 2>&1 && grep -q "I/O free" "$T/c1" && ok "cancel revokes the hold: $(cat "$T/c1")" || bad "cancel: $(cat "$T/c1")"
released 10 1 && ok "the job passed its gate" || bad "job still held after the revoke"
ctl events "$j" | grep "revoked" | grep -q '"io_held": *false' && ok "acknowledged: $(ctl events "$j" | grep revoked | tail -1)" || bad "no revoked event"

# 2. ductiled killed while the job is held: the job releases the hold itself
ctl io hold "$j" > /dev/null && held && ok "held again" || bad "second hold"
kill -9 "$DPID"; wait "$DPID" 2>/dev/null; DPID=""
released 10 2 && ok "ductiled killed: the job released the hold and goes on" || bad "job stuck at its I/O gate after ductiled died"
grep -q "I/O hold released: the connection to ductiled was lost" "$T/a.log" && ok "the job says why" || bad "no message in the job's log"

# 3. ductiled frozen (a half-open connection): no answer within the bound
rm -f "$SOCK"
start_daemon --slots 4
wait_until 30 '[ "$(ctl --json list | jget "[x[\"state\"] for x in d[\"jobs\"] if x[\"job\"] == '"$j"'][0]")" = running ]' \
  && ok "job re-registered with the new ductiled" || bad "job did not re-register"
ctl io hold "$j" > /dev/null && held && ok "held by the new ductiled" || bad "third hold"
kill -STOP "$DPID"
released 30 3 && ok "ductiled frozen: the job took the connection for dead and released the hold" || bad "job stuck behind a frozen ductiled"
grep -q "did not answer for" "$T/a.log" && ok "$(grep -m1 'did not answer' "$T/a.log" | sed 's/^.*controller/controller/')" || bad "no timeout message"
kill -CONT "$DPID"

touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "FINAL size=2 .*failures=0" "$T/a.log" && ok "job ran to its end, data checks passed" || bad "job failed (rc $ra): $(tail -3 "$T/a.log")"
stop_daemon

# 4. an I/O token held past its lease is revoked; the holder acknowledges
rm -f "$SOCK"
start_daemon --io-lease 1
timeout -k 10 $((30 * ${TEST_TIME_SCALE:-1})) "$PY" "$PEER" lease_revoke "$SOCK" $((5 * ${TEST_TIME_SCALE:-1})) > "$T/lease.out" 2>&1
grep -q "holder got revoke: token (I/O lease expired)" "$T/lease.out" && grep -q "waiter granted" "$T/lease.out" \
  && grep -q "revoke acknowledged" "$T/lease.out" && ok "lease: $(tr '\n' '|' < "$T/lease.out")" || bad "lease revoke: $(cat "$T/lease.out")"
exit $fail
