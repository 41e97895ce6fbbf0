#!/bin/sh
# A shrink that removes rank 0, as an operator types it (issue 23 item 2):
# `ductilectl shrink J 1 --ranks 0` on a 3-process job.  The job's
# controller moves with rank 0 to the new rank 0 (its registration, its
# queue of delayed commands with their ids, its I/O hold): the job stays
# one job with 2 processes, a delayed expansion queued before the shrink
# still runs at its iteration and can be cancelled by its id after it, the
# departed process (parked until the job ends) never sends `exit` for the
# job, so the daemon never frees the running job's slots; the data is
# checked after every resize (ctl_job) and the job exits cleanly.  Then a
# job resized by the Baseline method (every process leaves, rank 0 too):
# its controller moves to the new processes' rank 0 at each resize.
. "$abs_top_srcdir/tests/controller/common.sh"
start_daemon --slots 6
start_job a 3 100000 20 0 "$T/stop-a"
wait_until 30 '[ "$(job_field 1 "d[\"state\"]")" = running ]' || { bad "job did not register"; exit 1; }
wait_until 20 '[ "$(job_field 1 "len(d[\"history\"]) > 0")" = True ]' || bad "no samples"
used() { ctl --json slots | jget 'd["total"] - d["free"]'; }
now=$(job_field 1 'd["history"][-1]["iteration"]')
# two delayed expansions, well ahead: one runs after the move, one is cancelled after it
a1=$((now + 300 * ${TEST_TIME_SCALE:-1}))
ctl expand 1 1 --at-iteration "$a1" > "$T/q1" && ctl expand 1 1 --at-iteration 1000000000 > "$T/q2" \
  || bad "delayed expansions refused: $(cat "$T/q1" "$T/q2")"
id1=$(sed -n 's/.*queued as command \([0-9]*\).*/\1/p' "$T/q1")
id2=$(sed -n 's/.*queued as command \([0-9]*\).*/\1/p' "$T/q2")
[ -n "$id1" ] && [ -n "$id2" ] && ok "two delayed expansions queued as commands $id1 and $id2" || bad "ids '$id1' '$id2'"
ctl io hold 1 > /dev/null && ok "I/O held" || bad "io hold"
ctl shrink 1 1 --ranks 0 > "$T/s" 2>&1 && ok "shrink naming rank 0 accepted: $(cat "$T/s")" || bad "shrink --ranks 0: $(cat "$T/s")"
wait_until 40 '[ "$(job_field 1 "d[\"procs\"]")" = 2 ]' && ok "the job is at 2 processes" || bad "procs: $(job_field 1 'd["procs"]')"
wait_until 20 '[ "$(job_field 1 "d[\"state\"]")" = running ]' && ok "the job is running" || bad "state: $(job_field 1 'd["state"]')"
grep -q "job 1: rank 0 (pid [0-9]*) left the world" "$T/daemon.log" && grep -q "job 1 re-registered" "$T/daemon.log" \
  && ok "the controller moved: $(grep -c 're-registered' "$T/daemon.log") re-registration" || bad "no hand-over in the daemon's log"
[ "$(ctl --json list | jget 'len(d["jobs"])')" = 1 ] && ok "still one job" || bad "jobs: $(ctl list)"
ev=$(job_field 1 '[e["kind"] for e in d["events"]]')
echo "$ev" | grep -q "handover" && ok "a handover event" || bad "events: $ev"
job_field 1 '[e for e in d["events"] if e["kind"] == "resized" and e["from"] == 3 and e["to"] == 2]' | grep -q "'command'" \
  && ok "the new rank 0 reported the shrink (command $(job_field 1 '[e.get("command") for e in d["events"] if e["kind"] == "resized"][-1]'))" \
  || bad "no resized event 3 -> 2 with its command: $(job_field 1 '[e for e in d["events"] if e["kind"] == "resized"]')"
wait_until 10 '[ "$(job_field 1 "[q[\"id\"] for q in d[\"queued\"]]")" = "[$id1, $id2]" ]' \
  && ok "the queue moved with its ids: $(job_field 1 '[q["id"] for q in d["queued"]]')" || bad "queue: $(job_field 1 'd["queued"]')"
