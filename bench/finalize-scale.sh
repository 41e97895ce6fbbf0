#!/bin/sh
# bench/finalize-scale.sh -- MPI_Finalize time and rank 0's peak memory
# (maxrss) at N ranks (default 64, oversubscribed), with Ductile's report
# and without the preload, REPS runs each (the median counts; the machine
# is shared).  Usage, from a build directory:
#   ../bench/finalize-scale.sh [N] [REPS]
# Prints one line per run: "<variant> finalize_s <s> rank0_maxrss_kb <kB>".
set -eu
n=${1:-64}; reps=${2:-3}
top=$(pwd)
. "$top/tests/env.sh"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for i in $(seq "$reps"); do
  printf 'bare     '; $MPIEXEC -n "$n" "$top/bench/finalize" | grep finalize_s
  printf 'ductile  '
  DUCTILE_REPORT="$tmp/r.json" DUCTILE_SUMMARY=0 "$top/tools/ductile-run" -q -- \
    $MPIEXEC -n "$n" "$top/bench/finalize" | grep finalize_s
done
