#!/usr/bin/env bash
# tests/cluster/accounting-inner.sh acct|acct-mpiexec -- the part of
# tests/cluster/accounting.sh that runs inside the allocation (salloc -N1
# -n2 -w dnode1, 2 CPUs per host) on a cluster with slurmdbd: ductiled
# --slurm-grow changes the Slurm job four times (grow beyond the
# allocation, give the host back, again), each visible in scontrol; sacct
# shows the job's records with their node counts.  MPICH: ctl_job
# (2 -> 4 -> 2 -> 4 -> 2, data checked) started by srun --mpi=pmi2 (acct) or
# by mpiexec (acct-mpiexec); Open MPI (acct): fakejob.py (no MPI; Open MPI's
# mpiexec cannot start processes on an added host, and a job srun started
# can take none).
set -u
. "$S/tests/cluster/inner-lib.sh"
case $part in acct | acct-mpiexec) ;; *) echo "usage: accounting-inner.sh acct|acct-mpiexec"; exit 2 ;; esac
GROW=1 start_daemon
[ "$(slurm_nodes)" = dnode1 ] && ok "Slurm job $SLURM_JOB_ID on dnode1, ductiled --slurm-grow: $(view)" || bad "allocation: $(slurm_nodes)"
if [ "$MPI_FAMILY" = openmpi ]; then
  "$PYTHON" "$S/tests/cluster/fakejob.py" "$SOCK" "$T/stop.$part" $((90 * scale)) dnode1 0.2 > "$T/$part.log" 2>&1 &
  JOBPID=$!
  wait_until 10 '[ -n "$(jobid fakejob)" ]' || bad "fakejob did not register: $(cat "$T/$part.log")"
  J=$(jobid fakejob)
  base=1 what="fakejob (no MPI)"
else
  # acct: MPICH started by srun (direct launch: each growth is a new step joined by
  # connect/accept); acct-mpiexec: by mpiexec, whose growths are spawns (hydra starts a
  # proxy as a new step: SLURM_OVERLAP=1, docs/cluster.md; without it the second growth hangs)
  launch="srun --mpi=pmi2"
  [ "$part" = acct-mpiexec ] && launch=$MPIEXEC && export SLURM_OVERLAP=1
  # shellcheck disable=SC2086
  DUCTILE_CONTROLLER=unix:$SOCK DUCTILE_REPORT=$T/$part.json timeout -k 10 $((90 * scale)) $launch -n 2 \
    "$B/tests/controller/ctl_job" 1000000 30 0 "$T/stop.$part" > "$T/$part.log" 2>&1 &
  JOBPID=$!
  wait_until 30 '[ -n "$(jobid ctl_job)" ]' || bad "the MPI job did not register: $(tail -5 "$T/$part.log")"
  J=$(jobid ctl_job)
  base=2 what="ctl_job (MPICH, ${launch##*/})"
fi
changes=0
# slurmdbd keeps one record per start second: changes in the same second
# overwrite each other's record, so each change waits for the next second
next_second() { local s; s=$(date +%s); while [ "$(date +%s)" = "$s" ]; do sleep 0.1; done; }
for round in 1 2; do
  next_second
  t0=$(now)
  ctl expand "$J" 2 > /dev/null 2> "$T/err" || bad "round $round: expand $J 2 refused: $(cat "$T/err")"
  if wait_until 30 '[ "$(procs "$J")" = $((base + 2)) ] && [ "$(slurm_nodes | wc -w)" = 2 ]'; then
    changes=$((changes + 1))
    grow_s=$(since "$t0")
    ok "round $round: $base -> $((base + 2)) beyond the allocation: Slurm job now on $(slurm_nodes) $grow_s s after the command ($(grep -o 'grew by .* in [0-9.]* s' "$T/d.$part.log" | tail -1))"
  else
    bad "round $round: growth: procs $(procs "$J"), Slurm $(slurm_nodes), $(view); $(grep slurm: "$T/d.$part.log" | tail -2)"
    break
  fi
  added=$(slurm_nodes | tr ' ' '\n' | grep -v '^dnode1$')
  next_second
  t0=$(now)
  ctl shrink "$J" 2 > /dev/null 2> "$T/err" || bad "round $round: shrink $J 2 refused: $(cat "$T/err")"
  if wait_until 30 '[ "$(procs "$J")" = $base ] && [ "$(slurm_nodes)" = dnode1 ]'; then
    changes=$((changes + 1))
    back_s=$(since "$t0")
    ok "round $round: $((base + 2)) -> $base: $added given back, Slurm job on dnode1 again $back_s s after the command ($(grep -o 'gave .* in [0-9.]* s' "$T/d.$part.log" | tail -1))"
  else
    bad "round $round: give-back: procs $(procs "$J"), Slurm $(slurm_nodes), $(view), $added kept because '$(reason "$added")'"
    break
  fi
