#!/bin/sh
# ductiled + a real MPI job + ductilectl: registration, the monitoring stream
# in 'ductilectl status --json', refusals with reasons (unknown job, more
# processes than free slots), cost estimate, I/O hold/release, --help and exit
# codes, and the job's exit returning its slots.
. "$abs_top_srcdir/tests/controller/common.sh"
. "$abs_top_srcdir/tests/results-lib.sh"
start_daemon --slots 4
# I/O every 25 iterations of 20 ms: phases 0.5 s apart, more than two 200 ms samples
start_job a 2 5000 20 25 "$T/stop-a"
wait_until 30 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 1 ]' && ok "job registered" || { bad "job did not register"; exit 1; }
wait_until 20 '[ "$(job_field 1 "len(d[\"history\"]) >= 5")" = True ]' && ok "monitoring samples arrive" &&
  result "$ONE_HOST" monitor works - "registers with ductiled, samples (tests/controller/basic.sh)" || bad "no monitoring samples"
st=$(ctl --json status 1 --history 50)
echo "$st" | jget '(d["procs"], d["state"], d["binary"], d["slots"])'
[ "$(echo "$st" | jget 'd["procs"] == 2 and d["state"] == "running" and d["binary"] == "ctl_job"')" = True ] && ok "status: 2 processes, running, ctl_job" || bad "status wrong: $st"
[ "$(echo "$st" | jget 'all(s["procs"] == 2 and s["interval_s"] > 0 for s in d["history"])')" = True ] && ok "samples carry processes and intervals" || bad "samples malformed"
[ "$(echo "$st" | jget 'd["history"][-1]["iteration"] > d["history"][0]["iteration"]')" = True ] && ok "iterations advance in the stream" || bad "iterations do not advance"
wait_until 20 '[ "$(job_field 1 "d[\"io_period\"][\"phases\"] >= 2")" = True ]' && ok "I/O phases detected: $(job_field 1 'd["io_period"]')" || bad "no I/O phases in the stream"
[ "$(ctl --json list | jget 'd["slots"]["free"]')" = 2 ] && ok "2 of 4 slots used by the job" || bad "slots not accounted"

# refusals with reasons and exit codes
ctl status 99 > /dev/null 2> "$T/err"; rc=$?
[ $rc -eq 5 ] && grep -q "no job 99" "$T/err" && ok "unknown job refused (exit 5): $(cat "$T/err")" || bad "unknown job: rc $rc $(cat "$T/err")"
ctl expand 99 1 > /dev/null 2> "$T/err"; rc=$?
[ $rc -eq 5 ] && ok "expand of an unknown job refused (exit 5)" || bad "expand unknown job rc $rc"
ctl expand 1 10 > /dev/null 2> "$T/err"; rc=$?
[ $rc -eq 1 ] && grep -q "not enough free slots" "$T/err" && ok "too many processes refused (exit 1): $(cat "$T/err")" || bad "too many processes: rc $rc $(cat "$T/err")"
ctl --json expand 1 10 > "$T/out" 2>/dev/null
[ "$(jget 'd["error"]' < "$T/out")" = no_slots ] && ok "--json error carries the code no_slots" || bad "--json error: $(cat "$T/out")"
ctl expand 1 > /dev/null 2>&1; [ $? -eq 2 ] && ok "usage error exit 2" || bad "usage error exit code"
ctl expand 1 1 --hosts 'node$(id)' > /dev/null 2> "$T/err"; [ $? -eq 2 ] && ok "bad host name rejected by ductilectl: $(cat "$T/err")" || bad "bad host accepted"
ctl frobnicate > /dev/null 2>&1; [ $? -eq 2 ] && ok "unknown command exit 2" || bad "unknown command exit code"
for c in list status watch expand shrink resize io period cost slots; do
  ctl "$c" --help | grep -q "Usage: ductilectl $c" || bad "$c --help"
