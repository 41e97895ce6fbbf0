#!/bin/sh
# Several delayed commands for one job, each with an id; `ductilectl cancel
# JOB ID` cancels one before it runs (its reserved slot is freed, the other
# command still runs), status and events show the queue, a full queue (16)
# is refused with a clear message, `cancel JOB` empties it.  A real job
# (ctl_job, 2 processes) with its data checked after every resize.
. "$abs_top_srcdir/tests/controller/common.sh"
start_daemon --slots 4
start_job a 2 100000 20 0 "$T/stop-a"
wait_until 30 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 1 ]' || { bad "job did not register"; exit 1; }
j=$(ctl --json list | jget 'd["jobs"][0]["job"]')
wait_until 20 '[ "$(job_field "$j" "len(d[\"history\"]) > 0")" = True ]' || bad "no samples"
now=$(job_field "$j" 'd["history"][-1]["iteration"]')
a1=$((now + 250 * ${TEST_TIME_SCALE:-1}))
a2=$((a1 + 50))
ctl expand "$j" 1 --at-iteration "$a1" > "$T/q1" && ctl expand "$j" 1 --at-iteration "$a2" > "$T/q2" \
  && ok "two delayed commands queued: $(cat "$T/q1" "$T/q2" | tr '\n' '|')" || bad "second delayed command refused: $(cat "$T/q1" "$T/q2")"
id1=$(sed -n 's/.*queued as command \([0-9]*\).*/\1/p' "$T/q1")
id2=$(sed -n 's/.*queued as command \([0-9]*\).*/\1/p' "$T/q2")
[ -n "$id1" ] && [ -n "$id2" ] && [ "$id1" != "$id2" ] && ok "ids $id1 and $id2" || bad "ids '$id1' '$id2'"
wait_until 10 '[ "$(job_field "$j" "[q[\"id\"] for q in d[\"queued\"]]")" = "[$id1, $id2]" ]' \
  && ok "status shows the queue: $(job_field "$j" 'd["queued"]')" || bad "queue in status: $(job_field "$j" 'd.get("queued")')"
ctl status "$j" | grep -q "queued commands" && ok "human status lists queued commands" || bad "human status: no queue"
ctl events "$j" | grep -q "\"id\": *$id2" && ok "events show the queued command $id2" || bad "events: $(ctl events "$j")"
[ "$(ctl --json list | jget '[x for x in d["jobs"]][0]["pending"]')" = 2 ] && ok "2 slots reserved" || bad "pending: $(ctl --json list)"
ctl cancel "$j" "$id1" > "$T/c1" 2>&1 && grep -q "1 queued command(s) cancelled: $id1" "$T/c1" \
  && ok "cancel $id1: $(cat "$T/c1")" || bad "cancel: $(cat "$T/c1")"
[ "$(ctl --json list | jget 'd["jobs"][0]["pending"]')" = 1 ] && ok "its slot was freed" || bad "slot not freed: $(ctl --json list)"
ctl cancel "$j" "$id1" > "$T/c2" 2>&1; rc=$?
[ $rc -ne 0 ] && grep -q "no queued command $id1" "$T/c2" && ok "a second cancel of $id1 is refused: $(cat "$T/c2")" || bad "second cancel: rc $rc $(cat "$T/c2")"
ctl events "$j" | grep -q "revoked" && ok "the job's acknowledgement is an event" || bad "no revoked event"
# the remaining command runs at its iteration, the cancelled one never
wait_until 60 '[ "$(job_field "$j" "d[\"procs\"]")" = 3 ]' && ok "the other command ran: 3 processes" || bad "job not at 3"
line=$(grep "size 2 -> 3" "$T/a.log" | head -1)
got=$(echo "$line" | sed -n 's/^iteration \([0-9]*\):.*/\1/p')
[ -n "$got" ] && [ "$got" -ge "$a2" ] && ok "command $id2 applied at iteration $got (>= $a2; the cancelled one was due at $a1)" || bad "resize at '$got' ($line), cancelled due $a1, kept $a2"
[ "$(job_field "$j" "len(d[\"queued\"])")" = 0 ] && ok "queue empty after it ran" || bad "queue: $(job_field "$j" 'd["queued"]')"
# a bounded queue: 16 delayed commands, the 17th refused
far=1000000000
k=0; while [ $k -lt 16 ]; do ctl shrink "$j" 1 --at-iteration "$far" > /dev/null 2>> "$T/full.err" || break; k=$((k + 1)); done
[ $k = 16 ] && ok "16 delayed commands queued" || bad "only $k queued: $(cat "$T/full.err")"
ctl shrink "$j" 1 --at-iteration "$far" > /dev/null 2> "$T/full.err"; rc=$?
[ $rc = 1 ] && grep -q "16 commands are already queued" "$T/full.err" && ok "the 17th refused: $(cat "$T/full.err")" || bad "17th: rc $rc $(cat "$T/full.err")"
ctl cancel "$j" > "$T/c3" 2>&1 && grep -q "16 queued command(s) cancelled" "$T/c3" && ok "cancel without id: $(cut -c1-60 "$T/c3")..." || bad "cancel all: $(cat "$T/c3")"
wait_until 10 '[ "$(job_field "$j" "len(d[\"queued\"])")" = 0 ]' && ok "queue empty" || bad "queue after cancel: $(job_field "$j" 'd["queued"]')"
ctl cancel "$j" x > /dev/null 2>&1; [ $? = 2 ] && ok "a bad id is a usage error" || bad "bad id accepted"
touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "FINAL size=3 .*failures=0" "$T/a.log" && ok "job: data checks passed at 3 processes" || bad "job failed (rc $ra): $(tail -3 "$T/a.log")"
exit $fail