done
[ $changes = 4 ] && ok "four Slurm-visible changes to job $SLURM_JOB_ID, made for $what"
if [ $changes = 4 ] && [ "$MPI_FAMILY" != openmpi ]; then
  L=$launch
  [ "$part" = acct-mpiexec ] && L=mpiexec
  # (mpiexec's growth row is tests/cluster/slurm.sh's: one writer per row, whatever order the tests run in)
  [ "$L" = mpiexec ] || result "$L" "grow beyond the allocation" works "$grow_s" "with slurmdbd: Slurm adds a host to the job, twice (ductiled --slurm-grow)"
  result "$L" "host given back after a growth" works "$back_s" "with slurmdbd: from the shrink command to Slurm's job without the added host"
fi
touch "$T/stop.$part"
wait "$JOBPID"; rc=$?; JOBPID=
if [ "$MPI_FAMILY" != openmpi ]; then
  grep -q "FINAL size=2 .*failures=0" "$T/$part.log" && [ $rc = 0 ] && ok "job data checked: $(grep FINAL "$T/$part.log")" ||
    bad "job failed (exit $rc): $(tail -5 "$T/$part.log")"
  rs=$(resizes "$T/$part.json")
  [ "$(echo "$rs" | sed 's/:[0-9.]*//g')" = "2->4 4->2 2->4 4->2" ] && ok "report: resizes $rs" || bad "report: resizes '$rs'"
fi
# sacct: the job's records (-D: one per size the job had) and node counts
sleep 1
sacct -n -P -D -X -j "$SLURM_JOB_ID" -o JobID,State,NNodes,NodeList > "$T/sacct.$part.txt" 2>&1
echo "sacct -D -X -j $SLURM_JOB_ID:"; sed 's/^/  /' "$T/sacct.$part.txt"
seq=$(cut -d'|' -f2,3 "$T/sacct.$part.txt" | tr '\n' ' ')
[ "$seq" = "RESIZING|1 RESIZING|2 RESIZING|1 RESIZING|2 RUNNING|1 " ] &&
  ok "sacct: job $SLURM_JOB_ID had 1, 2, 1, 2, 1 nodes, each change a record (state|nodes: $seq)" ||
  bad "sacct records of job $SLURM_JOB_ID (state|nodes): $seq"
sacct -n -P -j "$SLURM_JOB_ID" -o JobID,JobName,NNodes,NodeList > "$T/steps.$part.txt" 2>&1
echo "sacct -j $SLURM_JOB_ID (steps):"; sed 's/^/  /' "$T/steps.$part.txt"
if [ "$MPI_FAMILY" != openmpi ]; then
  # a step per growth on the added host (srun: ductile-join; mpiexec: hydra's proxy)
  st=$(awk -F'|' '$1 ~ /\./ && $4 == "dnode2" { printf "%s:%s:%s ", $1, $2, $3 }' "$T/steps.$part.txt")
  [ "$(echo "$st" | wc -w)" = 2 ] && ok "sacct: the steps of the two growths on dnode2: $st" ||
    bad "sacct steps on dnode2: '$st' (all: $(tr '\n' ' ' < "$T/steps.$part.txt"))"
fi
exit $fail
