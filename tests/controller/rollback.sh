#!/bin/sh
# ductiled counts the slots of a failed expansion right (issue 22, item 7):
# a job whose expansion is rolled back (DUCTILE_TEST_FAIL=register: a new
# process's registration differs) reports it in its resized event with the
# new processes that ended ("exited") or still run parked ("parked", Open MPI
# 4); the daemon frees the slots of the ones that ended and keeps counting
# the parked ones until the job ends (src/daemon/jobs.c,
# jobs_note_departures).  Expected: MPICH and Open MPI 5 end them (2 exited,
# the job's 2 slots used), Open MPI 4 parks them (2 parked, 4 slots used).
. "$abs_top_srcdir/tests/controller/common.sh"
case "$($MPIEXEC --version 2>&1)" in
  *"Open MPI) 4."* | *"OpenRTE) 4."*) want_parked=2 ;;
  *) want_parked=0 ;;
esac
start_daemon --slots 10
export DUCTILE_TEST_FAIL=register
start_job a 2 20000 30 0 "$T/stop-a"
unset DUCTILE_TEST_FAIL
wait_until 40 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 1 ]' && ok "job registered" || { bad "job did not register"; exit 1; }
j=$(ctl --json list | jget 'd["jobs"][0]["job"]')
ctl expand "$j" 2 > /dev/null && ok "expand job $j by 2 queued" || bad "expand $j"
wait_until 60 '[ "$(job_field '"$j"' "any(e[\"kind\"] == \"resized\" and e[\"status\"] == \"failed\" for e in d[\"events\"])")" = True ]' \
  && ok "the job reported its failed expansion: $(job_field "$j" '[(e["from"], e["to"], e["reason"][:50], e["exited"], e["parked"]) for e in d["events"] if e["kind"] == "resized"]')" \
  || bad "no failed resized event: $(job_field "$j" 'd["events"]')"
row() { ctl --json list | jget '[(x["procs"], x["pending"], x["parked"], x["exited"]) for x in d["jobs"]][0]'; }
wait_until 20 '[ "$(row)" = "(2, 0, '"$want_parked"', '"$((2 - want_parked))"')" ]' \
  && ok "2 processes, nothing pending, $want_parked parked, $((2 - want_parked)) exited: $(row)" \
  || bad "the daemon's count: $(row) (procs, pending, parked, exited), expected $want_parked parked"
wait_until 20 '[ "$(ctl --json list | jget "d[\"slots\"][\"free\"]")" = $((8 - want_parked)) ]' \
  && ok "slots: $((8 - want_parked)) of 10 free (the job's 2 and $want_parked parked)" \
  || bad "slots after the failed expansion: $(ctl --json list | jget 'd["slots"]')"
touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "FINAL size=2 .*failures=0" "$T/a.log" && ok "job a: data checks passed" || bad "job a failed (rc $ra)"
wait_until 10 '[ "$(ctl --json list | jget "d[\"slots\"][\"free\"]")" = 10 ]' && ok "all slots free at the end" || bad "slots leaked"
exit $fail
