#!/usr/bin/env bash
# tests/cluster/direct-inner.sh PART -- the parts of tests/cluster/direct.sh
# that run inside a Slurm allocation: jobs launched by srun (direct launch,
# no mpiexec) under ductiled --slurm.  Prints "ok: ..." / "FAIL: ..." lines
# and adds rows to the results table (inner-lib.sh, result).
#   mpich (MPICH 5, Intel MPI; salloc -N4 -n4, 1 CPU per host; srun --mpi=pmi2):
#     a step that cannot start: the expansion fails, the job goes on at 2;
#     a process that never connects (DUCTILE_RESIZE_TIMEOUT=8): the same, and
#       its step is ended;
#     2 -> 4 onto dnode3, dnode4 (a new step), data checked; 4 -> 2: the
#       step's processes exit, the step ends, ductiled gives both hosts back
#       (Slurm: job on dnode1, dnode2; sinfo idle);
#     cjacobi 2 -> 4 -> 2 -> 3 by its own schedule (no ductiled): the
#       checksum of a static srun run.
#   pmix (the same MPIs, salloc -N4 -n4; srun --mpi=pmix): where the MPI
#     starts under Slurm's PMIx plug-in (Intel MPI), 2 -> 4 -> 2 and the hosts
#     given back as in mpich; where it does not (MPICH 5: no PMIx client), the
#     cause is recorded.
#   nojoin (Debian's MPICH 4.0, salloc -N2 -n4; srun --mpi=pmi2): no dynamic
#     processes (ch4:ucx): monitored, an expansion fails with the MPI's cause
#     and the job goes on, 2 -> 1 works, the host is kept while the departed
#     process parks; under srun --mpi=pmix it does not start (recorded).
#   openmpi (salloc -N2 -n4; srun --mpi=pmix): monitored (registers with
#     its PMIx facts and samples); an expansion is refused by ductiled and by
#     the job itself with the cause; 2 -> 1 works, the host is kept while
#     the departed process parks; Open MPI under srun --mpi=pmi2 does not
#     start (4.1: recorded) or starts every process alone (5: recorded).
set -u
. "$S/tests/cluster/inner-lib.sh"
J_ARGS="1000000 30 0"
# run_job NAME SRUN-ARGS...: ctl_job as a step of the allocation, registered with ductiled
run_job() {
  local name=$1; shift
  # shellcheck disable=SC2086
  DUCTILE_CONTROLLER=unix:$SOCK DUCTILE_REPORT=$T/$name.json timeout -k 10 $((90 * scale)) srun "$@" \
    "$B/tests/controller/ctl_job" $J_ARGS "$T/stop.$name" > "$T/$name.log" 2>&1 &
  JOBPID=$!
  wait_until 30 '[ -n "$(jobid ctl_job)" ] || ! kill -0 $JOBPID 2>/dev/null'
  J=$(jobid ctl_job)
  [ -n "$J" ] || bad "job $name did not register: $(tail -5 "$T/$name.log")"
}
end_job() {
  local name=$1 size=$2 rc
  touch "$T/stop.$name"
  wait "$JOBPID"; rc=$?; JOBPID=
  grep -q "FINAL size=$size .*failures=0" "$T/$name.log" && [ $rc = 0 ] && ok "job $name: data checked: $(grep FINAL "$T/$name.log")" ||
    bad "job $name failed (exit $rc): $(tail -5 "$T/$name.log")"
}
steps() { squeue -h -s -j "$SLURM_JOB_ID" -o '%j' | sort | tr '\n' ' '; }
# starts M: does the MPI start one world of 2 processes on 2 hosts under srun --mpi=M
# (tests/cluster/hosts ranks, no Ductile)?  Otherwise CAUSE says why (empty: not understood)
starts() {
  local m=$1 rc log=$T/start.$1.log
  CAUSE=
  DUCTILE_CONTROLLER=off timeout -k 10 $((30 * scale)) srun --mpi="$m" -N2 -n2 -w dnode1,dnode2 "$B/tests/cluster/hosts" ranks > "$log" 2>&1
  rc=$?
  [ $rc = 0 ] && grep -q "hosts: ok 2 ranks on 2 hosts" "$log" && return 0
  if grep -q "unsupported PMI version PMIx" "$log"; then
    CAUSE="MPI_Init: Runtime environment uses unsupported PMI version PMIx (this MPICH has no PMIx client; use --mpi=pmi2)"
  elif grep -q "OMPI was not built with SLURM's PMI support" "$log"; then
    CAUSE="MPI_Init: OMPI was not built with SLURM's PMI support (Debian's Open MPI uses PMIx: --mpi=pmix)"
  elif [ "$(grep -c 'hosts: FAIL: 1 ranks on 1 host' "$log")" = 2 ]; then
    if [ "$m" = pmi2 ]; then
      CAUSE="every process starts alone, as a world of 1 (a singleton): this MPI has no PMI-2 client (Open MPI 5 speaks PMIx only: --mpi=pmix)"
    else
      CAUSE="every process starts alone, as a world of 1 (a singleton): this MPI has no PMIx client (Debian's MPICH 4.0: --mpi=pmi2)"
    fi
  fi
  return 1
}
# no_start M: the MPI does not start under srun --mpi=M: its rows, with the cause
no_start() {
  if [ -n "$CAUSE" ]; then
    ok "$MPI_NAME under srun --mpi=$1: $CAUSE"
    for op in monitor expand shrink "host given back"; do result "srun --mpi=$1" "$op" fails - "$CAUSE"; done
  else
    bad "$MPI_NAME under srun --mpi=$1: not understood: $(tail -5 "$T/start.$1.log")"
  fi
}
# grow_flow M: a job of 2 on dnode1, dnode2 grows onto dnode3, dnode4 as a new step (srun
# --mpi=M), shrinks back, and ductiled gives both hosts back; its rows
grow_flow() {
  local m=$1 L="srun --mpi=$1" tb rs r1 r2 r3 st
  run_job "grow$m" --mpi="$m" -N2 -n2 -w dnode1,dnode2
  [ -n "$J" ] && result "$L" monitor works - "registers with ductiled, samples"
  t0=$(now)
  ctl expand "$J" 2 > /dev/null || bad "expand $J 2 refused"
  wait_until 60 '[ "$(procs "$J")" = 4 ] && [ "$(view)" = "dnode1:up:1:0 dnode2:up:1:0 dnode3:up:1:0 dnode4:up:1:0" ]' &&
    ok "2 -> 4: the new processes run on dnode3, dnode4 as a new step ($(steps)) $(since "$t0") s after the command" ||
    bad "after expand: procs $(procs "$J"), $(view), steps $(steps)"
  t0=$(now)
  ctl shrink "$J" 2 > /dev/null || bad "shrink $J 2 refused"
  if wait_until 30 '[ "$(slurm_nodes)" = "dnode1 dnode2" ]'; then
    tb=$(since "$t0")
    ok "4 -> 2: the new step's processes exited, dnode3, dnode4 given back to Slurm $tb s after the shrink command ($(grep -o 'gave .* in [0-9.]* s' "$T/d.$part.log" | tail -1))"
  else
    tb=
    bad "hosts not given back: Slurm $(slurm_nodes), ductiled $(view), steps $(steps); $(grep slurm: "$T/d.$part.log" | tail -3)"
  fi
  st=$(sinfo -h -N -n dnode3,dnode4 -o '%N %t' | tr '\n' ' ')
  [ "$st" = "dnode3 idle dnode4 idle " ] && ok "sinfo: $st" || bad "sinfo after the give-back: $st"
  [ "$(view)" = "dnode1:up:1:0 dnode2:up:1:0 dnode3:released:0:0 dnode4:released:0:0" ] && ok "ductiled: $(view)" || bad "ductiled view $(view)"
  end_job "grow$m" 2
  rs=$(resizes "$T/grow$m.json")
  read -r r1 r2 r3 <<< "$rs"
  if [ -n "$r2" ] && [ -z "$r3" ] && [ "${r1%%:*}" = "2->4" ] && [ "${r2%%:*}" = "4->2" ]; then
    ok "report: resizes $rs"
    result "$L" expand works "${r1#*:}" "2 -> 4, a new step on 2 more hosts, joined by connect/accept"
    result "$L" shrink works "${r2#*:}" "4 -> 2, the new step's processes exit and their step ends"
    [ -n "$tb" ] && result "$L" "host given back" works "$tb" "from the shrink command to Slurm's job without the hosts"
  else
    bad "grow$m report: '$rs'"
  fi
}

