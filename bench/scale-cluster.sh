#!/usr/bin/env bash
# bench/scale-cluster.sh [P] [ROUNDS] [CSV] -- run from a build tree: bench/scale
# across the test hosts (tests/cluster, docs/cluster.md): the expansion P -> 2P
# and the shrink 2P -> P, one process per host on 2P hosts (a cluster of 2P
# hosts this script makes, or a running one with at least 2P hosts), each run
# one salloc; the CSV's `hosts` column says on how many hosts each run ran.
# Not part of make check (numbers only).  Default P = 2, 3 rounds.
set -u
p=${1:-2}; rounds=${2:-3}; out=${3:-scale-cluster.csv}
B=${abs_top_builddir:-$PWD}
. "$B/tests/env.sh" || exit 1
CLUSTER=$abs_top_srcdir/tools/cluster
n=$((2 * p))
exec {lockfd}> /run/ductile-cluster.lock
flock -w 300 $lockfd || { echo "cluster lock busy"; exit 1; }
made=0
if ! "$CLUSTER" status >/dev/null 2>&1; then "$CLUSTER" up "$n" || exit 1; made=1; fi
T=$(mktemp -d -p "$B/tests/cluster" scale.XXXXXX) # the reports: a folder every host sees
trap 'rm -rf "$T"; [ $made = 1 ] && "$CLUSTER" down >/dev/null 2>&1' EXIT
if [ "$MPI_FAMILY" = openmpi ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  PPN1="--map-by ppr:1:node -x LD_PRELOAD -x DUCTILE_REPORT -x DUCTILE_SUMMARY -x DUCTILE_CONTROLLER -x DUCTILE_SCHEDULE"
else
  export SLURM_OVERLAP=1 UCX_TLS=${UCX_TLS:-tcp,self} UCX_NET_DEVICES=${UCX_NET_DEVICES:-eth0}; PPN1="-ppn 1"
fi
export TMPDIR=$T
export MPIEXEC="$CLUSTER exec dnode1 salloc -Q -J ductile-scale -t 10 -N$n -n$n -w dnode[1-$n] $MPIEXEC $PPN1"
nice "$B/bench/scale" --procs "$p" --reps "$rounds" --csv "$out" "${@:4}"