[ "$(job_field 1 'd["io_held"]')" = True ] && ok "the I/O hold moved" || bad "io_held: $(job_field 1 'd["io_held"]')"
ctl io release 1 > /dev/null && ok "I/O released at the new rank 0" || bad "io release"
# 2 running + the parked old rank 0 + 2 reserved
p=$(job_field 1 'd["parked"]')
[ "$(used)" = $((2 + p + 2)) ] && ok "slots: $(used) used (2 running, $p parked, 2 reserved)" || bad "slots $(used) used, parked $p: $(ctl --json list | jget 'd["jobs"][0]')"
ctl cancel 1 "$id2" > "$T/c" 2>&1 && ok "command $id2 cancelled after the move: $(cat "$T/c")" || bad "cancel $id2: $(cat "$T/c")"
wait_until 60 '[ "$(job_field 1 "d[\"procs\"]")" = 3 ]' && ok "command $id1 ran after the move: 3 processes" || bad "job not at 3"
got=$(sed -n 's/^iteration \([0-9]*\): size 2 -> 3.*/\1/p' "$T/a.log" | head -1)
[ -n "$got" ] && [ "$got" -ge "$a1" ] && ok "at iteration $got (>= $a1)" || bad "expansion at '$got', due $a1"
sleep 2
[ "$(job_field 1 'd["state"]')" = running ] && ok "still running (the departed process sent no exit)" || bad "state $(job_field 1 'd["state"]')"
grep -q "crashed\|job 1 exited" "$T/daemon.log" && bad "the daemon ended the job early: $(grep 'crashed\|exited' "$T/daemon.log")"
touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "FINAL size=3 .*failures=0" "$T/a.log" && ok "job: data checks passed" || bad "job failed (rc $ra): $(tail -3 "$T/a.log")"
wait_until 10 '[ "$(job_field 1 "d[\"state\"]")" = exited ]' && ok "job exited" || bad "state at the end: $(job_field 1 'd["state"]')"
[ "$(grep -c 'job 1 exited' "$T/daemon.log")" = 1 ] && ok "one exit" || bad "exits: $(grep 'exited' "$T/daemon.log")"
wait_until 10 '[ "$(used)" = 0 ]' && ok "all slots free at the end" || bad "slots at the end: $(used) used"

# the Baseline method: all old processes leave (they park until the job ends), rank 0 included
DUCTILE_RESIZE_METHOD=baseline start_job b 2 100000 20 0 "$T/stop-b"
wait_until 30 '[ "$(job_field 2 "d[\"state\"]")" = running ]' || { bad "job 2 did not register"; exit 1; }
ctl expand 2 1 > /dev/null && wait_until 40 '[ "$(job_field 2 "d[\"procs\"]")" = 3 ]' && ok "baseline 2 -> 3" || bad "baseline expand"
wait_until 20 '[ "$(job_field 2 "d[\"state\"]")" = running ]' || bad "job 2: $(job_field 2 'd["state"]')"
[ "$(job_field 2 'd["parked"]')" = 2 ] && [ "$(used)" = 5 ] && ok "the 2 old processes park: 5 slots used" || bad "parked $(job_field 2 'd["parked"]'), $(used) used"
ctl shrink 2 1 > /dev/null && wait_until 40 '[ "$(job_field 2 "d[\"procs\"]")" = 2 ]' && ok "baseline 3 -> 2" || bad "baseline shrink"
wait_until 20 '[ "$(job_field 2 "d[\"state\"]")" = running ]' && ok "job 2 running after two moves of its rank 0" || bad "job 2: $(job_field 2 'd["state"]')"
[ "$(grep -c 'job 2 re-registered' "$T/daemon.log")" = 2 ] && ok "its controller moved twice" || bad "moves: $(grep 'job 2' "$T/daemon.log")"
touch "$T/stop-b"
wait "$PID_b"; rb=$?
[ $rb -eq 0 ] && grep -q "FINAL size=2 .*failures=0" "$T/b.log" && ok "job 2: data checks passed" || bad "job 2 failed (rc $rb)"
wait_until 10 '[ "$(job_field 2 "d[\"state\"]")" = exited ]' && wait_until 10 '[ "$(used)" = 0 ]' && ok "job 2 exited, all slots free" \
  || bad "job 2 at the end: $(job_field 2 'd["state"]'), $(used) used"
daemon_clean
exit $fail