case $part in
mpich)
  start_daemon
  [ "$(view)" = "dnode1:up:0:0 dnode2:up:0:0 dnode3:up:0:0 dnode4:up:0:0" ] && ok "ductiled --slurm: 4 hosts, 1 CPU each" ||
    bad "allocation seen: $(view)"
  L="srun --mpi=pmi2"
  # --- a step that cannot start
  DUCTILE_TEST_FAIL=step run_job fstep --mpi=pmi2 -N2 -n2 -w dnode1,dnode2
  grep -q "job $J: started by srun-pmi2 (direct launch)" "$T/d.$part.log" && ok "job $J registered as launched by srun --mpi=pmi2" ||
    bad "launcher not seen: $(grep "job $J" "$T/d.$part.log" | head -3)"
  ctl expand "$J" 1 > /dev/null || bad "expand $J 1 refused"
  wait_until 30 '[ "$(ctl --json slots | jget "d[\"free\"]")" = 2 ] && [ "$(ctl --json status "$J" | jget "d[\"pending\"]")" = 0 ]' &&
    [ "$(procs "$J")" = 2 ] && ok "the expansion failed, its slot is free again, the job runs at 2" ||
    bad "after the failed step: $(ctl --json slots | jget 'd["free"]') free, pending $(ctl --json status "$J" | jget 'd["pending"]'), procs $(procs "$J")"
  end_job fstep 2
  r=$(failed_reason "$T/fstep.json")
  echo "$r" | grep -q "the new step ended before its processes were ready to connect (srun: exit status 1" &&
    { ok "report: failed: $r"; result "$L" "a step that cannot start" "fails cleanly" - "the job goes on at its size: $r"; } ||
    bad "fstep report: '$r'"
  # --- a process that never connects
  DUCTILE_TEST_FAIL=connect DUCTILE_RESIZE_TIMEOUT=8 run_job fconn --mpi=pmi2 -N2 -n2 -w dnode1,dnode2
  t0=$(now)
  ctl expand "$J" 1 > /dev/null || bad "expand $J 1 refused"
  wait_until 30 '[ "$(ctl --json status "$J" | jget "d[\"pending\"]")" = 0 ]' && [ "$(procs "$J")" = 2 ] &&
    ok "the expansion failed $(since "$t0") s after the command (DUCTILE_RESIZE_TIMEOUT=8), the job runs at 2" ||
    bad "after the process that never connects: procs $(procs "$J")"
  wait_until 10 '! steps | grep -q ductile-join' && ok "its step was ended: steps of job $SLURM_JOB_ID: $(steps)" ||
    bad "the step of the failed expansion still runs: $(steps)"
  end_job fconn 2
  r=$(failed_reason "$T/fconn.json")
  echo "$r" | grep -q "did not connect within 8 s (DUCTILE_RESIZE_TIMEOUT); their step was ended" &&
    { ok "report: failed: $r"; result "$L" "a process that never connects" "fails cleanly" - "$r"; } || bad "fconn report: '$r'"
  # --- grow onto two more hosts, shrink, hosts back
  grow_flow pmi2
  # --- against a static run: tests/malleable/cjacobi's checksum (every element checked after every control point)
  cj="$B/tests/malleable/cjacobi"
  DUCTILE_CONTROLLER=off timeout -k 10 $((60 * scale)) srun --mpi=pmi2 -N2 -n2 -w dnode1,dnode2 "$cj" 100 30 > "$T/cj.ref" 2> "$T/cj.ref.err" ||
    bad "static cjacobi run: $(tail -3 "$T/cj.ref.err")"
  DUCTILE_CONTROLLER=off CJACOBI_SLEEP_MS=3 DUCTILE_SCHEDULE=5:+2,15:-2,20:+1 DUCTILE_REPORT=$T/cj.json timeout -k 10 $((90 * scale)) \
    srun --mpi=pmi2 -N2 -n2 -w dnode1,dnode2 "$cj" 100 30 > "$T/cj.out" 2> "$T/cj.err"
  rc=$?
  want=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$T/cj.ref")
  got=$(sed -n 's/.*checksum \([^ ]*\).*/\1/p' "$T/cj.out")
  rs=$(resizes "$T/cj.json")
  if [ $rc = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] && grep -q "wrong elements 0" "$T/cj.out" &&
    [ "$(echo "$rs" | sed 's/:[0-9.]*//g')" = "2->4 4->2 2->3" ]; then
    ok "cjacobi 2 -> 4 -> 2 -> 3 under srun (DUCTILE_SCHEDULE, new steps): checksum $got = the static run's, resizes $rs"
  else
    bad "cjacobi under srun: exit $rc, checksum '$got' (static '$want'), resizes '$rs': $(tail -5 "$T/cj.err")"
  fi
  ;;
