#!/bin/sh
# Process folding of an unmodified MPI program (tests/fold/fold_app, no EMPI
# call, libductile preloaded) under a real ductiled: `ductilectl fold JOB 1`
# pins every thread of both ranks to one core (/proc/PID/task/*/status), the
# ranks' CPU time then grows by at most one core-second per second, ductiled
# counts one core; `unfold` restores each rank's own affinity and the slots;
# the run's result is byte for byte that of a run nobody folded.
. "$abs_top_srcdir/tests/controller/common.sh"
. "$abs_top_srcdir/tests/fold/common.sh"
. "$abs_top_srcdir/tests/results-lib.sh"
export DUCTILE_VERBOSE=1
start_daemon --slots 2
timeout -k 10 300 $MPIEXEC -n 2 env LD_PRELOAD="$LIBDUCTILE" "$APP" 1000000 20 6 "$T/stop" > "$T/job.log" 2>&1 &
JOBPIDS="$JOBPIDS $!"; JPID=$!
wait_until 40 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 1 ]' && ok "the unmodified job registered" || { bad "job did not register"; exit 1; }
j=$(ctl --json list | jget 'd["jobs"][0]["job"]')
wait_until 20 '[ "$(grep -c "^PID rank=" "$T/job.log")" = 2 ]' || { bad "no pids in the job's output"; exit 1; }
P=$(awk -F'pid=' '/^PID rank=/{print $2}' "$T/job.log" | paste -sd' ' -)
O1=$(cpus_of "${P%% *}"); O2=$(cpus_of "${P##* }")
ok "ranks $P start on CPUs '$O1' and '$O2'"
F=$(first_cpu "$O1" "$O2")
[ "$(job_field "$j" 'd["cores"]')" = 2 ] && ok "status: the job holds 2 cores" || bad "cores before the fold: $(job_field "$j" 'd.get("cores")')"

ctl fold "$j" 0 > /dev/null 2> "$T/err" && bad "fold to 0 cores accepted" || ok "fold to 0 cores refused: $(cat "$T/err")"
ctl fold 99 1 > /dev/null 2> "$T/err" && bad "fold of an unknown job accepted" || ok "fold of an unknown job refused: $(cat "$T/err")"

i0=$(job_field "$j" 'd["iteration"]')
t0=$(date +%s.%N)
ctl fold "$j" 1 && ok "fold to 1 core queued" || bad "fold refused"
wait_until 20 'all_on "$P" "$F"' && fold_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') &&
  ok "every thread of both ranks is pinned to CPU $F (${fold_s} s after the command)" || bad "affinity after fold: $(for p in $P; do cpus_of $p; done)"
[ "$(job_field "$j" 'd["cores"]')" = 1 ] && ok "status: the job holds 1 core" || bad "cores after fold: $(job_field "$j" 'd.get("cores")')"
[ "$(ctl --json slots | jget 'd["free"]')" = 1 ] && ok "ductiled: 1 slot free while folded" || bad "slots while folded: $(ctl --json slots)"
set -- $(cpu_window "$P" 2)
"$PY" -c "import sys; sys.exit(0 if $1 <= $2 * 1.0 + 0.15 else 1)" && ok "folded: both ranks used $1 s of CPU in $2 s (one core at most)" || bad "folded ranks used $1 s of CPU in $2 s"
wait_until 20 '[ "$(job_field "$j" "d[\"iteration\"]")" -gt "$i0" ]' && ok "the folded job makes progress" || bad "no progress while folded"
grep -q "fold: folded" "$T/job.log" && ok "both ranks logged the fold" || bad "no fold in the job's log"

ctl unfold "$j" && ok "unfold queued" || bad "unfold refused"
wait_until 20 '[ "$(cpus_of "${P%% *}")" = "$O1" ] && [ "$(cpus_of "${P##* }")" = "$O2" ]' && ok "each rank is back on its own CPUs" || bad "affinity after unfold: $(for p in $P; do cpus_of $p; done)"
[ "$(job_field "$j" 'd["cores"]')" = 2 ] && [ "$(ctl --json slots | jget 'd["free"]')" = 0 ] && ok "ductiled: 2 cores held again, no slot free" || bad "slots after unfold: $(ctl --json slots)"
set -- $(cpu_window "$P" 2)
ok "unfolded: both ranks used $1 s of CPU in $2 s"

# a second fold and unfold, then the end
ctl fold "$j" 1 > /dev/null && wait_until 20 'all_on "$P" "$F"' && ok "folded again" || bad "second fold"
ctl unfold "$j" > /dev/null && wait_until 20 '[ "$(cpus_of "${P%% *}")" = "$O1" ]' && ok "unfolded again" || bad "second unfold"
touch "$T/stop"
wait "$JPID"; rc=$?
res=$(grep '^RESULT' "$T/job.log")
[ $rc -eq 0 ] && [ -n "$res" ] && ok "the folded run ended: $res" || { bad "the job failed (rc $rc)"; exit 1; }
iters=$(echo "$res" | sed -n 's/.*iters=\([0-9]*\).*/\1/p')
ref=$(DUCTILE_CONTROLLER=off timeout -k 10 300 $MPIEXEC -n 2 env LD_PRELOAD="$LIBDUCTILE" "$APP" "$iters" 20 6 2>&1 | grep '^RESULT')
[ "$ref" = "$res" ] && ok "identical to a run nobody folded" || bad "results differ: folded '$res', reference '$ref'"
[ $fail = 0 ] && result "$ONE_HOST" fold works "$fold_s" "fold to 1 core and unfold, twice, of a running unmodified program, result as unfolded; seconds: from ductilectl fold to every thread pinned, polled every 0.2 s (tests/fold/unmodified.sh)"
exit $fail