done
ok "--help for every subcommand"
"$DUCTILECTL" -c "unix:$T/nothing.sock" list > /dev/null 2>&1; [ $? -eq 3 ] && ok "no daemon: exit 3" || bad "no daemon exit code"

# cost (dry run)
c=$(ctl --json cost 1 --to 4)
[ "$(echo "$c" | jget 'd["bytes"] > 0 and d["from"] == 2 and d["to"] == 4 and d["feasible"]')" = True ] && ok "cost 2->4: $(echo "$c" | jget '(d["bytes"], d["bandwidth_source"], round(d["estimate_s"],4))')" || bad "cost: $c"
[ "$(ctl --json cost 1 --to 9 | jget 'd["feasible"]')" = False ] && ok "cost 2->9 is not feasible (slots)" || bad "cost feasibility"
ctl cost 1 --to 3 | grep -q "move" && ok "cost human output" || bad "cost human output"

# I/O hold and release
ctl io hold 1 > /dev/null && ok "io hold acknowledged" || bad "io hold"
wait_until 10 '[ "$(job_field 1 "d[\"io_held\"]")" = True ]' && ok "job reports I/O held" || bad "io_held not reported"
sleep 1.2  # let the job reach its next I/O phase (at most 0.5 s away) and the sample catch up
it1=$(job_field 1 'd["iteration"]'); sleep 1.5; it2=$(job_field 1 'd["iteration"]')
[ "$it1" = "$it2" ] && ok "job waits at its I/O gate (iteration $it1)" || bad "job did not wait for I/O release ($it1 -> $it2)"
ctl io release 1 > /dev/null && ok "io release acknowledged" || bad "io release"
wait_until 10 '[ "$(job_field 1 "d[\"iteration\"] > $it2")" = True ]' && ok "job continues after release" || bad "job stuck after release"
grep -q "I/O waited for release" "$T/a.log" && ok "the job saw its I/O held" || bad "job did not report the wait"
ctl period 1 0.1 > /dev/null && ok "monitoring period changed" || bad "period"
ctl watch 1 --count 2 --interval 0.2 | grep -q "ITERATION" && ok "watch prints a live table" || bad "watch"

# an unmodified program (no control points) is monitored but not resizable: an expand is refused with
# the cause instead of waiting for good with its slot reserved
env LD_PRELOAD="${SANITIZER_PRELOAD:+$SANITIZER_PRELOAD:}$LIBDUCTILE" timeout -k 10 60 $MPIEXEC -n 1 \
  "$abs_top_builddir/tests/mpi/iter" 100000000 > "$T/plain.log" 2>&1 &
PID_plain=$!
wait_until 20 '[ "$(ctl --json list | jget "len(d[\"jobs\"])")" = 2 ]' || bad "the plain program did not register"
sleep 6
ctl --json status 2 | jget 'd["malleable"]' | grep -q False && ok "a plain program: status says not malleable" || bad "plain program: $(ctl status 2 | grep -i malleable)"
out=$(ctl expand 2 1 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "reached no control point" && ok "its expand refused: $out" || bad "plain program's expand: rc $rc: $out"
kill "$PID_plain" 2>/dev/null; wait "$PID_plain" 2>/dev/null
wait_until 30 '[ "$(job_field 2 "d[\"state\"]")" != running ]' || bad "the plain program still listed as running after its end"

# the job ends: exited, slots back
touch "$T/stop-a"
wait "$PID_a"; rc=$?
[ $rc -eq 0 ] && grep -q "FINAL size=2 .*failures=0" "$T/a.log" && ok "job ended cleanly" || bad "job failed rc $rc"
wait_until 10 '[ "$(job_field 1 "d[\"state\"]")" = exited ]' && ok "job state exited" || bad "job not marked exited"
[ "$(ctl --json list | jget 'd["slots"]["free"]')" = 4 ] && ok "slots returned" || bad "slots not returned"
exit $fail