pmix)
  start_daemon
  if starts pmix; then
    ok "$MPI_NAME starts under srun --mpi=pmix: $(grep 'hosts: ok' "$T/start.pmix.log")"
    grow_flow pmix
  else
    no_start pmix
  fi
  ;;
nojoin)
  start_daemon
  L="srun --mpi=pmi2"
  run_job nj --mpi=pmi2 -N2 -n2 -w dnode1,dnode2
  grep -q "job $J: started by srun-pmi2 (direct launch)" "$T/d.$part.log" && ok "job $J registered as launched by srun --mpi=pmi2" ||
    bad "launcher not seen: $(grep "job $J" "$T/d.$part.log" | head -3)"
  wait_until 10 '[ "$(ctl --json status "$J" | jget "d[\"iteration\"]")" -gt 0 ]' && ok "monitored: samples arrive" &&
    result "$L" monitor works - "registers with ductiled, samples" || bad "no samples from job $J"
  ctl expand "$J" 1 > /dev/null || bad "expand $J 1 refused"
  wait_until 30 '[ "$(ctl --json status "$J" | jget "d[\"pending\"]")" = 0 ] && [ "$(ctl --json slots | jget "d[\"free\"]")" = 2 ]' &&
    [ "$(procs "$J")" = 2 ] && ok "the expansion failed, its slot is free again, the job runs at 2" ||
    bad "after the failed expansion: procs $(procs "$J"), free $(ctl --json slots | jget 'd["free"]')"
  t0=$(now)
  ctl shrink "$J" 1 > /dev/null || bad "shrink $J 1 refused"
  wait_until 30 '[ "$(procs "$J")" = 1 ]' && sleep 1 && ok "2 -> 1 $(since "$t0") s after the command" || bad "after shrink: procs $(procs "$J")"
  r=$(reason dnode2)
  [ "$(slurm_nodes)" = "dnode1 dnode2" ] && echo "$r" | grep -q "still run there" && ok "dnode2 kept: $r" ||
    bad "after the shrink: Slurm $(slurm_nodes), dnode2 kept because '$r'"
  end_job nj 1
  r=$(failed_reason "$T/nj.json")
  rs=$(resizes "$T/nj.json")
  if echo "$r" | grep -q "MPI_Open_port failed: .*not supported" && [ "${rs%%:*}" = "2->1" ]; then
    ok "report: failed: $r; then $rs"
    result "$L" expand fails - "the MPI has no dynamic processes (Debian's build: ch4:ucx); the job goes on at its size: $r"
    result "$L" shrink works "${rs#*:}" "2 -> 1 (the departed rank parks: it belongs to the job's first step)"
    result "$L" "host given back" kept - "the departed process parks until the job ends (its step is the job's first), and no new step can join"
  else
    bad "nj report: failed '$r', resizes '$rs'"
  fi
  if starts pmix; then bad "$MPI_NAME started under srun --mpi=pmix: its rows are not made here"; else no_start pmix; fi
  ;;
