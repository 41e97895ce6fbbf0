#!/bin/sh
# Period Coupling (Algorithm 4 of the CLARISSE/FlexMPI paper) end to end:
# ductiled --io-policy period-coupling and two real malleable jobs
# (tests/io/io_jacobi, EMPI, one process each, started in step) with
# different I/O periods: A does 100 ms of work per iteration, B 200 ms, both
# a 1 s checkpoint every 10 iterations, so A's period is ~2 s and B's ~3 s
# (1.5 times A's: as far from a multiple as it gets).  Once both periods are
# known ductiled resizes B (the longer period) permanently: speedup
# 3/2 = 1.5 -> 2 processes, after which B's period is ~2 s, a multiple of
# A's.  check_coupling.py checks the plan, the +1 at a control point (events
# and report), that no -1 follows, that B's period measured from the
# reports' phase timestamps is now close to a multiple of A's and closer
# than before, and the results (checksums and checkpoint files against a
# run without any resize).  --slots 3 leaves exactly one free slot, so the
# planned +1 is the only resize possible whatever later plans the jitter of
# a loaded machine may produce; a second coupling planned from B's period
# before the resize (a bug, fixed) fails the test.  Then with --slots 2 (no
# free slot) the coupling plan is cancelled cleanly: io_plan "cancelled", no
# resize, both jobs finish with the right result.  About 35 s.
. "$abs_top_srcdir/tests/io/common.sh"
. "$abs_top_srcdir/tests/io/ductiled.sh"
# a checkpoint is writes with 25 ms pauses: one I/O phase at the default 100 ms gap, but
# on a loaded machine (ASan, CI) a pause can pass 100 ms and split a phase, which skews the
# periods ductiled predicts from; 300 ms is still far below the 1-2 s between checkpoints
export DUCTILE_IO_PHASE_GAP=300
JAC="$B/tests/io/io_jacobi"
# DIM ITERATIONS IO_EVERY ITER_MS IO_MS
ARGS_A="64 70 10 100 1000"
ARGS_B="64 70 10 200 1000"
# ref ITERATIONS: the result without ductiled, timing knobs or resizes
# (the checksum and the last checkpoint depend on neither)
ref() {
  DUCTILE_CONTROLLER=off DUCTILE_REPORT= timeout -k 10 $((60 * SCALE)) $MPIEXEC -n 1 "$JAC" 64 "$1" 10 0 0 "$T/ref$1.ckpt" \
    > "$T/ref$1.out" 2> "$T/ref$1.log" || bad "reference run of $1 iterations failed"
}
# same_result PREFIX ITERATIONS_A ITERATIONS_B: final line and last checkpoint
# as without resizes
same_result() {
  for n in a b; do
    if [ $n = a ]; then its=$2; else its=$3; fi
    want=$(grep '^io_jacobi:' "$T/ref$its.out" | awk '{print $2, $NF}')
    got=$(grep '^io_jacobi:' "$T/$1$n.out" | awk '{print $2, $NF}')
    [ -n "$want" ] && [ "$got" = "$want" ] && ok "$1$n: $got (iterations, checksum) as without resizes" ||
      bad "$1$n: result '$got', expected '$want'"
    cmp -s "$T/ref$its.ckpt" "$T/$1$n.ckpt" && ok "$1$n: last checkpoint identical to the reference" ||
      bad "$1$n: checkpoint file differs from the reference"
  done
}
ref 70
ref 50
ref 30

start_daemon --slots 3 --io-policy period-coupling
run_pair p
ctl --json status "$(job_id pa)" --history 0 > "$T/sta.json" && ctl --json status "$(job_id pb)" --history 0 > "$T/stb.json" ||
  bad "no status from ductiled"
"$PY" "$S/tests/io/check_coupling.py" "$T/sta.json" "$T/pa.json" "$T/pa.out" "$T/stb.json" "$T/pb.json" "$T/pb.out" || fail=1
same_result p 70 70
grep "I/O interference" "$T/daemon.log" | head -5
stop_daemon

# the resource manager has no free slot: the coupling plan is cancelled cleanly
rm -f "$T/state.json"
start_daemon --slots 2 --io-policy period-coupling
# A runs on after B's second phase, when ductiled plans (it skips a job that exited)
ARGS_A="64 50 10 100 1000"
ARGS_B="64 30 10 200 1000"
run_pair c
nr=0
for n in a b; do
  ctl --json status "$(job_id c$n)" --history 0 > "$T/stc$n.json" 2>/dev/null || bad "no status of job c$n"
  nr=$((nr + $(jget "len([e for e in d['events'] if e['kind']=='resized' or (e['kind']=='io_plan' and e.get('status')=='planned')])" < "$T/stc$n.json")))
  s=$(jget "d['state'] + ' ' + str(d['procs'])" < "$T/stc$n.json")
  [ "$s" = "exited 1" ] && ok "job c$n exited normally on 1 process" || bad "job c$n is '$s'"
done
# B, the job with the longer period, is the one ductiled wanted to resize
nc=$(jget "len([e for e in d['events'] if e['kind']=='io_plan' and e.get('status')=='cancelled' and e.get('strategy')=='period-coupling' and e.get('new_procs')==2])" < "$T/stcb.json")
[ "$nc" -ge 1 ] && ok "with no free slot the period coupling of B was cancelled ($nc io_plan cancelled events): $(jget "[e['why'] for e in d['events'] if e['kind']=='io_plan'][0]" < "$T/stcb.json")" ||
  bad "no cancelled period-coupling io_plan event for B with --slots 2"
[ $nr -eq 0 ] && ok "no plan went ahead and no resize happened" || bad "$nr resizes or planned io_plans with no free slot"
for n in a b; do
  r=$(jget "len(d['reconfigurations'])" < "$T/c$n.json" 2>/dev/null)
  [ "$r" = 0 ] && ok "c$n's report has no reconfiguration" || bad "c$n's report has '$r' reconfigurations"
done
same_result c 50 30
exit $fail
