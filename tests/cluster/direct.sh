#!/usr/bin/env bash
# tests/cluster/direct.sh -- jobs launched by srun (direct launch, no
# mpiexec) resized under ductiled --slurm on the one-machine test cluster
# (tools/cluster, 4 hosts): with MPICH (srun --mpi=pmi2) new processes start
# as a new step of the Slurm job and join by connect/accept; a step that
# cannot start and a process that never connects leave the job at its size;
# a shrink ends the new step and gives its hosts back; Intel MPI the same,
# under srun --mpi=pmix too.  With Open MPI (srun --mpi=pmix) and Debian's
# MPICH 4.0 (no dynamic processes) the job is monitored, shrinks, and
# expansions are refused or fail with the cause.  The checks run inside the allocation
# (tests/cluster/direct-inner.sh); their rows go to the results table
# (docs/cluster.md, tools/cluster-table).  docs/cluster.md, "Direct launch".
set -u
. "$(dirname "$0")/common.sh"
cluster_up 4
if [ "$MPI_FAMILY" = openmpi ]; then
  part "$S/tests/cluster/direct-inner.sh" openmpi -N2 -n4 -w 'dnode[1-2]'
elif [ "${MPI_NAME#MPICH 4.0}" != "$MPI_NAME" ]; then # Debian's: no dynamic processes
  part "$S/tests/cluster/direct-inner.sh" nojoin -N2 -n4 -w 'dnode[1-2]'
else
  part "$S/tests/cluster/direct-inner.sh" mpich -N4 -n4 -w 'dnode[1-4]'
  # a second allocation: after the first one's resize Slurm changes its job no more (docs/cluster.md)
  part "$S/tests/cluster/direct-inner.sh" pmix -N4 -n4 -w 'dnode[1-4]'
fi
echo "sinfo after the test: $("$CLUSTER" exec dnode1 sinfo -h -N -o '%N:%t' | tr '\n' ' ')"
exit $fail
