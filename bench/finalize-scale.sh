#!/bin/sh
# bench/finalize-scale.sh -- MPI_Finalize time and rank 0's peak memory
# (maxrss) at N ranks (default 64, oversubscribed), with Ductile's report
# and without the preload, REPS runs each (the median counts; the machine
# is shared).  "ductile" lists every rank in the report (DUCTILE_REPORT_RANKS
# at least N); "reduced" only combines the ranks by reductions (=0), as every
# job larger than DUCTILE_REPORT_RANKS does.  Usage, from a build directory:
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
  # (BEFORE=1: a build older than DUCTILE_REPORT_RANKS, which rejects it)
  if [ "${BEFORE:-0}" = 0 ]; then export DUCTILE_REPORT_RANKS=$n; fi
  DUCTILE_REPORT="$tmp/r.json" DUCTILE_SUMMARY=0 "$top/tools/ductile-run" -q -- \
    $MPIEXEC -n "$n" "$top/bench/finalize" | grep finalize_s
  if [ "${BEFORE:-0}" = 0 ]; then
    printf 'reduced  '
    DUCTILE_REPORT="$tmp/r.json" DUCTILE_SUMMARY=0 DUCTILE_REPORT_RANKS=0 "$top/tools/ductile-run" -q -- \
      $MPIEXEC -n "$n" "$top/bench/finalize" | grep finalize_s
  fi
done
