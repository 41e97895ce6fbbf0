#!/bin/sh
# Folding and resizing the same EMPI job, in sequence (tests/controller/ctl_job,
# which checks its distributed vector after every control point): fold to one
# core, then an expansion 2 -> 3 ends the fold (every old rank back on its own
# CPUs, ductiled counts 3 cores again), then a fold of the 3 ranks (the
# spawned one too) and an unfold; the job's data checks pass.
. "$abs_top_srcdir/tests/controller/common.sh"
. "$abs_top_srcdir/tests/fold/common.sh"
export DUCTILE_VERBOSE=1
start_daemon --slots 4
start_job a 2 100000 30 0 "$T/stop-a"
wait_until 40 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 1 ]' && ok "the EMPI job registered" || { bad "job did not register"; exit 1; }
j=$(ctl --json list | jget 'd["jobs"][0]["job"]')
wait_until 20 '[ "$(job_pids "$T/stop-a" ctl_job | wc -w)" = 2 ]' || { bad "no 2 ranks of ctl_job"; exit 1; }
P=$(job_pids "$T/stop-a" ctl_job)
O1=$(cpus_of "${P%% *}"); O2=$(cpus_of "${P##* }")
F=$(first_cpu "$O1" "$O2")
ctl fold "$j" 1 > /dev/null && wait_until 20 'all_on "$P" "$F"' && ok "ranks $P folded onto CPU $F" || bad "fold: $(for p in $P; do cpus_of $p; done)"
[ "$(job_field "$j" 'd["cores"]')" = 1 ] && ok "ductiled: 1 core" || bad "cores while folded: $(job_field "$j" 'd.get("cores")')"

ctl resize "$j" 3 > /dev/null && wait_until 60 '[ "$(job_field "$j" "d[\"procs\"]")" = 3 ]' && ok "resized to 3 while folded" || bad "resize to 3"
wait_until 20 '[ "$(cpus_of "${P%% *}")" = "$O1" ] && [ "$(cpus_of "${P##* }")" = "$O2" ]' && ok "the resize ended the fold: old ranks on their own CPUs again" || bad "affinity after resize: $(for p in $P; do cpus_of $p; done)"
wait_until 20 '[ "$(job_field "$j" "d[\"cores\"]")" = 3 ]' && ok "ductiled: 3 cores after the resize" || bad "cores after resize: $(job_field "$j" 'd.get("cores")') fold $(job_field "$j" 'd.get("fold_cores_per_host")')"
P3=$(job_pids "$T/stop-a" ctl_job)
[ "$(echo "$P3" | wc -w)" = 3 ] && ok "3 ranks: $P3" || bad "ranks after resize: $P3"
ctl fold "$j" 1 > /dev/null && wait_until 20 'all_on "$P3" "$F"' && ok "all 3 ranks folded onto CPU $F" || bad "fold of 3: $(for p in $P3; do cpus_of $p; done)"
[ "$(ctl --json slots | jget 'd["free"]')" = 3 ] && ok "ductiled: 3 of 4 slots free while folded" || bad "slots: $(ctl --json slots)"
ctl unfold "$j" > /dev/null && wait_until 20 '[ "$(cpus_of "${P%% *}")" = "$O1" ]' && ok "unfolded" || bad "unfold of 3"
[ "$(ctl --json slots | jget 'd["free"]')" = 1 ] && ok "ductiled: 1 slot free after the unfold" || bad "slots after unfold: $(ctl --json slots)"

touch "$T/stop-a"
wait "$PID_a"; ra=$?
[ $ra -eq 0 ] && grep -q "FINAL size=3 .*failures=0" "$T/a.log" && ok "job: data checks passed ($(grep FINAL "$T/a.log"))" || bad "job failed (rc $ra)"
exit $fail
