#!/bin/sh
# A delayed expansion sent just before ductiled died, with a state file that
# never saw it (the stranger's finding: killed within a second of the
# command): when the job registers again it re-sends its queue, and the
# restarted ductiled reserves the command's slots again -- status shows
# them, a second expansion cannot take them, and the slots never exceed the
# hosts' (issue 23, item 7).  The state file is removed before the restart,
# so the queue the job re-sends is the only record of the command.
. "$abs_top_srcdir/tests/controller/common.sh"
start_daemon --slots 4
start_job a 2 100000 20 0 "$T/stop-a"
wait_until 30 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 1 ]' || { bad "job did not register"; exit 1; }
j=$(ctl --json list | jget 'd["jobs"][0]["job"]')
wait_until 20 '[ "$(job_field "$j" "len(d[\"history\"]) > 0")" = True ]' || bad "no samples"
now=$(job_field "$j" 'd["history"][-1]["iteration"]')
at=$((now + 400 * ${TEST_TIME_SCALE:-1}))
ctl expand "$j" 2 --at-iteration "$at" > "$T/q" 2>&1 && ok "expansion by 2 queued: $(cat "$T/q")" || bad "expand: $(cat "$T/q")"
[ "$(ctl --json list | jget 'd["slots"]["free"]')" = 0 ] && ok "its 2 slots reserved (0 of 4 free)" || bad "slots: $(ctl slots)"
kill -9 "$DPID"; wait "$DPID" 2>/dev/null; DPID=""
rm -f "$T/state.json"
start_daemon --slots 4
wait_until 40 '[ "$(job_field "$j" "d[\"state\"]")" = running ]' && ok "job $j back after the restart" || bad "job not back: $(ctl list)"
wait_until 20 '[ "$(job_field "$j" "len(d[\"queued\"])")" = 1 ]' && ok "its queue re-sent: $(job_field "$j" 'd["queued"]')" \
  || bad "queue after the restart: $(job_field "$j" 'd.get("queued")')"
wait_until 10 '[ "$(ctl --json list | jget "d[\"slots\"][\"free\"]")" = 0 ]' && ok "the command's slots reserved again (0 of 4 free)" \
  || bad "slots after the restart: $(ctl slots)"
grep -q "reserved again" "$T/daemon.log" && ok "logged: $(grep 'reserved again' "$T/daemon.log" | head -1)" || bad "no log line"
ctl expand "$j" 1 --at-iteration "$((at + 100000))" > "$T/q2" 2>&1 && bad "a second expansion took reserved slots: $(cat "$T/q2")" \
  || ok "a second expansion is refused: $(cat "$T/q2")"
wait_until 120 '[ "$(job_field "$j" "d[\"procs\"]")" = 4 ]' && ok "the command ran: 4 processes" || bad "job not at 4: $(ctl list)"
used=$(ctl --json list | jget 'sum(h["used"] for h in d["slots"]["hosts"])' 2>/dev/null)
[ "${used:-9}" -le 4 ] && ok "slots used: $used of 4" || bad "slots over-committed: $(ctl slots)"
touch "$T/stop-a"
wait_until 60 '[ "$(job_field "$j" "d[\"state\"]")" = exited ]' || bad "job did not end"
grep -q "FAIL" "$T/a.log" && bad "the job's data: $(grep FAIL "$T/a.log" | head -3)"
exit $fail
