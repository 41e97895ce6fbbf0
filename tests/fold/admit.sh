#!/bin/sh
# ductiled --fold-to-admit (docs/folding.md) end to end: on 2 slots, job A
# (tests/fold/fold_app, unmodified, 2 processes, submitted with ductilectl
# submit) holds every core; job B (1 process) is submitted and cannot start,
# so ductiled folds A to 1 core (both of A's ranks pinned to one CPU, A holds
# 1 core) and B starts; job C (2 processes) is submitted and waits; once B
# has ended, C cannot start on the 1 free core and no fold would admit it,
# so A is unfolded at once (2 cores again, each rank back on its own CPUs)
# instead of leaving the core idle; when A ends, C starts.  Every decision is a
# "fold_to_admit" event with its reason; A's and B's results are byte for
# byte those of runs nobody folded.  Checks of state with bounded waits.
. "$abs_top_srcdir/tests/controller/common.sh"
. "$abs_top_srcdir/tests/fold/common.sh"
"$DUCTILED" --help | grep -q -- "--fold-to-admit" && ok "ductiled --help lists --fold-to-admit" || bad "--fold-to-admit not in --help"
start_daemon --slots 2 --fold-to-admit --launcher "$MPIEXEC" --job-logs "$T"
qstate() { ctl --json queue | jget '[e["state"] for e in d["queue"] if e["queue_id"] == '$1'][0]'; }
running() { ctl --json list | jget 'len([j for j in d["jobs"] if j["state"] == "running"])'; }

ctl submit -n 2 -- "$APP" 1000000 20 6 "$T/stop-a" > /dev/null || { bad "submit A"; exit 1; }
wait_until 60 '[ "$(running)" = 1 ]' && ok "A started by ductiled and registered" || { bad "A did not register"; exit 1; }
a=$(ctl --json list | jget 'd["jobs"][0]["job"]')
wait_until 20 '[ "$(grep -c "^PID rank=" "$T/job-q1.log")" = 2 ]' || { bad "no pids in A's output"; exit 1; }
P=$(awk -F'pid=' '/^PID rank=/{print $2}' "$T/job-q1.log" | paste -sd' ' -)
O1=$(cpus_of "${P%% *}"); O2=$(cpus_of "${P##* }")
F=$(first_cpu "$O1" "$O2")
[ "$(job_field "$a" 'd["cores"]')" = 2 ] && ok "A holds 2 cores, none free" || bad "A's cores: $(job_field "$a" 'd.get("cores")')"

ctl submit -n 1 -- "$APP" 1000000 20 6 "$T/stop-b" > /dev/null || { bad "submit B"; exit 1; }
wait_until 20 '[ "$(job_field "$a" "d[\"fold_cores_per_host\"]")" = 1 ]' && ok "ductiled folded A to 1 core per host" || bad "A not folded: $(job_field "$a" 'd.get("fold_cores_per_host")')"
wait_until 60 '[ "$(running)" = 2 ]' && ok "B started and registered ($(qstate 2))" || { bad "B did not start: $(ctl queue)"; exit 1; }
wait_until 30 'all_on "$P" "$F"' && ok "both of A's ranks pinned to CPU $F" || bad "A's affinity while folded: $(for p in $P; do cpus_of $p; done)"
[ "$(job_field "$a" 'd["cores"]')" = 1 ] && ok "status: A holds 1 core" || bad "A's cores while folded: $(job_field "$a" 'd.get("cores")')"
ctl --json events "$a" | jget '[e for e in d["events"] if e["kind"] == "fold_to_admit" and e.get("action") == "fold"][0]["reason"]' > "$T/why" 2>/dev/null \
  && ok "event: $(cat "$T/why")" || bad "no fold_to_admit event for the fold: $(ctl --json events "$a")"
b=$(ctl --json queue | jget '[e.get("job", 0) for e in d["queue"] if e["queue_id"] == 2][0]')
wait_until 30 '[ "$(job_field "$b" "d[\"iteration\"]")" -gt 5 ]' && ok "B (job $b) makes progress" || bad "B makes no progress"

ctl submit -n 2 -- "$APP" 1000000 20 6 "$T/stop-c" > /dev/null || { bad "submit C"; exit 1; }
sleep 1
[ "$(qstate 3)" = waiting ] && ok "C (2 processes) waits: no fold could free 2 slots" || bad "C: $(qstate 3), expected waiting"
touch "$T/stop-b"
wait_until 60 '[ "$(qstate 2)" = done ]' && ok "B ended" || bad "B did not end: $(ctl queue)"
wait_until 30 '[ "$(job_field "$a" "d[\"fold_cores_per_host\"]")" = 0 ] && [ "$(job_field "$a" "d[\"cores\"]")" = 2 ]' \
  && ok "A unfolded: 2 cores again" || bad "A not unfolded: $(ctl --json status "$a" | head -c 300)"
wait_until 30 '[ "$(cpus_of "${P%% *}")" = "$O1" ] && [ "$(cpus_of "${P##* }")" = "$O2" ]' && ok "each of A's ranks back on its own CPUs" || bad "A's affinity after unfold: $(for p in $P; do cpus_of $p; done)"
ctl --json events "$a" | jget '[e for e in d["events"] if e["kind"] == "fold_to_admit" and e.get("action") == "unfold"][0]["reason"]' > "$T/why" 2>/dev/null \
  && ok "event: $(cat "$T/why")" || bad "no fold_to_admit event for the unfold"
grep -q "first waiting entry needs 2 slot" "$T/why" && ok "A was unfolded while C waited, because its core would idle" || bad "unfold reason: $(cat "$T/why")"
[ "$(qstate 3)" = waiting ] && ok "C still waits while A runs on both cores" || bad "C: $(qstate 3)"
touch "$T/stop-a"
wait_until 60 '[ "$(qstate 1)" = done ]' && ok "A ended" || bad "A did not end: $(ctl queue)"
wait_until 60 '[ "$(running)" = 1 ] && [ "$(qstate 3)" = running ]' && ok "C started when A ended" || bad "C did not start: $(ctl queue)"
touch "$T/stop-c"
wait_until 60 '[ "$(qstate 3)" = done ]' && ok "C ended" || bad "C did not end: $(ctl queue)"

for q in 1 2 3; do
  res=$(grep '^RESULT' "$T/job-q$q.log")
  np=$([ $q = 2 ] && echo 1 || echo 2)
  iters=$(echo "$res" | sed -n 's/.*iters=\([0-9]*\).*/\1/p')
  [ -n "$iters" ] || { bad "q$q: no result"; continue; }
  ref=$(DUCTILE_CONTROLLER=off timeout -k 10 300 $MPIEXEC -n $np env LD_PRELOAD="$LIBDUCTILE" "$APP" "$iters" 20 6 2>&1 | grep '^RESULT')
  [ "$ref" = "$res" ] && ok "q$q: $res, identical to a run nobody folded" || bad "q$q: results differ: '$res', reference '$ref'"
done
exit $fail
