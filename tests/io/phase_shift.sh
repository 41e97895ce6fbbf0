#!/bin/sh
# Phase Shifting (Algorithm 3 of the CLARISSE/FlexMPI paper) end to end:
# ductiled --io-policy phase-shift and two real malleable jobs
# (tests/io/io_jacobi, EMPI, one process each, started in step) whose
# checkpoints come at the same time.  ductiled predicts the interference
# after their second I/O phases and plans a temporary +P for one job; the +P
# and the matching -P happen at the planned iterations, and that job's next
# I/O phase no longer overlaps the other's (reports' timestamps).  Then a
# second ductiled with no free slot: the plan is cancelled cleanly (an
# io_plan "cancelled" event, no resize, both jobs finish).
. "$abs_top_srcdir/tests/io/common.sh"
. "$abs_top_srcdir/tests/io/ductiled.sh"
# a checkpoint is writes with 25 ms pauses: one I/O phase at the default 100 ms gap, but
# on a loaded machine (ASan, CI) a pause can pass 100 ms and split a phase, which skews the
# periods ductiled predicts from; 300 ms is still far below the 1-2 s between checkpoints
export DUCTILE_IO_PHASE_GAP=300
JAC="$B/tests/io/io_jacobi"
# 1 process, 100 ms of work per iteration, a 400 ms checkpoint every 60
# iterations (period ~6.4 s): the shift needs 2 processes (Eq. 2)
ARGS_A="64 250 60 100 400"; ARGS_B=$ARGS_A
start_daemon --slots 4 --io-policy phase-shift --io-uncertainty 0.3 --io-overhead 0.5
run_pair s
ctl --json status "$(job_id sa)" --history 0 > "$T/sta.json" && ctl --json status "$(job_id sb)" --history 0 > "$T/stb.json" ||
  bad "no status from ductiled"
"$PY" "$S/tests/io/check_shift.py" "$T/sta.json" "$T/sa.json" "$T/sa.out" "$T/stb.json" "$T/sb.json" "$T/sb.out" || fail=1
grep "I/O interference" "$T/daemon.log" | head -5
stop_daemon

# the resource manager has no free slot: the plan is cancelled cleanly
rm -f "$T/state.json"
start_daemon --slots 2 --io-policy phase-shift --io-uncertainty 0.3 --io-overhead 0.5
ARGS_A="64 140 60 100 400"; ARGS_B=$ARGS_A
run_pair c
n=0; nr=0
for id in $(job_id ca) $(job_id cb); do
  ctl --json status $id --history 0 > "$T/c$id.json" 2>/dev/null
  n=$((n + $(jget "len([e for e in d['events'] if e['kind']=='io_plan' and e.get('status')=='cancelled'])" < "$T/c$id.json")))
  nr=$((nr + $(jget "len([e for e in d['events'] if e['kind']=='resized'])" < "$T/c$id.json")))
done
[ $n -ge 1 ] && ok "with no free slot the phase shift was cancelled ($n io_plan cancelled events): $(grep -h 'cancelled' "$T/daemon.log" | head -1 | sed 's/.*: cancelled: //')" ||
  bad "no cancelled io_plan event with --slots 2"
[ $nr -eq 0 ] && ok "no resize happened" || bad "$nr resizes with no free slot"
for id in $(job_id ca) $(job_id cb); do
  s=$(jget "d['state']" < "$T/c$id.json")
  [ "$s" = exited ] && ok "job $id exited normally" || bad "job $id is $s"
done
exit $fail
