#!/usr/bin/env bash
# tests/cluster/accounting.sh -- Slurm with its accounting database: the test
# cluster (tools/cluster up --accounting: MariaDB and slurmdbd on dnode1, the
# cluster registered with sacctmgr) lets ductiled --slurm-grow change one job
# four times -- it grows beyond the allocation, gives the host back, grows
# again, gives it back again -- which Slurm 22.05 without accounting storage
# refuses after the first change (tests/cluster/slurm.sh, part beyond).
# MPICH: an MPI job (data checked by ctl_job) started by srun --mpi=pmi2
# (its growths are new steps), then one started by mpiexec (spawns); Open MPI
# (which cannot start processes on a host added to the allocation,
# docs/cluster.md): a job without MPI (fakejob.py).  sacct must show the
# job's records and node counts.  The checks run inside the allocation
# (tests/cluster/accounting-inner.sh).  docs/cluster.md, "Accounting".
set -u
. "$(dirname "$0")/common.sh"
cluster_up 4 --accounting
part "$S/tests/cluster/accounting-inner.sh" acct -N1 -n2 -w dnode1
[ "$MPI_FAMILY" = openmpi ] || part "$S/tests/cluster/accounting-inner.sh" acct-mpiexec -N1 -n2 -w dnode1
echo "sinfo after the test: $("$CLUSTER" exec dnode1 sinfo -h -N -o '%N:%t' | tr '\n' ' ')"
exit $fail