openmpi)
  start_daemon
  L="srun --mpi=pmix"
  run_job ompi --mpi=pmix -N2 -n2 -w dnode1,dnode2
  grep -q "job $J: started by srun-pmix (direct launch).*not with Open MPI" "$T/d.$part.log" &&
    ok "job $J registered as launched by srun --mpi=pmix" || bad "launcher not seen: $(grep "job $J" "$T/d.$part.log" | head -3)"
  pm=$(ctl --json slots | jget 'd["slurm"]["pmix"]["'"$J"'"]["nspace"]' 2>/dev/null)
  wait_until 10 '[ "$(ctl --json status "$J" | jget "d[\"iteration\"]")" -gt 0 ]' && [ "${pm#slurm.pmix.}" != "$pm" ] &&
    ok "monitored: samples arrive, PMIx namespace $pm" || bad "monitoring: namespace '$pm'"
  result "$L" monitor works - "registers with ductiled (PMIx facts of Slurm's server), samples"
  ctl expand "$J" 1 > /dev/null 2> "$T/refused"
  grep -q "Open MPI job started by srun (srun-pmix): Slurm's PMIx plug-in supports neither MPI_Comm_spawn nor MPI_Comm_connect/accept.*start it with mpiexec" "$T/refused" &&
    ok "expansion refused: $(cat "$T/refused")" || bad "expansion of an Open MPI srun job: $(cat "$T/refused")"
  for op in expand "grow beyond the allocation"; do
    result "$L" "$op" refused - "Slurm's PMIx plug-in supports neither MPI_Comm_spawn nor connect/accept (measured: 'Underlying runtime environment does not support accept/connect functionality'); mpiexec in the allocation can"
  done
  t0=$(now)
  ctl shrink "$J" 1 > /dev/null || bad "shrink $J 1 refused"
  wait_until 30 '[ "$(procs "$J")" = 1 ]' && sleep 1 && ok "2 -> 1 $(since "$t0") s after the command" || bad "after shrink: procs $(procs "$J")"
  r=$(reason dnode2)
  [ "$(slurm_nodes)" = "dnode1 dnode2" ] && echo "$r" | grep -q "still run there" && ok "dnode2 kept: $r" ||
    bad "after the shrink: Slurm $(slurm_nodes), dnode2 kept because '$r'"
  end_job ompi 1
  rs=$(resizes "$T/ompi.json")
  [ "${rs%%:*}" = "2->1" ] && ok "report: $rs" || bad "ompi report: '$rs'"
  result "$L" shrink works "${rs#*:}" "2 -> 1 (the departed rank parks: it belongs to the job's first step)"
  result "$L" "host given back" kept - "the departed process parks until the job ends (its step is the job's first); only whole new steps can end early, and no new step can join"
  # the job's own refusal (a schedule, no ductiled)
  DUCTILE_CONTROLLER=off DUCTILE_SCHEDULE=3:+1 DUCTILE_REPORT=$T/own.json timeout -k 10 60 srun --mpi=pmix -n2 "$B/tests/controller/ctl_job" 6 20 > "$T/own.log" 2>&1 ||
    bad "the scheduled job failed: $(tail -3 "$T/own.log")"
  r=$(failed_reason "$T/own.json")
  echo "$r" | grep -q "this Open MPI job was started by srun (srun-pmix): Slurm's PMIx plug-in supports neither" &&
    grep -q "FINAL size=2 .*failures=0" "$T/own.log" && ok "a scheduled expansion fails with the cause, the job goes on: $r" || bad "own refusal: '$r'"
  # Open MPI under srun --mpi=pmi2
  if starts pmi2; then bad "$MPI_NAME started under srun --mpi=pmi2: its rows are not made here"; else no_start pmi2; fi
  ;;
*) echo "usage: direct-inner.sh mpich|pmix|nojoin|openmpi"; exit 2 ;;
esac
exit $fail
